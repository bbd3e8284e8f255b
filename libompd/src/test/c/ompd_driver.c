/*
 * ompd_driver LIBRARY... -- an OMPD client with no debugger: this OpenMP program (libomp with OMPD) inspects
 * itself through each OMPD library given, one after the other, and prints what every routine answered.
 *
 * Inside nested parallel regions (2 x 3 threads), the thread whose ancestors are all 0 calls the libraries
 * while the others spin; the callbacks read this process's own memory (process_vm_readv: a bad address is an
 * error, not a crash), look symbols up in the ELF symbol tables of the loaded objects (thread-local ones with
 * __tls_get_addr: the calling thread is the only one with a context) and allocate with malloc.
 *
 * OMPD_DRIVER_API: the api version given to ompd_initialize (default 201811, what LLVM's gdb plugin asks).
 * OMPD_DRIVER_FAULTS (jompd's library only): the callbacks misbehave one way at a time (read_memory failing,
 * symbol_addr_lookup failing or answering ok with a garbage address, get_thread_context_for_thread_id failing,
 * read_memory answering garbage bytes for the __kmp_threads pointer; a lookup failing in one call, then every read),
 * a fixed set of routines is called under each
 * ("fault.MODE.ROUTINE rc value"), then again with the callbacks behaving ("recovered.MODE.ROUTINE rc value").
 * Before each library's inspection, a watch: the driver's two team mates change state while the same thread
 * handles are asked ompd_get_state again and again (spinning in user code, then waiting for a lock the driver
 * holds, then waiting in an explicit barrier, then spinning again): each state as the phase the program put them
 * in says ("L<n> watch.PHASE rc reached wait-ids"), and the reads ompd_get_state made: its last call's
 * ("watch.reads_last"), the most of any call ("watch.reads_most").
 * Output lines: "TRUTH key value" (from omp_* calls), "L<n> key rc value" (library n's answers). Checks that
 * only make sense on jompd's library (garbage handles, calls after ompd_finalize, which would crash LLVM's) run
 * when the library's version string starts with "jompd".
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <omp.h>

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

struct _ompd_aspace_cont { int id; };
struct _ompd_thread_cont { int id; };
static ompd_address_space_context_t process_context = {1};
static ompd_thread_context_t self_context = {1};

/* how the callbacks misbehave (OMPD_DRIVER_FAULTS) */
enum fault { NO_FAULT, READ_FAILS, SYMBOL_FAILS, SYMBOL_GARBAGE, THREAD_CONTEXT_FAILS, GARBAGE_FIELD,
             SYMBOL_THEN_READ_FAILS, FAULTS };
static const char *const FAULT_NAMES[FAULTS] = {"none", "read_fails", "symbol_fails", "symbol_garbage",
                                                "thread_context_fails", "garbage_field", "symbol_then_read_fails"};
static enum fault fault;
/* the field GARBAGE_FIELD answers garbage for: libomp's __kmp_threads (the pointer to the thread array) */
static uintptr_t garbage_field;
static const uintptr_t GARBAGE_ADDRESS = 0x5a5a5a5a000; /* mapped nowhere in this process */

/* ---- callbacks over this process ---- */

static ompd_rc_t cb_alloc(ompd_size_t n, void **p) {
  if (!p)
    return ompd_rc_bad_input;
  *p = malloc(n ? n : 1);
  return *p ? ompd_rc_ok : ompd_rc_nomem;
}
static ompd_rc_t cb_free(void *p) {
  free(p);
  return ompd_rc_ok;
}
static ompd_rc_t cb_print(const char *s, int category) {
  (void)category;
  printf("PRINT %s\n", s);
  return ompd_rc_ok;
}
static ompd_rc_t cb_sizes(ompd_address_space_context_t *c, ompd_device_type_sizes_t *s) {
  (void)c;
  ompd_device_type_sizes_t native = {sizeof(char), sizeof(short), sizeof(int), sizeof(long), sizeof(long long),
                                     sizeof(void *)};
  *s = native;
  return ompd_rc_ok;
}
static ompd_rc_t self_read(uint64_t address, size_t n, void *buffer) {
  struct iovec local = {buffer, n}, remote = {(void *)(uintptr_t)address, n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? ompd_rc_ok : ompd_rc_error;
}
static long read_calls; /* every read_memory callback, for the watch's count */
static ompd_rc_t cb_read(ompd_address_space_context_t *c, ompd_thread_context_t *t, const ompd_address_t *a,
                         ompd_size_t n, void *buffer) {
  (void)c;
  (void)t;
  read_calls++;
  if (fault == READ_FAILS || fault == SYMBOL_THEN_READ_FAILS)
    return ompd_rc_error;
  ompd_rc_t rc = self_read(a->address, n, buffer);
  if (rc == ompd_rc_ok && fault == GARBAGE_FIELD && a->address < garbage_field + sizeof(void *) &&
      garbage_field < a->address + n)
    memset(buffer, 0xa5, n);
  return rc;
}
static ompd_rc_t cb_read_string(ompd_address_space_context_t *c, ompd_thread_context_t *t,
                                const ompd_address_t *a, ompd_size_t n, void *buffer) {
  (void)c;
  (void)t;
  char *out = buffer;
  for (ompd_size_t i = 0; i < n; i++) {
    if (self_read(a->address + i, 1, out + i) != ompd_rc_ok)
      return ompd_rc_error;
    if (!out[i])
      return ompd_rc_ok;
  }
  out[n - 1] = 0;
  return ompd_rc_incomplete;
}

typedef struct { unsigned long module, offset; } tls_index;
extern void *__tls_get_addr(tls_index *);

struct lookup { const char *name; uintptr_t address; int found; };

static int look_in_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct lookup *l = data;
  const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
  if (strstr(path, "linux-vdso"))
    return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  struct stat st;
  fstat(fd, &st);
  unsigned char *file = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED)
    return 0;
  Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
  Elf64_Shdr *sections = (Elf64_Shdr *)(file + eh->e_shoff);
  for (int pass = 0; pass < 2 && !l->found; pass++) {
    for (int i = 0; i < eh->e_shnum && !l->found; i++) {
      if (sections[i].sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
        continue;
      Elf64_Sym *symbols = (Elf64_Sym *)(file + sections[i].sh_offset);
      const char *names = (const char *)(file + sections[sections[i].sh_link].sh_offset);
      size_t count = sections[i].sh_size / sizeof(Elf64_Sym);
      for (size_t k = 0; k < count; k++) {
        if (symbols[k].st_shndx == SHN_UNDEF || strcmp(names + symbols[k].st_name, l->name) != 0)
          continue;
        if (ELF64_ST_TYPE(symbols[k].st_info) == STT_TLS) {
          tls_index index = {info->dlpi_tls_modid, symbols[k].st_value};
          l->address = (uintptr_t)__tls_get_addr(&index);
        } else {
          l->address = info->dlpi_addr + symbols[k].st_value;
        }
        l->found = 1;
        break;
      }
    }
  }
  munmap(file, st.st_size);
  return l->found;
}

static ompd_rc_t cb_symbol(ompd_address_space_context_t *c, ompd_thread_context_t *t, const char *name,
                           ompd_address_t *out, const char *file) {
  (void)c;
  (void)file;
  if (t && t != &self_context)
    return ompd_rc_bad_input;
  if (fault == SYMBOL_FAILS)
    return ompd_rc_error;
  if (fault == SYMBOL_GARBAGE) {
    out->segment = 0;
    out->address = GARBAGE_ADDRESS;
    return ompd_rc_ok;
  }
  struct lookup l = {name, 0, 0};
  dl_iterate_phdr(look_in_object, &l);
  if (!l.found)
    return ompd_rc_error;
  out->segment = 0;
  out->address = l.address;
  return ompd_rc_ok;
}

static ompd_rc_t cb_thread_context(ompd_address_space_context_t *c, ompd_thread_id_t kind, ompd_size_t size,
                                   const void *id, ompd_thread_context_t **out) {
  (void)c;
  if (fault == THREAD_CONTEXT_FAILS)
    return ompd_rc_error;
  if (kind == 0 && size == 8 && *(const uint64_t *)id == (uint64_t)pthread_self()) {
    *out = &self_context;
    return ompd_rc_ok;
  }
  if (kind == 1 && (size == 8 || size == 4) &&
      (size == 8 ? *(const uint64_t *)id : *(const uint32_t *)id) == (uint64_t)gettid()) {
    *out = &self_context;
    return ompd_rc_ok;
  }
  return ompd_rc_unavailable; /* only the calling thread has a context here */
}

/* the target is this process: same byte order (LLVM's library converts every value through this) */
static ompd_rc_t cb_device_host(ompd_address_space_context_t *c, const void *input, ompd_size_t unit_size,
                                ompd_size_t count, void *output) {
  (void)c;
  memmove(output, input, unit_size * count);
  return ompd_rc_ok;
}

static const ompd_callbacks_t callbacks = {cb_alloc, cb_free, cb_print, cb_sizes, cb_symbol, cb_read,
                                           NULL /* never written */, cb_read_string, cb_device_host,
                                           cb_device_host, cb_thread_context};

/* ---- the script ---- */

static pthread_t pthreads[64];
static int lib_index;

#define OUT(key, rc, fmt, ...) printf("L%d %s %d " fmt "\n", lib_index, key, (int)(rc), __VA_ARGS__)
#define FN(name) typeof(&name) p_##name = dlsym(lib, #name)

static void inspect(void *lib) {
  FN(ompd_get_api_version); FN(ompd_get_version_string); FN(ompd_initialize); FN(ompd_finalize);
  FN(ompd_process_initialize); FN(ompd_get_omp_version); FN(ompd_get_thread_handle); FN(ompd_get_thread_id);
  FN(ompd_get_curr_parallel_handle); FN(ompd_get_enclosing_parallel_handle); FN(ompd_get_thread_in_parallel);
  FN(ompd_thread_handle_compare); FN(ompd_get_curr_task_handle); FN(ompd_get_task_parallel_handle);
  FN(ompd_parallel_handle_compare); FN(ompd_get_generating_task_handle); FN(ompd_get_scheduling_task_handle);
  FN(ompd_get_task_in_parallel); FN(ompd_task_handle_compare); FN(ompd_get_task_function);
  FN(ompd_get_task_frame); FN(ompd_get_state); FN(ompd_enumerate_states); FN(ompd_enumerate_icvs);
  FN(ompd_get_icv_from_scope); FN(ompd_get_icv_string_from_scope); FN(ompd_get_display_control_vars);
  FN(ompd_rel_display_control_vars); FN(ompd_get_tool_data); FN(ompd_rel_thread_handle);
  FN(ompd_rel_parallel_handle); FN(ompd_rel_task_handle); 
  FN(ompd_get_omp_version_string); FN(ompd_rel_address_space_handle);
  ompd_rc_t rc;
  const char *version = "";
  p_ompd_get_version_string(&version);
  int jompd = strncmp(version, "jompd", 5) == 0;
  printf("L%d library %s\n", lib_index, version);
  OUT("api_version_null", p_ompd_get_api_version(NULL), "%s", "-");
  OUT("initialize_null", p_ompd_initialize(201811, NULL), "%s", "-");
  const char *api = getenv("OMPD_DRIVER_API"); /* the api version to ask for (default 201811, LLVM's plugin's) */
  OUT("initialize", rc = p_ompd_initialize(api ? atol(api) : 201811, &callbacks), "%s", "-");
  ompd_address_space_handle_t *ah = NULL;
  OUT("process_initialize", rc = p_ompd_process_initialize(&process_context, &ah), "%s", "-");
  if (rc != ompd_rc_ok)
    return;
  ompd_word_t word = 0;
  OUT("omp_version", rc = p_ompd_get_omp_version(ah, &word), "%ld", (long)word);
  pthread_t self = pthread_self();
  ompd_thread_handle_t *th = NULL;
  OUT("thread_handle", rc = p_ompd_get_thread_handle(ah, 0, sizeof self, &self, &th), "%s", "-");
  if (rc != ompd_rc_ok)
    return;
  uint64_t id = 0;
  OUT("thread_id_is_self", rc = p_ompd_get_thread_id(th, 0, 8, &id), "%d", id == (uint64_t)self);
  OUT("thread_id_lwp_kind", p_ompd_get_thread_id(th, 1, 8, &id), "%s", "-");
  OUT("thread_id_size_4", p_ompd_get_thread_id(th, 0, 4, &id), "%s", "-");
  OUT("thread_handle_null_out", p_ompd_get_thread_handle(ah, 0, sizeof self, &self, NULL), "%s", "-");
  pthread_t other = pthreads[1];
  ompd_thread_handle_t *unused = NULL;
  OUT("thread_handle_without_context", p_ompd_get_thread_handle(ah, 0, sizeof other, &other, &unused), "%s", "-");

  ompd_parallel_handle_t *inner = NULL, *outer = NULL, *outermost = NULL;
  OUT("curr_parallel", rc = p_ompd_get_curr_parallel_handle(th, &inner), "%s", "-");
  OUT("enclosing_parallel", p_ompd_get_enclosing_parallel_handle(inner, &outer), "%s", "-");
  OUT("enclosing_of_outer", p_ompd_get_enclosing_parallel_handle(outer, &outermost), "%s", "-");
  ompd_parallel_handle_t *levels[3] = {inner, outer, outermost};
  for (int level = 0; level < 3; level++) {
    char key[64];
    snprintf(key, sizeof key, "parallel%d.levels", level);
    OUT(key, p_ompd_get_icv_from_scope(levels[level], ompd_scope_parallel, 14, &word), "%ld", (long)word);
    snprintf(key, sizeof key, "parallel%d.team_size", level);
    OUT(key, p_ompd_get_icv_from_scope(levels[level], ompd_scope_parallel, 29, &word), "%ld", (long)word);
    snprintf(key, sizeof key, "parallel%d.active_levels", level);
    OUT(key, p_ompd_get_icv_from_scope(levels[level], ompd_scope_parallel, 15, &word), "%ld", (long)word);
  }
  for (int n = -5; n < 4; n++) {
    char key[64];
    ompd_thread_handle_t *member = NULL;
    snprintf(key, sizeof key, "thread_in_parallel.%d", n);
    rc = p_ompd_get_thread_in_parallel(inner, n, &member);
    uint64_t member_id = 0;
    int cmp = 99;
    if (rc == ompd_rc_ok) {
      p_ompd_get_thread_id(member, 0, 8, &member_id);
      p_ompd_thread_handle_compare(member, th, &cmp);
      p_ompd_rel_thread_handle(member);
    }
    OUT(key, rc, "pthread_matches %d compare_with_self %d", member_id == (uint64_t)pthreads[n >= 0 && n < 3 ? n : 0],
        cmp == 0 ? 0 : cmp == 99 ? 99 : 1);
  }
  OUT("thread_in_parallel.199", p_ompd_get_thread_in_parallel(inner, 199, &unused), "%s", "-");

  ompd_task_handle_t *task = NULL, *generating = NULL, *scheduling = NULL, *implicit0 = NULL;
  OUT("curr_task", p_ompd_get_curr_task_handle(th, &task), "%s", "-");
  ompd_parallel_handle_t *task_region = NULL;
  int cmp = 99;
  rc = p_ompd_get_task_parallel_handle(task, &task_region);
  if (rc == ompd_rc_ok)
    p_ompd_parallel_handle_compare(task_region, inner, &cmp);
  OUT("task_parallel_is_inner", rc, "%d", cmp);
  cmp = 99;
  rc = p_ompd_get_task_in_parallel(inner, 0, &implicit0);
  if (rc == ompd_rc_ok)
    p_ompd_task_handle_compare(implicit0, task, &cmp);
  OUT("task_in_parallel0_is_current", rc, "%d", cmp);
  OUT("task_in_parallel.7", p_ompd_get_task_in_parallel(inner, 7, &generating), "%s", "-");
  OUT("generating_task", p_ompd_get_generating_task_handle(task, &generating), "%s", "-");
  OUT("scheduling_task", p_ompd_get_scheduling_task_handle(task, &scheduling), "%s", "-");
  ompd_address_t entry = {0, 0};
  OUT("task_function", p_ompd_get_task_function(task, &entry), "0x%lx", (unsigned long)entry.address);
  ompd_frame_info_t exit_frame = {{0, 0}, 0}, enter_frame = {{0, 0}, 0};
  rc = p_ompd_get_task_frame(task, &exit_frame, &enter_frame);
  OUT("task_frame", rc, "exit 0x%lx/%ld enter 0x%lx/%ld", (unsigned long)exit_frame.frame_address.address,
      (long)exit_frame.frame_flag, (unsigned long)enter_frame.frame_address.address, (long)enter_frame.frame_flag);
  ompd_wait_id_t wait = 0;
  OUT("state", p_ompd_get_state(th, &word, &wait), "%ld wait %lu", (long)word, (unsigned long)wait);
  ompd_address_t pointer = {0, 0};
  OUT("tool_data.thread", p_ompd_get_tool_data(th, ompd_scope_thread, &word, &pointer), "%ld 0x%lx", (long)word,
      (unsigned long)pointer.address);

  ompd_word_t state = 0x102, next = 0, more = 1;
  for (int i = 0; more && i < 100; i++) {
    const char *name = NULL;
    rc = p_ompd_enumerate_states(ah, state, &next, &name, &more);
    char key[64];
    snprintf(key, sizeof key, "state.%d", i);
    OUT(key, rc, "%ld %s more %ld", (long)next, rc == ompd_rc_ok ? name : "-", (long)more);
    if (rc != ompd_rc_ok)
      break;
    free((void *)name);
    state = next;
  }
  ompd_icv_id_t icv = 0, next_icv = 0;
  int more_icvs = 1;
  for (int i = 0; more_icvs && i < 100; i++) {
    const char *name = NULL;
    ompd_scope_t scope = 0;
    rc = p_ompd_enumerate_icvs(ah, icv, &next_icv, &name, &scope, &more_icvs);
    if (rc != ompd_rc_ok) {
      OUT("icv_enumeration", rc, "%s", "-");
      break;
    }
    void *handle = scope == ompd_scope_address_space ? (void *)ah : scope == ompd_scope_thread ? (void *)th
                   : scope == ompd_scope_parallel ? (void *)inner : (void *)task;
    char key[96];
    snprintf(key, sizeof key, "icv.%lu.name", (unsigned long)next_icv);
    OUT(key, ompd_rc_ok, "%s scope %d", name, (int)scope);
    word = -12345;
    snprintf(key, sizeof key, "icv.%lu.value", (unsigned long)next_icv);
    rc = p_ompd_get_icv_from_scope(handle, scope, next_icv, &word);
    OUT(key, rc, "%ld", rc == ompd_rc_ok || rc == ompd_rc_incomplete ? (long)word : -12345L);
    const char *text = NULL;
    snprintf(key, sizeof key, "icv.%lu.string", (unsigned long)next_icv);
    rc = p_ompd_get_icv_string_from_scope(handle, scope, next_icv, &text);
    OUT(key, rc, "%s", rc == ompd_rc_ok ? text : "-");
    if (rc == ompd_rc_ok)
      free((void *)text);
    snprintf(key, sizeof key, "icv.%lu.wrong_scope", (unsigned long)next_icv);
    OUT(key, p_ompd_get_icv_from_scope(handle, scope == ompd_scope_thread ? ompd_scope_task : ompd_scope_thread,
                                       next_icv, &word), "%s", "-");
    free((void *)name);
    icv = next_icv;
  }
  OUT("icv.unknown_id", p_ompd_get_icv_from_scope(ah, ompd_scope_address_space, 999, &word), "%s", "-");
  const char *const *vars = NULL;
  rc = p_ompd_get_display_control_vars(ah, &vars);
  int count = 0, has_debug = 0;
  for (; rc == ompd_rc_ok && vars[count]; count++)
    has_debug |= strncmp(vars[count], "OMP_DEBUG=", 10) == 0 || strstr(vars[count], "OMP_DEBUG='enabled'") != NULL;
  OUT("display_control_vars", rc, "has_OMP_DEBUG %d nonempty %d", has_debug, count > 0);
  if (rc == ompd_rc_ok)
    OUT("rel_display_control_vars", p_ompd_rel_display_control_vars(&vars), "%s", "-");
  const char *omp_version = NULL;
  OUT("omp_version_string", p_ompd_get_omp_version_string(ah, &omp_version), "%s", "-");

  if (jompd) {
    /* a garbage handle (not made by the library) and released handles answer stale_handle, never crash */
    uint64_t garbage[16];
    memset(garbage, 0xab, sizeof garbage);
    ompd_parallel_handle_t *p = NULL;
    OUT("garbage_thread_handle", p_ompd_get_curr_parallel_handle((ompd_thread_handle_t *)garbage, &p), "%s", "-");
    OUT("garbage_icv_handle", p_ompd_get_icv_from_scope(garbage, ompd_scope_thread, 1, &word), "%s", "-");
    OUT("garbage_address_space", p_ompd_get_omp_version((ompd_address_space_handle_t *)garbage, &word), "%s", "-");
    /* a live handle of the wrong kind: OpenMP 6.0's incompatible_handle (13) for a 6.0 debugger only */
    OUT("wrong_kind_handle", p_ompd_get_curr_parallel_handle((ompd_thread_handle_t *)inner, &p), "%s", "-");
    OUT("wrong_kind_icv_handle", p_ompd_get_icv_from_scope(th, ompd_scope_parallel, 29, &word), "%s", "-");
    ompd_address_t tool_pointer = {0, 0};
    OUT("wrong_kind_tool_data", p_ompd_get_tool_data(inner, ompd_scope_thread, &word, &tool_pointer), "%s", "-");
    ompd_thread_handle_t *released = NULL;
    p_ompd_get_thread_in_parallel(inner, 0, &released);
    OUT("release", p_ompd_rel_thread_handle(released), "%s", "-");
  }
  if (jompd && getenv("OMPD_DRIVER_FAULTS")) {
    /* each misbehaviour, then the same calls with the callbacks behaving again: an rc, never a crash or hang */
    struct lookup threads_symbol = {"__kmp_threads", 0, 0};
    dl_iterate_phdr(look_in_object, &threads_symbol);
    garbage_field = threads_symbol.address;
    for (int mode = READ_FAILS; mode < FAULTS; mode++) {
      /* an address space that has not yet looked up the globals of nteams-var and teams-thread-limit-var */
      static ompd_address_space_context_t fresh_context = {3};
      ompd_address_space_handle_t *fresh = NULL;
      char fresh_key[64];
      snprintf(fresh_key, sizeof fresh_key, "fresh_address_space.%s", FAULT_NAMES[mode]);
      OUT(fresh_key, p_ompd_process_initialize(&fresh_context, &fresh), "%s", "-");
      for (int pass = 0; pass < 2; pass++) {
        char key[96];
        if (pass == 0 && mode == SYMBOL_THEN_READ_FAILS) {
          /* a global's lookup fails in one call, every read in the next ones */
          fault = SYMBOL_FAILS;
          p_ompd_get_icv_from_scope(fresh, ompd_scope_address_space, 36, &word);
        }
        fault = pass == 0 ? (enum fault)mode : NO_FAULT;
#define FAULT_OUT(routine, rc, fmt, ...)                                                                          \
  do {                                                                                                            \
    snprintf(key, sizeof key, "%s.%s.%s", pass == 0 ? "fault" : "recovered", FAULT_NAMES[mode], routine);        \
    OUT(key, rc, fmt, __VA_ARGS__);                                                                               \
  } while (0)
        word = -1;
        rc = p_ompd_get_omp_version(ah, &word);
        FAULT_OUT("omp_version", rc, "%ld", (long)word);
        ompd_thread_handle_t *again = NULL;
        cmp = 99;
        rc = p_ompd_get_thread_handle(ah, 0, sizeof self, &self, &again);
        if (rc == ompd_rc_ok) {
          p_ompd_thread_handle_compare(again, th, &cmp);
          p_ompd_rel_thread_handle(again);
        }
        FAULT_OUT("thread_handle_is_self", rc, "%d", cmp);
        ompd_parallel_handle_t *current = NULL;
        cmp = 99;
        rc = p_ompd_get_curr_parallel_handle(th, &current);
        if (rc == ompd_rc_ok) {
          p_ompd_parallel_handle_compare(current, inner, &cmp);
          p_ompd_rel_parallel_handle(current);
        }
        FAULT_OUT("curr_parallel_is_inner", rc, "%d", cmp);
        word = -1;
        rc = p_ompd_get_icv_from_scope(inner, ompd_scope_parallel, 29, &word);
        FAULT_OUT("team_size", rc, "%ld", (long)word);
        word = -1;
        rc = p_ompd_get_icv_from_scope(inner, ompd_scope_parallel, 14, &word);
        FAULT_OUT("levels", rc, "%ld", (long)word);
        word = -1;
        rc = p_ompd_get_icv_from_scope(th, ompd_scope_thread, 21, &word);
        FAULT_OUT("thread_num", rc, "%ld", (long)word);
        word = -1;
        rc = p_ompd_get_state(th, &word, &wait);
        FAULT_OUT("state_known", rc, "%d", word >= 0 && word < 0x200);
        ompd_thread_handle_t *member = NULL;
        uint64_t member_id = 0;
        rc = p_ompd_get_thread_in_parallel(inner, 1, &member);
        if (rc == ompd_rc_ok) {
          p_ompd_get_thread_id(member, 0, 8, &member_id);
          p_ompd_rel_thread_handle(member);
        }
        FAULT_OUT("thread_in_parallel_1_is_its_pthread", rc, "%d", member_id == (uint64_t)pthreads[1]);
        /* a second address space made under the fault: its symbols are looked up now */
        static ompd_address_space_context_t second_context = {2};
        ompd_address_space_handle_t *second = NULL;
        rc = p_ompd_process_initialize(&second_context, &second);
        word = -1;
        if (rc == ompd_rc_ok) {
          rc = p_ompd_get_omp_version(second, &word);
          p_ompd_rel_address_space_handle(second);
        }
        FAULT_OUT("new_address_space_omp_version", rc, "%ld", (long)word);
        word = -1;
        rc = fresh ? p_ompd_get_icv_from_scope(fresh, ompd_scope_address_space, 36, &word) : ompd_rc_stale_handle;
        FAULT_OUT("fresh_space_nteams", rc, "%ld", (long)word);
        word = -1;
        rc = fresh ? p_ompd_get_icv_from_scope(fresh, ompd_scope_address_space, 37, &word) : ompd_rc_stale_handle;
        FAULT_OUT("fresh_space_teams_thread_limit", rc, "%ld", (long)word);
#undef FAULT_OUT
      }
      if (fresh)
        p_ompd_rel_address_space_handle(fresh);
    }
    fault = NO_FAULT;
  }
  p_ompd_rel_task_handle(task);
  p_ompd_rel_parallel_handle(inner);
  p_ompd_rel_parallel_handle(outer);
  p_ompd_rel_thread_handle(th);
  if (jompd) {
    OUT("finalize", p_ompd_finalize(), "%s", "-");
    OUT("after_finalize.omp_version", p_ompd_get_omp_version(ah, &word), "%s", "-");
    OUT("after_finalize.initialize_again", p_ompd_initialize(201811, &callbacks), "%s", "-");
    OUT("after_finalize.omp_version_again", p_ompd_get_omp_version(ah, &word), "%ld", (long)word);
    p_ompd_finalize();
  }
}

/* ---- the watch: states that change under the same handles ---- */

static omp_lock_t watch_lock;
static volatile int watch_stage; /* 2 * round + 1: the team mates go for the lock, then into a barrier */

/* ompd_get_state on both team mates until both are in `expected` (bounded: 10 s, or the first rc other than ok);
   prints whether they got there and their wait ids; the reads of the last call go to *last_reads, the most any
   call made to *most_reads */
static void watch_phase(void *lib, const char *phase, ompd_thread_handle_t **mates, ompd_word_t expected,
                        long *last_reads, long *most_reads) {
  FN(ompd_get_state);
  ompd_rc_t rc = ompd_rc_ok;
  ompd_word_t state[2] = {-1, -1};
  ompd_wait_id_t wait[2] = {0, 0};
  for (int attempt = 0; attempt < 10000; attempt++) {
    int there = 0;
    for (int m = 0; m < 2 && rc == ompd_rc_ok; m++) {
      long before = read_calls;
      rc = mates[m] ? p_ompd_get_state(mates[m], &state[m], &wait[m]) : ompd_rc_stale_handle;
      *last_reads = read_calls - before;
      if (*last_reads > *most_reads)
        *most_reads = *last_reads;
      there += rc == ompd_rc_ok && state[m] == expected;
    }
    if (rc != ompd_rc_ok || there == 2)
      break;
    usleep(1000);
  }
  char key[64];
  snprintf(key, sizeof key, "watch.%s", phase);
  OUT(key, rc, "reached %d same_wait_id %d wait_id_nonzero %d", state[0] == expected && state[1] == expected,
      wait[0] == wait[1], wait[0] != 0);
}

/* Run by the driver's thread, while its two team mates follow the stages (see main). Every library goes through
   all of it, whatever it answers, so that the team's barriers stay matched. */
static void watch(void *lib, int round) {
  FN(ompd_initialize); FN(ompd_process_initialize); FN(ompd_get_thread_handle); FN(ompd_get_curr_parallel_handle);
  FN(ompd_get_thread_in_parallel); FN(ompd_rel_thread_handle); FN(ompd_rel_parallel_handle);
  FN(ompd_rel_address_space_handle);
  static ompd_address_space_context_t watch_context = {4};
  const char *api = getenv("OMPD_DRIVER_API");
  ompd_address_space_handle_t *ah = NULL;
  ompd_thread_handle_t *self_handle = NULL, *mates[2] = {NULL, NULL};
  ompd_parallel_handle_t *team = NULL;
  pthread_t self = pthread_self();
  if (p_ompd_initialize(api ? atol(api) : 201811, &callbacks) == ompd_rc_ok &&
      p_ompd_process_initialize(&watch_context, &ah) == ompd_rc_ok &&
      p_ompd_get_thread_handle(ah, 0, sizeof self, &self, &self_handle) == ompd_rc_ok &&
      p_ompd_get_curr_parallel_handle(self_handle, &team) == ompd_rc_ok) {
    p_ompd_get_thread_in_parallel(team, 1, &mates[0]);
    p_ompd_get_thread_in_parallel(team, 2, &mates[1]);
  }
  long last_reads = -1, most_reads = -1;
  watch_phase(lib, "spinning", mates, ompt_state_work_parallel, &last_reads, &most_reads);
  omp_set_lock(&watch_lock);
  __atomic_store_n(&watch_stage, 2 * round + 1, __ATOMIC_SEQ_CST);
  watch_phase(lib, "waiting_for_lock", mates, ompt_state_wait_lock, &last_reads, &most_reads);
  omp_unset_lock(&watch_lock);
  watch_phase(lib, "in_barrier", mates, ompt_state_wait_barrier_explicit, &last_reads, &most_reads);
#pragma omp barrier
  watch_phase(lib, "spinning_again", mates, ompt_state_work_parallel, &last_reads, &most_reads);
  OUT("watch.reads_last", ompd_rc_ok, "%ld", last_reads);
  OUT("watch.reads_most", ompd_rc_ok, "%ld", most_reads);
  for (int m = 0; m < 2; m++)
    if (mates[m])
      p_ompd_rel_thread_handle(mates[m]);
  if (team)
    p_ompd_rel_parallel_handle(team);
  if (self_handle)
    p_ompd_rel_thread_handle(self_handle);
  if (ah)
    p_ompd_rel_address_space_handle(ah);
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  omp_set_dynamic(0);
  omp_set_max_active_levels(2);
  omp_init_lock(&watch_lock);
  static volatile int arrived, done;
#pragma omp parallel num_threads(2)
  {
    int outer = omp_get_thread_num();
#pragma omp parallel num_threads(3)
    {
      int inner = omp_get_thread_num();
      if (outer == 0)
        pthreads[inner] = pthread_self();
      __atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
      if (outer == 0 && inner == 0) {
        while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < 6)
          sched_yield();
        printf("TRUTH levels %d\nTRUTH team_size %d\nTRUTH outer_team_size %d\nTRUTH omp_version %d\n",
               omp_get_level(), omp_get_team_size(2), omp_get_team_size(1), _OPENMP);
        printf("TRUTH nteams %d\nTRUTH teams_thread_limit %d\nTRUTH default_device %d\nTRUTH thread_num %d\n",
               omp_get_max_teams(), omp_get_teams_thread_limit(), omp_get_default_device(), omp_get_thread_num());
        { /* place-partition-var as this thread sees it: its places' numbers, each place's processors, all places */
          int places = omp_get_partition_num_places(), nums[64], procs[256];
          omp_get_partition_place_nums(nums);
          printf("TRUTH partition_places ");
          for (int p = 0; p < places && p < 64; p++)
            printf("%s%d", p > 0 ? "," : "", nums[p]);
          printf("\nTRUTH partition_procs ");
          for (int p = 0; p < places && p < 64; p++) {
            int count = omp_get_place_num_procs(nums[p]);
            omp_get_place_proc_ids(nums[p], procs);
            printf("%s{", p > 0 ? "," : "");
            for (int j = 0; j < count && j < 256; j++)
              printf("%s%d", j > 0 ? "," : "", procs[j]);
            printf("}");
          }
          printf("\nTRUTH num_places %d\n", omp_get_num_places());
        }
        for (int i = 1; i < argc; i++) {
          void *lib = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
          lib_index = i - 1;
          if (!lib) {
            printf("L%d dlopen failed %s\n", lib_index, dlerror());
            /* the team mates still go through this round */
            omp_set_lock(&watch_lock);
            __atomic_store_n(&watch_stage, 2 * (i - 1) + 1, __ATOMIC_SEQ_CST);
            omp_unset_lock(&watch_lock);
#pragma omp barrier
            continue;
          }
          watch(lib, i - 1);
          inspect(lib);
        }
        __atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
      } else if (outer == 0) {
        /* the watch, once per library: spin in user code; for the lock the driver holds; into a barrier */
        for (int round = 0; round < argc - 1; round++) {
          while (__atomic_load_n(&watch_stage, __ATOMIC_SEQ_CST) < 2 * round + 1)
            sched_yield();
          omp_set_lock(&watch_lock);
          omp_unset_lock(&watch_lock);
#pragma omp barrier
        }
      }
      while (!__atomic_load_n(&done, __ATOMIC_SEQ_CST))
        sched_yield();
    }
  }
  printf("DONE\n");
  return 0;
}
