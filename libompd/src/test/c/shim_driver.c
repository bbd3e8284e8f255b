/*
 * shim_driver LIBOMPD SCENARIO -- a debugger in miniature for the shim's robustness (with src/test/c/fake_engine.c
 * as its engine: JOMPD_JAVA): loads jompd's libompd.so, initializes one address space and runs one scenario:
 *   asks_forever  one ompd_get_omp_version while the engine keeps asking questions:
 *                 "asks_forever rc R ms T" (T: the call's duration)
 *   concurrent    two threads (tags 0x1111, 0x2222) call ompd_get_omp_version 20 times each at once; the engine
 *                 answers the address symbol_addr_lookup gave it, which is the calling thread's tag:
 *                 "concurrent TAG I rc R value V" for each call
 *   reentry       symbol_addr_lookup calls ompd_get_omp_version itself (once) while the outer call waits:
 *                 "reentry inner rc R", then "reentry outer rc R value V"
 *   fds           before the engine starts, the driver holds /dev/null open without O_CLOEXEC (an fd any debugger
 *                 may have): "held fd N", then each fd the engine has, from /proc/PID/fd: "engine fd N TARGET"
 *   unload        dlclose without ompd_finalize: "engine alive after dlclose: 0|1" (its /proc entry, 1 s later)
 *   fork          a child forked after the engine started exits (running the library's destructors): "child exited
 *                 N", then the parent's next call: "engine after the child's exit: same|another"
 * Messages through print_string: "PRINT text". Last line: "DONE".
 */
#define _GNU_SOURCE
#include <omp-tools.h>

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct _ompd_aspace_cont { int id; };
static ompd_address_space_context_t context = {1};

static __thread uint64_t thread_tag;
static int reenter_once;
static ompd_address_space_handle_t *aspace;
static ompd_rc_t (*get_omp_version)(ompd_address_space_handle_t *, ompd_word_t *);
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void line(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void line(const char *format, ...) {
  va_list args;
  va_start(args, format);
  pthread_mutex_lock(&print_lock);
  vprintf(format, args);
  fflush(stdout);
  pthread_mutex_unlock(&print_lock);
  va_end(args);
}

static ompd_rc_t cb_alloc(ompd_size_t n, void **p) {
  *p = malloc(n ? n : 1);
  return *p ? ompd_rc_ok : ompd_rc_nomem;
}
static ompd_rc_t cb_free(void *p) {
  free(p);
  return ompd_rc_ok;
}
static ompd_rc_t cb_print(const char *s, int category) {
  (void)category;
  line("PRINT %s\n", s);
  return ompd_rc_ok;
}
static ompd_rc_t cb_sizes(ompd_address_space_context_t *c, ompd_device_type_sizes_t *s) {
  (void)c;
  ompd_device_type_sizes_t native = {1, 2, 4, 8, 8, 8};
  *s = native;
  return ompd_rc_ok;
}
static ompd_rc_t cb_symbol(ompd_address_space_context_t *c, ompd_thread_context_t *t, const char *name,
                           ompd_address_t *address, const char *file) {
  (void)c, (void)t, (void)file;
  if (strcmp(name, "thread_tag") != 0)
    return ompd_rc_error;
  if (reenter_once) {
    reenter_once = 0;
    ompd_word_t inner = 0;
    ompd_rc_t rc = get_omp_version(aspace, &inner);
    line("reentry inner rc %d\n", (int)rc);
  }
  address->segment = 0;
  address->address = thread_tag;
  return ompd_rc_ok;
}
static ompd_rc_t cb_read(ompd_address_space_context_t *c, ompd_thread_context_t *t, const ompd_address_t *a,
                         ompd_size_t n, void *buffer) {
  (void)c, (void)t, (void)a, (void)n, (void)buffer;
  return ompd_rc_error;
}
static ompd_rc_t cb_thread_context(ompd_address_space_context_t *c, ompd_thread_id_t kind, ompd_size_t size,
                                   const void *id, ompd_thread_context_t **out) {
  (void)c, (void)kind, (void)size, (void)id, (void)out;
  return ompd_rc_unavailable;
}
static const ompd_callbacks_t callbacks = {cb_alloc, cb_free, cb_print, cb_sizes, cb_symbol, cb_read, NULL, cb_read,
                                           NULL, NULL, cb_thread_context};

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static long engine_pid(void *library) {
  ompd_rc_t (*version_string)(ompd_address_space_handle_t *, const char **) =
      (ompd_rc_t(*)(ompd_address_space_handle_t *, const char **))dlsym(library, "ompd_get_omp_version_string");
  const char *text = NULL;
  long pid = -1;
  if (version_string(aspace, &text) == ompd_rc_ok && sscanf(text, "fake engine pid %ld", &pid) == 1)
    free((void *)text);
  return pid;
}

static void *caller(void *tag) {
  thread_tag = (uint64_t)(uintptr_t)tag;
  for (int i = 0; i < 20; i++) {
    ompd_word_t value = 0;
    ompd_rc_t rc = get_omp_version(aspace, &value);
    line("concurrent 0x%lx %d rc %d value 0x%lx\n", (unsigned long)thread_tag, i, (int)rc, (unsigned long)value);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: shim_driver LIBOMPD SCENARIO\n");
    return 2;
  }
  const char *scenario = argv[2];
  int held = -1;
  if (strcmp(scenario, "fds") == 0) {
    held = open("/dev/null", O_RDONLY); /* no O_CLOEXEC, as debuggers' fds often are */
    line("held fd %d\n", held);
  }
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  ompd_rc_t (*initialize)(ompd_word_t, const ompd_callbacks_t *) =
      (ompd_rc_t(*)(ompd_word_t, const ompd_callbacks_t *))dlsym(library, "ompd_initialize");
  ompd_rc_t (*process_initialize)(ompd_address_space_context_t *, ompd_address_space_handle_t **) =
      (ompd_rc_t(*)(ompd_address_space_context_t *, ompd_address_space_handle_t **))dlsym(library,
                                                                                          "ompd_process_initialize");
  get_omp_version = (ompd_rc_t(*)(ompd_address_space_handle_t *, ompd_word_t *))dlsym(library, "ompd_get_omp_version");
  ompd_rc_t rc = initialize(201811, &callbacks);
  if (rc == ompd_rc_ok)
    rc = process_initialize(&context, &aspace);
  if (rc != ompd_rc_ok) {
    printf("initialize rc %d\n", (int)rc);
    return 1;
  }
  if (strcmp(scenario, "asks_forever") == 0) {
    long start = now_ms();
    ompd_word_t value = 0;
    rc = get_omp_version(aspace, &value);
    line("asks_forever rc %d ms %ld\n", (int)rc, now_ms() - start);
  } else if (strcmp(scenario, "concurrent") == 0) {
    pthread_t a, b;
    pthread_create(&a, NULL, caller, (void *)(uintptr_t)0x1111);
    pthread_create(&b, NULL, caller, (void *)(uintptr_t)0x2222);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
  } else if (strcmp(scenario, "reentry") == 0) {
    thread_tag = 0x3333;
    reenter_once = 1;
    ompd_word_t value = 0;
    rc = get_omp_version(aspace, &value);
    line("reentry outer rc %d value 0x%lx\n", (int)rc, (unsigned long)value);
  } else if (strcmp(scenario, "fds") == 0) {
    long pid = engine_pid(library);
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd", pid);
    DIR *dir = opendir(path);
    struct dirent *entry;
    while (dir && (entry = readdir(dir)) != NULL) {
      if (entry->d_name[0] == '.')
        continue;
      char link[128], target[4096];
      snprintf(link, sizeof link, "%s/%s", path, entry->d_name);
      ssize_t n = readlink(link, target, sizeof target - 1);
      target[n > 0 ? n : 0] = 0;
      line("engine fd %s %s\n", entry->d_name, target);
    }
    if (dir)
      closedir(dir);
    close(held);
  } else if (strcmp(scenario, "fork") == 0) {
    long before = engine_pid(library);
    pid_t child = fork();
    if (child == 0)
      exit(0);
    int status = -1;
    waitpid(child, &status, 0);
    line("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    long after = engine_pid(library);
    line("engine after the child's exit: %s\n", after > 0 && after == before ? "same" : "another");
  } else if (strcmp(scenario, "unload") == 0) {
    long pid = engine_pid(library);
    dlclose(library);
    struct timespec second = {1, 0};
    nanosleep(&second, NULL);
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld", pid);
    struct stat st;
    line("engine alive after dlclose: %d\n", pid > 0 && stat(path, &st) == 0);
  }
  line("DONE\n");
  return 0;
}
