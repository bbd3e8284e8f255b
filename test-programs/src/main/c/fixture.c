/*
 * fixture.c -- common harness for jompd's OpenMP fixture programs (see fixture.h, FIXTURES.md).
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- the marker --------------------------------------------------------------------- */

__attribute__((noinline, used)) void jompd_marker(void) {
  /* Keeps the call and the function from being optimised away or merged. */
  asm volatile("" ::: "memory");
  const char *hold = getenv("JOMPD_HOLD");
  if (hold && strcmp(hold, "1") == 0) {
    printf("JOMPD_AT_MARKER %ld\n", (long)getpid());
    fflush(stdout);
    /* Block until one line (or EOF) arrives on stdin: a test attaches meanwhile. */
    char c;
    for (;;) {
      ssize_t n = read(STDIN_FILENO, &c, 1);
      if (n == 1 && c != '\n')
        continue;
      if (n < 0 && errno == EINTR)
        continue;
      break;
    }
  }
  asm volatile("" ::: "memory");
}

/* ---- facts storage ------------------------------------------------------------------ */

typedef struct {
  char *key;
  char *value;
} fx_entry;

typedef struct {
  fx_entry *v;
  int n, cap;
} fx_list;

static pthread_mutex_t fx_facts_mutex = PTHREAD_MUTEX_INITIALIZER;
static fx_list fx_globals;
static fx_list *fx_threads; /* indexed by k */
static int fx_threads_cap;
static const char *fx_fixture_name = "unknown";

static void fx_list_put(fx_list *l, const char *key, const char *value) {
  for (int i = 0; i < l->n; i++) {
    if (strcmp(l->v[i].key, key) == 0) {
      free(l->v[i].value);
      l->v[i].value = strdup(value);
      return;
    }
  }
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 32;
    l->v = realloc(l->v, (size_t)l->cap * sizeof(fx_entry));
    if (!l->v) {
      perror("realloc");
      _exit(3);
    }
  }
  l->v[l->n].key = strdup(key);
  l->v[l->n].value = strdup(value);
  l->n++;
}

static char *fx_vformat(const char *fmt, va_list ap) {
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0) {
    perror("vasprintf");
    _exit(3);
  }
  return s;
}

void fx_put(const char *key, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *value = fx_vformat(fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&fx_facts_mutex);
  fx_list_put(&fx_globals, key, value);
  pthread_mutex_unlock(&fx_facts_mutex);
  free(value);
}

static void fx_thread_put_locked(int k, const char *subkey, const char *value) {
  if (k < 0) {
    fprintf(stderr, "fixture: negative thread index %d\n", k);
    _exit(3);
  }
  if (k >= fx_threads_cap) {
    int ncap = fx_threads_cap ? fx_threads_cap : 64;
    while (ncap <= k)
      ncap *= 2;
    fx_threads = realloc(fx_threads, (size_t)ncap * sizeof(fx_list));
    if (!fx_threads) {
      perror("realloc");
      _exit(3);
    }
    memset(fx_threads + fx_threads_cap, 0, (size_t)(ncap - fx_threads_cap) * sizeof(fx_list));
    fx_threads_cap = ncap;
  }
  fx_list_put(&fx_threads[k], subkey, value);
}

void fx_thread_put(int k, const char *subkey, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *value = fx_vformat(fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&fx_facts_mutex);
  fx_thread_put_locked(k, subkey, value);
  pthread_mutex_unlock(&fx_facts_mutex);
  free(value);
}

long fx_gettid(void) { return (long)syscall(SYS_gettid); }

const char *fx_schedule_string(char *buf, int size) {
  omp_sched_t kind;
  int chunk;
  omp_get_schedule(&kind, &chunk);
  unsigned int k = (unsigned int)kind;
  const char *mod = (k & 0x80000000u) ? "monotonic:" : "";
  k &= 0x7fffffffu;
  const char *name;
  char other[32];
  switch (k) {
  case 1: name = "static"; break;
  case 2: name = "dynamic"; break;
  case 3: name = "guided"; break;
  case 4: name = "auto"; break;
  default:
    snprintf(other, sizeof other, "kind%u", k);
    name = other;
  }
  snprintf(buf, (size_t)size, "%s%s,%d", mod, name, chunk);
  return buf;
}

void fx_thread_facts(int k, const char *role) {
  /* Read everything first, then store under the mutex. */
  char sched[64], anc[1024], sizes[1024];
  int level = omp_get_level();
  size_t a = 0, s = 0;
  anc[0] = sizes[0] = '\0';
  for (int l = 1; l <= level; l++) {
    a += (size_t)snprintf(anc + a, sizeof anc - a, "%s%d", l > 1 ? "," : "",
                          omp_get_ancestor_thread_num(l));
    s += (size_t)snprintf(sizes + s, sizeof sizes - s, "%s%d", l > 1 ? "," : "",
                          omp_get_team_size(l));
    if (a >= sizeof anc - 16 || s >= sizeof sizes - 16)
      break;
  }
  fx_schedule_string(sched, sizeof sched);
  /* place-partition-var as the program sees it: its places' numbers and each place's processors, in the
   * OMP_PLACES form ("{0,1},{2,3}"). Inside a region only: at level 0 the query binds the initial thread
   * (__kmp_assign_root_init_mask), which would change what is read. */
  char partition[256], partition_procs[512];
  partition[0] = partition_procs[0] = '\0';
  if (level > 0) {
    int places = omp_get_partition_num_places();
    int nums[64], procs[64];
    if (places > 64)
      places = 64;
    omp_get_partition_place_nums(nums);
    size_t p = 0, q = 0;
    for (int i = 0; i < places && p < sizeof partition - 16 && q < sizeof partition_procs - 64; i++) {
      p += (size_t)snprintf(partition + p, sizeof partition - p, "%s%d", i > 0 ? "," : "", nums[i]);
      int count = omp_get_place_num_procs(nums[i]);
      if (count > 64)
        count = 64;
      omp_get_place_proc_ids(nums[i], procs);
      q += (size_t)snprintf(partition_procs + q, sizeof partition_procs - q, "%s{", i > 0 ? "," : "");
      for (int j = 0; j < count && q < sizeof partition_procs - 16; j++)
        q += (size_t)snprintf(partition_procs + q, sizeof partition_procs - q, "%s%d", j > 0 ? "," : "", procs[j]);
      q += (size_t)snprintf(partition_procs + q, sizeof partition_procs - q, "}");
    }
  }
  /* Small buffers: this runs on OpenMP threads, whose stacks OMP_STACKSIZE may shrink. */
  struct {
    const char *key;
    char value[64];
  } kv[24];
  int n = 0;
#define KV(K, ...) (kv[n].key = (K), snprintf(kv[n].value, sizeof kv[n].value, __VA_ARGS__), n++)
  KV("lwp", "%ld", fx_gettid());
  KV("pthread", "0x%lx", (unsigned long)pthread_self());
  KV("thread_num", "%d", omp_get_thread_num());
  KV("level", "%d", level);
  KV("active_level", "%d", omp_get_active_level());
  KV("team_size", "%d", omp_get_num_threads());
  KV("role", "%s", role);
  KV("in_final", "%d", omp_in_final());
  KV("max_threads", "%d", omp_get_max_threads());
  KV("dynamic", "%d", omp_get_dynamic());
  KV("schedule", "%s", sched);
  KV("max_active_levels", "%d", omp_get_max_active_levels());
  KV("thread_limit", "%d", omp_get_thread_limit());
  KV("proc_bind", "%d", (int)omp_get_proc_bind());
  KV("default_device", "%d", omp_get_default_device());
  KV("team_num", "%d", omp_get_team_num());
  KV("num_teams", "%d", omp_get_num_teams());
#undef KV
  pthread_mutex_lock(&fx_facts_mutex);
  for (int i = 0; i < n; i++) {
    fx_thread_put_locked(k, kv[i].key, kv[i].value);
    if (strcmp(kv[i].key, "team_size") == 0) { /* keep the documented key order */
      fx_thread_put_locked(k, "ancestors", anc);
      fx_thread_put_locked(k, "team_sizes", sizes);
    }
  }
  if (level > 0) {
    fx_thread_put_locked(k, "partition_places", partition);
    fx_thread_put_locked(k, "partition_procs", partition_procs);
  }
  pthread_mutex_unlock(&fx_facts_mutex);
}

/* ---- init ------------------------------------------------------------------------- */

static int fx_env_interesting(const char *e) {
  return strncmp(e, "OMP_", 4) == 0 || strncmp(e, "KMP_", 4) == 0 ||
         strncmp(e, "LIBOMP_", 7) == 0 || strncmp(e, "GOMP_", 5) == 0;
}

void fx_init(const char *fixture, int argc, char **argv) {
  fx_fixture_name = fixture;
  fx_put("fixture", "%s", fixture);
  fx_put("pid", "%ld", (long)getpid());
#ifdef _OPENMP
  fx_put("openmp_version", "%d", _OPENMP);
#else
  fx_put("openmp_version", "0");
#endif
  /* args: the arguments after the program name, separated by single spaces */
  char *args = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&args, &len);
  for (int i = 1; i < argc; i++)
    fprintf(f, "%s%s", i > 1 ? " " : "", argv[i]);
  fclose(f);
  fx_put("args", "%s", args);
  free(args);
  for (char **e = environ; e && *e; e++) {
    if (!fx_env_interesting(*e))
      continue;
    const char *eq = strchr(*e, '=');
    if (!eq)
      continue;
    char key[512];
    snprintf(key, sizeof key, "env.%.*s", (int)(eq - *e), *e);
    fx_put(key, "%s", eq + 1);
  }
}

/* ---- writing ------------------------------------------------------------------------ */

/* .properties escaping (ASCII output; bytes >= 0x80 become \u00XX, i.e. Latin-1). */
static void fx_escape(FILE *f, const char *s, int is_key) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char c = *p;
    switch (c) {
    case '\\': fputs("\\\\", f); continue;
    case '\n': fputs("\\n", f); continue;
    case '\r': fputs("\\r", f); continue;
    case '\t': fputs("\\t", f); continue;
    case '\f': fputs("\\f", f); continue;
    default: break;
    }
    if (c < 0x20 || c >= 0x7f) {
      fprintf(f, "\\u%04x", c);
    } else if ((c == ' ' && (is_key || p == (const unsigned char *)s)) ||
               (is_key && (c == '=' || c == ':' || c == '#' || c == '!'))) {
      fputc('\\', f);
      fputc(c, f);
    } else {
      fputc(c, f);
    }
  }
}

static void fx_write_entry(FILE *f, const char *prefix, const char *key, const char *value) {
  char full[600];
  snprintf(full, sizeof full, "%s%s", prefix, key);
  fx_escape(f, full, 1);
  fputc('=', f);
  fx_escape(f, value, 0);
  fputc('\n', f);
}

static void fx_record_process_icvs(void) {
  char buf[4096];
  fx_put("icv.cancellation", "%d", omp_get_cancellation());
  fx_put("icv.max_task_priority", "%d", omp_get_max_task_priority());
  fx_put("icv.num_procs", "%d", omp_get_num_procs());
  const char *stack = getenv("OMP_STACKSIZE");
  if (stack)
    fx_put("icv.stacksize_env", "%s", stack);
  size_t n = omp_get_affinity_format(buf, sizeof buf);
  if (n >= sizeof buf)
    buf[sizeof buf - 1] = '\0';
  fx_put("icv.affinity_format", "%s", buf);
  fx_put("icv.default_device", "%d", omp_get_default_device());
  fx_put("icv.num_devices", "%d", omp_get_num_devices());
  fx_put("icv.initial_device", "%d", omp_get_initial_device());
  fx_put("icv.num_places", "%d", omp_get_num_places());
  /* OpenMP 5.0/5.1 API functions, called only by compilers that claim those versions: a gcc 12 program
   * (_OPENMP 201511) binds them to libgomp's OMP_5.0.1/OMP_5.1 symbol versions, which LLVM's libomp does
   * not define, so the dynamic linker would refuse to run it on libomp (jompd run). */
#if _OPENMP >= 201811
  fx_put("icv.supported_active_levels", "%d", omp_get_supported_active_levels());
#endif
#if _OPENMP >= 202011
  fx_put("icv.num_teams", "%d", omp_get_max_teams());
  fx_put("icv.teams_thread_limit", "%d", omp_get_teams_thread_limit());
#endif
  Dl_info info;
  if (dladdr((void *)&omp_get_num_procs, &info) && info.dli_fname)
    fx_put("runtime_library", "%s", info.dli_fname);
}

static const char *fx_list_get(const fx_list *l, const char *key) {
  for (int i = 0; i < l->n; i++)
    if (strcmp(l->v[i].key, key) == 0)
      return l->v[i].value;
  return "";
}

/* Compares two thread records by their "ancestors" value as integer tuples. */
static int fx_cmp_ancestors(const void *pa, const void *pb) {
  const fx_list *a = pa, *b = pb;
  if (a->n == 0 || b->n == 0)
    return (a->n == 0) - (b->n == 0); /* empty slots last */
  const char *x = fx_list_get(a, "ancestors"), *y = fx_list_get(b, "ancestors");
  for (;;) {
    if (!*x || !*y)
      return (*x != 0) - (*y != 0); /* a prefix sorts first */
    char *ex, *ey;
    long vx = strtol(x, &ex, 10), vy = strtol(y, &ey, 10);
    if (vx != vy)
      return vx < vy ? -1 : 1;
    x = *ex == ',' ? ex + 1 : ex;
    y = *ey == ',' ? ey + 1 : ey;
  }
}

static int fx_sort_requested;

void fx_write_facts_and_mark_sorted(int marker_k) {
  fx_sort_requested = 1;
  fx_write_facts_and_mark(marker_k);
}

static void fx_gate_settle(void);

void fx_write_facts_and_mark(int marker_k) {
  fx_write_facts(marker_k);
  fx_gate_settle();
  jompd_marker();
}

void fx_write_facts(int marker_k) {
  fx_record_process_icvs();
  pthread_mutex_lock(&fx_facts_mutex);
  if (fx_sort_requested && fx_threads_cap > 0) {
    /* Renumber: k in lexicographic order of the ancestor thread numbers. */
    char marker_lwp[64];
    snprintf(marker_lwp, sizeof marker_lwp, "%s",
             marker_k < fx_threads_cap ? fx_list_get(&fx_threads[marker_k], "lwp") : "");
    qsort(fx_threads, (size_t)fx_threads_cap, sizeof(fx_list), fx_cmp_ancestors);
    for (int k = 0; k < fx_threads_cap; k++)
      if (fx_threads[k].n > 0 && strcmp(fx_list_get(&fx_threads[k], "lwp"), marker_lwp) == 0)
        marker_k = k;
  }
  int count = 0;
  for (int k = 0; k < fx_threads_cap; k++)
    if (fx_threads[k].n > 0)
      count++;
  char num[32];
  snprintf(num, sizeof num, "%d", count);
  fx_list_put(&fx_globals, "threads", num);
  snprintf(num, sizeof num, "%d", marker_k);
  fx_list_put(&fx_globals, "marker_thread", num);

  const char *path = getenv("JOMPD_FACTS");
  if (path && *path) {
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp%ld", path, (long)getpid()) < 0)
      _exit(3);
    FILE *f = fopen(tmp, "w");
    if (!f) {
      fprintf(stderr, "%s: cannot write facts file %s: %s\n", fx_fixture_name, tmp,
              strerror(errno));
      _exit(3);
    }
    fprintf(f, "# jompd fixture facts (written by the program at the marker)\n");
    for (int i = 0; i < fx_globals.n; i++)
      fx_write_entry(f, "", fx_globals.v[i].key, fx_globals.v[i].value);
    for (int k = 0; k < fx_threads_cap; k++) {
      char prefix[48];
      snprintf(prefix, sizeof prefix, "thread.%d.", k);
      for (int i = 0; i < fx_threads[k].n; i++)
        fx_write_entry(f, prefix, fx_threads[k].v[i].key, fx_threads[k].v[i].value);
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
      fprintf(stderr, "%s: cannot write facts file %s: %s\n", fx_fixture_name, path,
              strerror(errno));
      _exit(3);
    }
    free(tmp);
  }
  pthread_mutex_unlock(&fx_facts_mutex);
}

/* ---- gate ------------------------------------------------------------------------- */

static pthread_mutex_t fx_gate_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fx_gate_arrived_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t fx_gate_open_cv = PTHREAD_COND_INITIALIZER;
static long fx_gate_arrived;
static long fx_gate_expected;
static int fx_gate_opened;

void fx_gate_expect(long delta) {
  pthread_mutex_lock(&fx_gate_mutex);
  fx_gate_expected += delta;
  pthread_cond_broadcast(&fx_gate_arrived_cv);
  pthread_mutex_unlock(&fx_gate_mutex);
}

void fx_gate_await_expected(void) {
  pthread_mutex_lock(&fx_gate_mutex);
  while (fx_gate_arrived < fx_gate_expected)
    pthread_cond_wait(&fx_gate_arrived_cv, &fx_gate_mutex);
  pthread_mutex_unlock(&fx_gate_mutex);
}

/* The gate's waiters by thread id, so that the marker can let them settle into their wait (fx_gate_settle). */
#define FX_GATE_MAX_WAITERS 4096
static pid_t fx_gate_waiters[FX_GATE_MAX_WAITERS];
static int fx_gate_waiter_count;

void fx_gate_wait(void) {
  pthread_mutex_lock(&fx_gate_mutex);
  if (fx_gate_waiter_count < FX_GATE_MAX_WAITERS)
    fx_gate_waiters[fx_gate_waiter_count++] = (pid_t)syscall(SYS_gettid);
  fx_gate_arrived++;
  pthread_cond_broadcast(&fx_gate_arrived_cv);
  while (!fx_gate_opened)
    pthread_cond_wait(&fx_gate_open_cv, &fx_gate_mutex);
  pthread_mutex_unlock(&fx_gate_mutex);
}

void fx_gate_arrive(void) {
  pthread_mutex_lock(&fx_gate_mutex);
  fx_gate_arrived++;
  pthread_cond_broadcast(&fx_gate_arrived_cv);
  pthread_mutex_unlock(&fx_gate_mutex);
}

void fx_gate_await(long n) {
  pthread_mutex_lock(&fx_gate_mutex);
  while (fx_gate_arrived < n)
    pthread_cond_wait(&fx_gate_arrived_cv, &fx_gate_mutex);
  pthread_mutex_unlock(&fx_gate_mutex);
}

void fx_gate_open(void) {
  pthread_mutex_lock(&fx_gate_mutex);
  fx_gate_opened = 1;
  pthread_cond_broadcast(&fx_gate_open_cv);
  pthread_mutex_unlock(&fx_gate_mutex);
}

/* Whether thread tid of this process sleeps (state S or D in /proc): a gate waiter that is in its futex wait. */
static int fx_thread_sleeps(pid_t tid) {
  char path[64], stat[512];
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 1; /* gone: nothing to wait for */
  ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (n <= 0) return 1;
  stat[n] = '\0';
  const char *end = strrchr(stat, ')'); /* the name may hold spaces and parentheses */
  return end == NULL || end[1] == '\0' || end[2] == 'S' || end[2] == 'D';
}

/*
 * Waits (at most 2 s) until every thread that arrived at the gate sleeps in its wait. A waiter counts as arrived
 * while it still runs pthread_cond_wait's way in (unlocking the mutex, waking another): a core made then catches
 * it between frames, where debuggers' inline frames of libc may differ. Those stacks are not the fixture's story.
 */
static void fx_gate_settle(void) {
  pthread_mutex_lock(&fx_gate_mutex);
  int count = fx_gate_opened ? 0 : fx_gate_waiter_count;
  pid_t waiters[FX_GATE_MAX_WAITERS];
  memcpy(waiters, fx_gate_waiters, sizeof(pid_t) * (size_t)count);
  pthread_mutex_unlock(&fx_gate_mutex);
  for (int round = 0; round < 2000; round++) {
    int running = 0;
    for (int i = 0; i < count; i++)
      running += !fx_thread_sleeps(waiters[i]);
    if (running == 0) return;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
}

int fx_gate_is_open(void) {
  pthread_mutex_lock(&fx_gate_mutex);
  int o = fx_gate_opened;
  pthread_mutex_unlock(&fx_gate_mutex);
  return o;
}

/* ---- counters ----------------------------------------------------------------------- */

struct fx_counter {
  pthread_mutex_t m;
  pthread_cond_t c;
  long v;
};

fx_counter *fx_counter_new(void) {
  fx_counter *c = calloc(1, sizeof *c);
  if (!c)
    _exit(3);
  pthread_mutex_init(&c->m, NULL);
  pthread_cond_init(&c->c, NULL);
  return c;
}

void fx_counter_add(fx_counter *c, long delta) {
  pthread_mutex_lock(&c->m);
  c->v += delta;
  pthread_cond_broadcast(&c->c);
  pthread_mutex_unlock(&c->m);
}

void fx_counter_await(fx_counter *c, long target) {
  pthread_mutex_lock(&c->m);
  while (c->v < target)
    pthread_cond_wait(&c->c, &c->m);
  pthread_mutex_unlock(&c->m);
}

long fx_counter_get(fx_counter *c) {
  pthread_mutex_lock(&c->m);
  long v = c->v;
  pthread_mutex_unlock(&c->m);
  return v;
}

/* ---- helpers ------------------------------------------------------------------------ */

void fx_usage_exit(char **argv, const char *usage, const char *why) {
  fprintf(stderr, "%s: %s\nusage: %s %s\n", argv && argv[0] ? argv[0] : "fixture", why,
          argv && argv[0] ? argv[0] : "fixture", usage);
  exit(2);
}

int fx_arg_int(int argc, char **argv, int i, int dflt, int min, int max, const char *usage) {
  if (i >= argc)
    return dflt;
  char *end;
  errno = 0;
  long v = strtol(argv[i], &end, 10);
  char why[256];
  if (errno || end == argv[i] || *end != '\0') {
    snprintf(why, sizeof why, "argument %d ('%s') is not an integer", i, argv[i]);
    fx_usage_exit(argv, usage, why);
  }
  if (v < min || v > max) {
    snprintf(why, sizeof why, "argument %d (%ld) must be in [%d, %d]", i, v, min, max);
    fx_usage_exit(argv, usage, why);
  }
  return (int)v;
}

void fx_arg_max(int argc, char **argv, int max_args, const char *usage) {
  if (argc - 1 > max_args)
    fx_usage_exit(argv, usage, "too many arguments");
}

void fx_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *why = fx_vformat(fmt, ap);
  va_end(ap);
  fflush(stdout);
  printf("JOMPD_RESULT fail %s\n", why);
  fflush(stdout);
  fflush(stderr);
  _exit(1);
}

void fx_ok(unsigned long long checksum) {
  printf("JOMPD_RESULT ok %llu\n", checksum);
  fflush(stdout);
}

/* ---- Fortran entry points ------------------------------------------------------------- */

void fx_f_init(const char *fixture) {
  /* Recover argv from /proc/self/cmdline for the args= fact. */
  static char buf[8192];
  static char *argv[128];
  int argc = 0;
  int fd = open("/proc/self/cmdline", O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
  if (fd >= 0)
    close(fd);
  if (n > 0) {
    buf[n] = '\0';
    for (char *p = buf; p < buf + n && argc < 127; p += strlen(p) + 1)
      argv[argc++] = p;
  }
  argv[argc] = NULL;
  fx_init(strdup(fixture), argc, argv);
}

void fx_f_thread_facts(int k, const char *role) { fx_thread_facts(k, role); }
void fx_f_put_int(const char *key, int value) { fx_put(key, "%d", value); }
void fx_f_gate_wait(void) { fx_gate_wait(); }
void fx_f_gate_await(int n) { fx_gate_await(n); }
void fx_f_gate_open(void) { fx_gate_open(); }
void fx_f_write_facts(int marker_k) { fx_write_facts(marker_k); }
void fx_f_fail(const char *reason) { fx_fail("%s", reason); }
void fx_f_ok(long long checksum) { fx_ok((unsigned long long)checksum); }

/* ---- compatibility with older runtimes -------------------------------------------------- */

/* clang 19 ends every dynamically scheduled loop (schedule(dynamic|guided|runtime), ordered)
 * with a call to __kmpc_dispatch_deinit, which libomp gained only in LLVM 19 -- as an empty
 * function (kmp_dispatch.cpp). This identical no-op lets the fixtures link against libomp 14
 * and 16 too. */
struct ident;
void __kmpc_dispatch_deinit(struct ident *loc, int gtid);
void __kmpc_dispatch_deinit(struct ident *loc, int gtid) {
  (void)loc;
  (void)gtid;
}

/* ---- hang fixtures ---------------------------------------------------------------------- */

static struct {
  int entered;    /* atomic: 1 once the thread called fx_hang_enter, 0 again after fx_hang_leave */
  int generation; /* atomic: counts the fx_hang_enter calls, so that a waiter re-measures a re-entered slot */
  long tid;
  pthread_t pthread;
} fx_hang_slots[FX_HANG_SLOTS];
static int fx_hang_facts_written; /* atomic */

void fx_hang_enter(int slot) {
  if (slot < 0 || slot >= FX_HANG_SLOTS)
    fx_fail("hang slot %d out of range", slot);
  fx_hang_slots[slot].tid = fx_gettid();
  fx_hang_slots[slot].pthread = pthread_self();
  __atomic_add_fetch(&fx_hang_slots[slot].generation, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&fx_hang_slots[slot].entered, 1, __ATOMIC_RELEASE);
}

void fx_hang_leave(int slot) {
  if (slot < 0 || slot >= FX_HANG_SLOTS)
    fx_fail("hang slot %d out of range", slot);
  __atomic_store_n(&fx_hang_slots[slot].entered, 0, __ATOMIC_RELEASE);
}

/* The state letter of /proc/self/task/TID/stat (after the parenthesised command name). */
static char fx_task_state(long tid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return '?';
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return '?';
  buf[n] = '\0';
  char *close_paren = strrchr(buf, ')');
  return close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
}

static long long fx_thread_cpu_ns(pthread_t thread) {
  clockid_t clock;
  struct timespec ts;
  if (pthread_getcpuclockid(thread, &clock) != 0 || clock_gettime(clock, &ts) != 0)
    return -1;
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void fx_hang_await(int n) { fx_hang_await_except(n, -1); }

void fx_hang_await_except(int n, int except) {
  if (n < 0 || n > FX_HANG_SLOTS)
    fx_fail("hang slot count %d out of range", n);
  long long seen_cpu[FX_HANG_SLOTS];
  int seen_generation[FX_HANG_SLOTS];
  for (int s = 0; s < n; s++)
    seen_generation[s] = 0;
  int expected = except >= 0 && except < n ? n - 1 : n;
  struct timespec step = {0, 2000000L};
  for (long waited_ms = 0;; waited_ms += 2) {
    int waiting = 0;
    for (int s = 0; s < n; s++) {
      if (s == except || !__atomic_load_n(&fx_hang_slots[s].entered, __ATOMIC_ACQUIRE))
        continue;
      int generation = __atomic_load_n(&fx_hang_slots[s].generation, __ATOMIC_ACQUIRE);
      long long cpu = fx_thread_cpu_ns(fx_hang_slots[s].pthread);
      if (seen_generation[s] != generation) { /* entered anew since last seen: measure from now */
        seen_generation[s] = generation;
        seen_cpu[s] = cpu;
      }
      if (fx_task_state(fx_hang_slots[s].tid) == 'S' || (cpu >= 0 && cpu - seen_cpu[s] >= 20000000LL))
        waiting++;
    }
    if (waiting == expected)
      return;
    if (waited_ms >= 60000)
      fx_fail("only %d of %d hanging threads reached their waits in 60 s", waiting, expected);
    nanosleep(&step, NULL);
  }
}

void fx_hang_write_facts(void) {
  fx_put("hang.marker", "watcher");
  fx_write_facts(-1);
  __atomic_store_n(&fx_hang_facts_written, 1, __ATOMIC_RELEASE);
}

static void *fx_hang_watcher(void *arg) {
  int n = (int)(intptr_t)arg;
  struct timespec step = {0, 2000000L};
  while (!__atomic_load_n(&fx_hang_facts_written, __ATOMIC_ACQUIRE))
    nanosleep(&step, NULL);
  fx_hang_await(n);
  jompd_marker();
  fx_ok((unsigned long long)n);
  fflush(stdout);
  _exit(0);
  return NULL;
}

void fx_hang_watch(int n) {
  pthread_t watcher;
  if (pthread_create(&watcher, NULL, fx_hang_watcher, (void *)(intptr_t)n) != 0)
    fx_fail("cannot start the watcher thread");
  pthread_detach(watcher);
}

int fx_hang_never_ready_fd(void) {
  static int fds[2] = {-1, -1};
  static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&once);
  if (fds[0] < 0 && pipe(fds) != 0)
    fx_fail("pipe: %s", strerror(errno));
  pthread_mutex_unlock(&once);
  return fds[0];
}

void fx_f_hang_enter(int slot) { fx_hang_enter(slot); }
void fx_f_hang_await(int n) { fx_hang_await(n); }
void fx_f_hang_write_facts(void) { fx_hang_write_facts(); }
void fx_f_hang_watch(int n) { fx_hang_watch(n); }
void fx_f_thread_put_int(int k, const char *subkey, int value) { fx_thread_put(k, subkey, "%d", value); }
void fx_f_put_str(const char *key, const char *value) { fx_put(key, "%s", value); }
