/*
 * jompd's libompd.so: a standard OMPD library (OpenMP 5.1/5.2, C ABI of omp-tools.h) that any OMPD debugger
 * loads. This file is a shim (libc only): every ompd_* routine is forwarded to a jompd engine, a Java child
 * process, and the engine's questions (read memory, read a string, look up a symbol, get a thread context,
 * type sizes) are answered here with the debugger's ompd_callbacks_t. A JVM must not live inside the
 * debugger (it installs signal handlers, see docs/libompd.md).
 *
 * The engine: spawned lazily by the first routine that needs it (posix_spawn with only its pipes: every other
 * fd of the debugger is closed in it; its own session, stderr to $XDG_CACHE_HOME/jompd/libompd-engine.log or /tmp/jompd-libompd-<uid>.log), found next
 * to this library (lib/libompd.so beside the jars in lib/; Java from JOMPD_JAVA, the distribution's runtime/,
 * JAVA_HOME, /usr/lib/jvm). It ends by itself when its stdin closes (the debugger went away). A dead or
 * slow engine costs that call ompd_rc_error and a message through print_string; the next call starts a new
 * one. Handles carry their identity (runtime addresses, gtid), not an engine reference, so they survive a
 * new engine; the address space is registered again with the new engine before its first call there.
 * The engine is held by a pidfd: it is killed and reaped through that, never through a pid the debugger may
 * have reaped (gdb waits for any child) and the system given to another process. Unloading the library stops it.
 *
 * Calls: one at a time (a debugger such as TotalView calls from several threads; the buffers, the pipes and the
 * thread contexts are shared), a thread waiting for another's call at most the timeout. A routine called from a
 * callback of the debugger while another is being served on that thread is refused with ompd_rc_error (the
 * releases excepted: they need no engine). Each call has one deadline (JOMPD_LIBOMPD_TIMEOUT_MS, 30 s) for all
 * of it, the engine's start and every question it asks included: an engine that keeps asking costs that call
 * ompd_rc_error when the deadline passes, not a fresh timeout per question.
 *
 * PROTOCOL (jompd-libompd/2; both ends: this file and dev.jompd.libompd.Wire). Little endian.
 *   frame    = u32 length (of type + payload) | u8 type | payload
 *   word     = u64;  blob = u32 length | bytes (strings: UTF-8, no NUL)
 *   HELLO    (engine -> shim, type 1): word protocol version (2) | blob engine description
 *   CALL     (shim -> engine, type 2): u16 routine | word address-space id | arguments (per routine, below)
 *   QUESTION (engine -> shim, type 3): u8 question | arguments;  answered by one ANSWER
 *   ANSWER   (shim -> engine, type 4): word rc | results
 *   RESULT   (engine -> shim, type 5): word rc | blob message (printed through print_string when not empty)
 *                                      | results (only when rc is ok)
 *   A handle argument is three words: kind (the ompd_scope_t it belongs to: 2 address space, 3 thread,
 *   4 parallel, 6 task) | identity a | identity b. A handle result is the two identity words.
 *     thread:   a = address of kmp_base_info_t (__kmp_threads[gtid]->th), b = gtid or -1 when unknown
 *     parallel: a = address of kmp_base_team_t, b = lightweight (serialized) team or 0
 *     task:     a = address of kmp_taskdata_t, b = lightweight team or 0
 *   Routines (arguments -> results):
 *     1 process_initialize          word api version      the CALL's address-space id is the new handle's;
 *                                                         the version the debugger gave ompd_initialize
 *                                   -> word F (0 or 2) | F x (word offset, word size) | word N | word start |
 *                                      N x (word code, blob name): the hand-over (data only) for what the shim
 *                                      answers alone:
 *                                      F = 2: ompd_get_state's state and wait id lie at a thread handle's
 *                                      identity a + offset, of that size (unsigned); F = 0: get_state goes to
 *                                      the engine. The N states are those ompd_enumerate_states walks, in order,
 *                                      from the code `start` (the undefined state).
 *     2 get_omp_version             -> word
 *     3 get_omp_version_string      -> blob
 *     4 get_thread_in_parallel      handle, word n -> thread
 *     5 get_thread_handle           word kind, blob id -> thread
 *     6 get_thread_id               handle, word kind, word size -> blob id
 *     7 get_curr_parallel_handle    handle -> parallel
 *     8 get_enclosing_parallel      handle -> parallel
 *     9 get_task_parallel_handle    handle -> parallel
 *    10 get_curr_task_handle        handle -> task
 *    11 get_generating_task_handle  handle -> task
 *    12 get_scheduling_task_handle  handle -> task
 *    13 get_task_in_parallel        handle, word n -> task
 *    14 get_task_function           handle -> word
 *    15 get_task_frame              handle -> word exit, word exit flags, word enter, word enter flags
 *    16 enumerate_states            word current -> word next, blob name, word more
 *    17 get_state                   handle -> word state, word wait id
 *    18 get_display_control_vars    -> word count, count x blob
 *    19 enumerate_icvs              word current -> word next, blob name, word scope, word more
 *    20 get_icv_from_scope          handle, word scope, word icv -> word value (rc incomplete carries it too)
 *    21 get_icv_string_from_scope   handle, word scope, word icv -> blob
 *    22 get_tool_data               handle, word scope -> word value, word pointer
 *    23 release_address_space       -> (none)             the engine forgets the address space
 *   Questions (arguments -> ANSWER results, only when its rc is ok):
 *     1 read memory        word address, word length -> blob bytes
 *     2 read string        word address, word max length -> blob string
 *     3 symbol lookup      word thread context (0: none, else an index from question 4), blob name,
 *                          blob file name (empty: NULL) -> word address
 *     4 thread context     word kind, blob id -> word index (valid until this call returns)
 *     5 type sizes         -> blob of 6 bytes (char, short, int, long, long long, pointer)
 */
#define _GNU_SOURCE
#include <omp-tools.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* OpenMP 5.2 routines omp-tools.h of LLVM 19 does not declare yet. */
EXPORT ompd_rc_t ompd_get_device_thread_id_kinds(ompd_address_space_handle_t *device_handle,
                                                 ompd_thread_id_t **kinds, ompd_size_t **thread_id_sizes,
                                                 int *count);
EXPORT ompd_rc_t ompd_get_device_from_thread(ompd_thread_handle_t *thread_handle,
                                             ompd_address_space_handle_t **device);

#define SEGMENT_UNSPECIFIED 0 /* OMPD_SEGMENT_UNSPECIFIED (LLVM names it in its own ompd-types.h) */
#define PROTOCOL_VERSION 2
#define API_VERSION 202011 /* OpenMP 5.1; 5.2's routines are here too */
#define MIN_API_VERSION 201811
#define API_VERSION_6_0 202411 /* OpenMP 6.0 (its date, as every OMPD api version): ompd_rc_incompatible_handle */
#define OMPD_RC_INCOMPATIBLE_HANDLE 13 /* OpenMP 6.0's; omp-tools.h before LLVM 20 lacks it */
static const char VERSION_STRING[] = "jompd libompd 0.1.0 (OMPD 5.1/5.2 for LLVM libomp; engine: jompd, Java)";

enum { F_HELLO = 1, F_CALL = 2, F_QUESTION = 3, F_ANSWER = 4, F_RESULT = 5 };
enum {
  R_PROCESS_INITIALIZE = 1, R_GET_OMP_VERSION, R_GET_OMP_VERSION_STRING, R_GET_THREAD_IN_PARALLEL,
  R_GET_THREAD_HANDLE, R_GET_THREAD_ID, R_GET_CURR_PARALLEL, R_GET_ENCLOSING_PARALLEL, R_GET_TASK_PARALLEL,
  R_GET_CURR_TASK, R_GET_GENERATING_TASK, R_GET_SCHEDULING_TASK, R_GET_TASK_IN_PARALLEL, R_GET_TASK_FUNCTION,
  R_GET_TASK_FRAME, R_ENUMERATE_STATES, R_GET_STATE, R_GET_DISPLAY_CONTROL_VARS, R_ENUMERATE_ICVS,
  R_GET_ICV_FROM_SCOPE, R_GET_ICV_STRING_FROM_SCOPE, R_GET_TOOL_DATA, R_RELEASE_ADDRESS_SPACE
};
enum { Q_READ = 1, Q_READ_STRING = 2, Q_SYMBOL = 3, Q_THREAD_CONTEXT = 4, Q_SIZEOF = 5 };

#define HANDLE_MAGIC 0x6a6f6d70u /* "jomp" */
#define RELEASED_MAGIC 0x64656164u
#define MAX_FRAME (64u << 20)
#define MAX_READ (16u << 20)
#define MAX_THREAD_CONTEXTS 4096

/* Every handle: the scope it belongs to, its address space and its identity in the runtime. */
struct jompd_handle {
  uint32_t magic;
  uint32_t kind; /* ompd_scope_t */
  struct jompd_handle *aspace; /* itself for an address-space handle */
  ompd_address_space_context_t *context; /* address-space handles only */
  uint64_t id; /* address-space handles: the engine's name for it */
  uint64_t registered_generation; /* address-space handles: the engine it was registered with */
  /* address-space handles: the fields ompd_get_state reads itself (from the engine's hand-over, see PROTOCOL):
     offsets from a thread handle's identity a and sizes; state_fields 0 when get_state goes to the engine */
  uint64_t state_fields, state_offset, state_size, wait_offset, wait_size;
  uint64_t a, b;
};
struct _ompd_aspace_handle { struct jompd_handle h; };
struct _ompd_thread_handle { struct jompd_handle h; };
struct _ompd_parallel_handle { struct jompd_handle h; };
struct _ompd_task_handle { struct jompd_handle h; };

static const ompd_callbacks_t *cb; /* NULL before ompd_initialize and after ompd_finalize */
static ompd_word_t requested_api_version;
static pid_t engine_pid = -1;
static int engine_pidfd = -1; /* the engine held (-1 on kernels before 5.3: then its pid, as before) */
static pid_t engine_parent; /* the process that started it: a child the debugger forked inherits the pidfd */
static int to_engine = -1, from_engine = -1;
static uint64_t engine_generation; /* 0: none yet */
static uint64_t next_aspace_id = 1;
static ompd_address_space_context_t *current_context; /* the address space of the call being served */
static ompd_thread_context_t *thread_contexts[MAX_THREAD_CONTEXTS];
static int thread_context_count;
static int tracing; /* JOMPD_LIBOMPD_TRACE: each call, question and time on stderr */
/* one call at a time (see Calls above): the lock, whether this thread is inside a call, the call's deadline */
static pthread_mutex_t serving = PTHREAD_MUTEX_INITIALIZER;
static __thread int serving_here;
static long call_deadline; /* CLOCK_MONOTONIC ms */
/* the states ompd_enumerate_states walks, in order, as the engine handed them over (jompd's catalogue, not the
   target's: the same for every address space); 0 until a registration brought them */
#define MAX_STATES 128
#define MAX_STATE_NAME 64
static struct { uint64_t code; char name[MAX_STATE_NAME]; } states[MAX_STATES];
static int state_count;
static uint64_t states_start; /* the code that starts the walk */

/* ---- messages ---------------------------------------------------------------------------------------- */

static int open_log(char *path, size_t size);

/* Appends a line to the engine's log too: a debugger may lose what print_string gets (LLVM's gdb plugin
   hands it to gdb's printf command, which fails on the newline it adds). */
static void log_line(const char *text) {
  char path[PATH_MAX];
  int fd = open_log(path, sizeof path);
  if (fd < 0)
    return;
  char line[1100];
  int n = snprintf(line, sizeof line, "%s\n", text);
  if (n > 0 && write(fd, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1)) < 0) {
    /* nothing else to tell */
  }
  close(fd);
}

/* A message through print_string, without the characters a debugger's printf might read as syntax (LLVM's
   gdb plugin passes it to gdb's printf command inside double quotes). */
static void print_message(char *text) {
  for (char *c = text; *c; c++)
    if (*c == '"' || *c == '\\' || *c == '%' || *c == '\n')
      *c = *c == '"' ? '\'' : ' ';
  if (cb && cb->print_string)
    cb->print_string(text, 0);
}

static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *format, ...) {
  char text[1024];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(text, sizeof text - 1, format, args);
  va_end(args);
  if (n < 0)
    return;
  log_line(text);
  print_message(text);
}

/* ---- buffers (memory from the debugger's alloc_memory) ----------------------------------------------- */

struct buffer { unsigned char *data; size_t length, capacity, position; int bad; };
static struct buffer out, in;

static int reserve(struct buffer *b, size_t more) {
  if (b->length + more <= b->capacity)
    return 1;
  size_t capacity = b->capacity ? b->capacity : 4096;
  while (capacity < b->length + more)
    capacity *= 2;
  void *data = NULL;
  if (!cb || cb->alloc_memory(capacity, &data) != ompd_rc_ok || !data)
    return 0;
  if (b->length)
    memcpy(data, b->data, b->length);
  if (b->data)
    cb->free_memory(b->data);
  b->data = data;
  b->capacity = capacity;
  return 1;
}

static void put_bytes(struct buffer *b, const void *bytes, size_t n) {
  if (b->bad || !reserve(b, n)) {
    b->bad = 1;
    return;
  }
  memcpy(b->data + b->length, bytes, n);
  b->length += n;
}
static void put_u8(struct buffer *b, uint8_t v) { put_bytes(b, &v, 1); }
static void put_u16(struct buffer *b, uint16_t v) { put_bytes(b, &v, 2); } /* x86-64: little endian */
static void put_u32(struct buffer *b, uint32_t v) { put_bytes(b, &v, 4); }
static void put_word(struct buffer *b, uint64_t v) { put_bytes(b, &v, 8); }
static void put_blob(struct buffer *b, const void *bytes, size_t n) {
  put_u32(b, (uint32_t)n);
  put_bytes(b, bytes, n);
}
static void put_string(struct buffer *b, const char *s) { put_blob(b, s, s ? strlen(s) : 0); }
static void put_handle(struct buffer *b, const struct jompd_handle *h) {
  put_word(b, h->kind);
  put_word(b, h->a);
  put_word(b, h->b);
}

static const unsigned char *get_bytes(struct buffer *b, size_t n) {
  if (b->bad || b->position + n > b->length) {
    b->bad = 1;
    return NULL;
  }
  const unsigned char *p = b->data + b->position;
  b->position += n;
  return p;
}
static uint64_t get_word(struct buffer *b) {
  uint64_t v = 0;
  const unsigned char *p = get_bytes(b, 8);
  if (p)
    memcpy(&v, p, 8);
  return v;
}
static uint8_t get_u8(struct buffer *b) {
  const unsigned char *p = get_bytes(b, 1);
  return p ? *p : 0;
}
/* A blob: its bytes stay in the buffer; *n gets its length. */
static const unsigned char *get_blob(struct buffer *b, uint32_t *n) {
  uint32_t length = 0;
  const unsigned char *p = get_bytes(b, 4);
  if (p)
    memcpy(&length, p, 4);
  *n = length;
  return get_bytes(b, length);
}
/* A blob as a NUL-terminated string from alloc_memory, handed to the debugger. */
static ompd_rc_t get_owned_string(struct buffer *b, const char **result) {
  uint32_t n;
  const unsigned char *bytes = get_blob(b, &n);
  if (!bytes && n)
    return ompd_rc_error;
  char *s = NULL;
  if (cb->alloc_memory(n + 1, (void **)&s) != ompd_rc_ok || !s)
    return ompd_rc_nomem;
  memcpy(s, bytes ? (const void *)bytes : "", n);
  s[n] = 0;
  *result = s;
  return ompd_rc_ok;
}

/* ---- the engine process ------------------------------------------------------------------------------ */

static long timeout_ms(void) {
  const char *value = getenv("JOMPD_LIBOMPD_TIMEOUT_MS");
  long ms = value ? strtol(value, NULL, 10) : 0;
  return ms > 0 ? ms : 30000;
}

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static long now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000L + t.tv_nsec / 1000L;
}

static void stop_engine(void) {
  if (to_engine >= 0)
    close(to_engine);
  if (from_engine >= 0)
    close(from_engine);
  to_engine = from_engine = -1;
  if (engine_pidfd >= 0) {
    /* the debugger may have reaped it (gdb waits for any child): then the signal finds no process and waitid
       ECHILD; the pidfd never names another process */
    syscall(SYS_pidfd_send_signal, engine_pidfd, SIGKILL, NULL, 0);
    siginfo_t info;
    while (waitid(P_PIDFD, (id_t)engine_pidfd, &info, WEXITED) < 0 && errno == EINTR) {
    }
    close(engine_pidfd);
  } else if (engine_pid > 0) {
    kill(engine_pid, SIGKILL); /* no pidfd (kernel before 5.3) */
    while (waitpid(engine_pid, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  engine_pidfd = -1;
  engine_pid = -1;
}

/* Writes all of it with SIGPIPE blocked on this thread; a SIGPIPE this write raised is taken back. */
static int write_all(int fd, const void *data, size_t n) {
  sigset_t pipe_only, old, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigpending(&pending);
  int was_pending = sigismember(&pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  int ok = 1;
  const unsigned char *p = data;
  while (n > 0) {
    ssize_t written = write(fd, p, n);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      ok = 0;
      break;
    }
    p += written;
    n -= (size_t)written;
  }
  if (!ok && errno == EPIPE && !was_pending) {
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_only, NULL, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return ok;
}

/* Reads exactly n bytes before the deadline; 0 on end of file, error or timeout (why in *why). */
static int read_all(int fd, void *data, size_t n, long deadline, const char **why) {
  unsigned char *p = data;
  while (n > 0) {
    long left = deadline - now_ms();
    if (left <= 0) {
      *why = "timed out";
      return 0;
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    int ready = poll(&pfd, 1, (int)(left > 1000000 ? 1000000 : left));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0) {
      *why = "poll failed";
      return 0;
    }
    if (ready == 0)
      continue;
    ssize_t got = read(fd, p, n);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (got <= 0) {
      *why = got == 0 ? "ended" : "read failed";
      return 0;
    }
    p += got;
    n -= (size_t)got;
  }
  return 1;
}

/* Sends the frame built in `out` (type given; payload already in out after the 5-byte header). */
static void begin_frame(uint8_t type) {
  out.length = 0;
  out.bad = 0;
  put_u32(&out, 0);
  put_u8(&out, type);
}
static int send_frame(void) {
  if (out.bad)
    return 0;
  uint32_t length = (uint32_t)(out.length - 4);
  memcpy(out.data, &length, 4);
  return write_all(to_engine, out.data, out.length);
}
/* Receives one frame into `in`; returns its type, or -1 (why in *why). */
static int receive_frame(long deadline, const char **why) {
  uint32_t length;
  if (!read_all(from_engine, &length, 4, deadline, why))
    return -1;
  if (length == 0 || length > MAX_FRAME) {
    *why = "sent a malformed frame";
    return -1;
  }
  in.length = 0;
  in.position = 0;
  in.bad = 0;
  if (!reserve(&in, length)) {
    *why = "sent a frame too large for memory";
    return -1;
  }
  if (!read_all(from_engine, in.data, length, deadline, why))
    return -1;
  in.length = length;
  return get_u8(&in);
}

/* The directory this library was loaded from. */
static int library_dir(char *dir, size_t size) {
  Dl_info info;
  if (!dladdr((void *)&ompd_get_api_version, &info) || !info.dli_fname)
    return 0;
  char resolved[PATH_MAX];
  if (!realpath(info.dli_fname, resolved))
    return 0;
  char *slash = strrchr(resolved, '/');
  if (!slash)
    return 0;
  *slash = 0;
  return snprintf(dir, size, "%s", resolved) < (int)size;
}

extern char **environ;

/* Java as every jompd door finds it: lib/jompd-java.sh beside this library prints it, by the rule the launchers and
   the gdb bridge share (JOMPD_JAVA, the distribution's runtime/, JAVA_HOME, /usr/lib/jvm, PATH; a Java >= 25).
   Run with bash (root's /bin/bash), its output bounded and its time too; on failure `why` holds what it said. */
static int find_java(const char *dir, char *java, size_t size, char *why, size_t why_size) {
  char script[PATH_MAX + 16];
  snprintf(why, why_size, "%s", "");
  if (snprintf(script, sizeof script, "%s/jompd-java.sh", dir) >= (int)sizeof script)
    return 0;
  const char *bash = access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/usr/bin/bash";
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    return snprintf(why, why_size, "pipe: %s", strerror(errno)), 0;
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return snprintf(why, why_size, "pipe: %s", strerror(errno)), 0;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  char *argv[] = {"bash", script, NULL};
  pid_t pid;
  int spawned = posix_spawn(&pid, bash, &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  if (spawned != 0) {
    close(out[0]);
    close(err[0]);
    return snprintf(why, why_size, "cannot run %s: %s", bash, strerror(spawned)), 0;
  }
  char said[2][PATH_MAX];
  size_t used[2] = {0, 0};
  struct pollfd fds[2] = {{.fd = out[0], .events = POLLIN}, {.fd = err[0], .events = POLLIN}};
  long deadline = now_ms() + 60000; /* a Java asked its version is a JVM start */
  int open_fds = 2;
  while (open_fds > 0) {
    long left = deadline - now_ms();
    if (left <= 0 || poll(fds, 2, (int)left) <= 0) {
      if (errno == EINTR && left > 0)
        continue;
      kill(pid, SIGKILL);
      break;
    }
    for (int k = 0; k < 2; k++) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char chunk[512];
      ssize_t n = read(fds[k].fd, chunk, sizeof chunk);
      if (n <= 0) {
        close(fds[k].fd);
        fds[k].fd = -1;
        open_fds--;
        continue;
      }
      size_t keep = (size_t)n < sizeof said[k] - 1 - used[k] ? (size_t)n : sizeof said[k] - 1 - used[k];
      memcpy(said[k] + used[k], chunk, keep);
      used[k] += keep;
    }
  }
  for (int k = 0; k < 2; k++)
    if (fds[k].fd >= 0)
      close(fds[k].fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  said[0][used[0]] = said[1][used[1]] = '\0';
  for (int k = 0; k < 2; k++)
    while (used[k] > 0 && (said[k][used[k] - 1] == '\n' || said[k][used[k] - 1] == ' '))
      said[k][--used[k]] = '\0';
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || used[0] == 0 || strchr(said[0], '\n')) {
    snprintf(why, why_size, "%s", used[1] ? said[1] : "lib/jompd-java.sh found no Java");
    return 0;
  }
  return snprintf(java, size, "%s", said[0]) < (int)size;
}

/* ---- a private directory for the engine's log and class archive -------------------------------------
   A debugger loads this library as any user, root included, on shared login nodes. A log or class archive in
   a place another user can change is theirs: a link planted where the log goes makes the debugger's user
   write wherever it points, and a class archive is code the engine runs. So both live in a directory that is
   this user's alone (made 0700 and checked), and without one there is no archive and no log. */

/* Whether `real` (resolved) and every directory above it is root's or this user's and not writable by others
   (a sticky one, /tmp, may be: there only an entry's owner may rename or remove it). */
static int safe_ancestry(const char *real) {
  char walk[PATH_MAX];
  if (snprintf(walk, sizeof walk, "%s", real) >= (int)sizeof walk)
    return 0;
  uid_t self = geteuid();
  for (;;) {
    struct stat st;
    if (lstat(walk, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_uid != self && st.st_uid != 0) ||
        ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
      return 0;
    char *slash = strrchr(walk, '/');
    if (!slash || slash == walk) {
      if (!slash || walk[1] == 0)
        return 1;
      walk[1] = 0; /* then "/" itself */
    } else
      *slash = 0;
  }
}

/* `path` resolved into `real` when it is a directory of this user's that its group and others cannot write
   (made 0700 here; one that bin/jompd made under umask 022 serves too),
   above which nobody else can change anything. */
static int private_directory(const char *path, char *real) {
  struct stat st;
  if (!realpath(path, real) || lstat(real, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 022))
    return 0;
  char parent[PATH_MAX];
  snprintf(parent, sizeof parent, "%s", real);
  char *slash = strrchr(parent, '/');
  if (slash)
    slash[slash == parent ? 1 : 0] = 0;
  return safe_ancestry(parent);
}

/* `parent`/`name` as a private directory (resolved into `real`), made 0700 when missing and `parent` is safe:
   never made where another user could take it over (sudo -E keeps another user's HOME). */
static int make_private(const char *parent, const char *name, char *real) {
  char path[PATH_MAX], resolved_parent[PATH_MAX];
  if (!parent || !*parent || snprintf(path, sizeof path, "%s/%s", parent, name) >= (int)sizeof path)
    return 0;
  if (private_directory(path, real))
    return 1;
  if (!realpath(parent, resolved_parent) || !safe_ancestry(resolved_parent))
    return 0;
  if (mkdir(path, 0700) != 0 && errno != EEXIST)
    return 0;
  return private_directory(path, real);
}

/* The engine's directory: $XDG_CACHE_HOME/jompd or ~/.cache/jompd (kept across sessions), else
   $XDG_RUNTIME_DIR/jompd, else ${TMPDIR:-/tmp}/jompd-UID; each only when it is this user's alone. */
static int engine_directory(char *dir) {
  const char *cache = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  char base[PATH_MAX];
  if (cache && *cache) {
    char above[PATH_MAX];
    snprintf(above, sizeof above, "%s", cache);
    char *slash = strrchr(above, '/');
    if (slash && slash[1]) {
      *slash = 0;
      if (make_private(*above ? above : "/", slash + 1, base) && make_private(base, "jompd", dir))
        return 1;
    }
  } else if (home && *home && make_private(home, ".cache", base) && make_private(base, "jompd", dir))
    return 1;
  if (make_private(getenv("XDG_RUNTIME_DIR"), "jompd", dir))
    return 1;
  const char *tmp = getenv("TMPDIR");
  char name[32];
  snprintf(name, sizeof name, "jompd-%ld", (long)geteuid());
  return make_private(tmp && *tmp ? tmp : "/tmp", name, dir);
}

/* Opens the engine's log for appending (its path in `path`), or -1 without a private directory: never
   through a link, never a FIFO's open that waits, only a file of this user's. */
static int open_log(char *path, size_t size) {
  char dir[PATH_MAX];
  if (!engine_directory(dir) || snprintf(path, size, "%s/libompd-engine.log", dir) >= (int)size) {
    snprintf(path, size, "no log: no directory of this user's alone");
    return -1;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
    close(fd);
    fd = -1;
  }
  return fd;
}


/* Starts the engine and waits for its hello. On failure says why and returns 0. */
static int start_engine(void) {
  char dir[PATH_MAX], java[PATH_MAX], classpath[PATH_MAX + 8], log[PATH_MAX];
  if (!library_dir(dir, sizeof dir)) {
    say("jompd libompd: cannot tell where libompd.so was loaded from");
    return 0;
  }
  char no_java[PATH_MAX];
  if (!find_java(dir, java, sizeof java, no_java, sizeof no_java)) {
    say("jompd libompd: %s", no_java);
    return 0;
  }
  snprintf(classpath, sizeof classpath, "%s/*", dir);
  int log_fd = open_log(log, sizeof log);
  int down[2], up[2];
  if (pipe2(down, O_CLOEXEC) != 0) {
    if (log_fd >= 0)
      close(log_fd);
    return say("jompd libompd: pipe: %s", strerror(errno)), 0;
  }
  if (pipe2(up, O_CLOEXEC) != 0) {
    close(down[0]);
    close(down[1]);
    if (log_fd >= 0)
      close(log_fd);
    return say("jompd libompd: pipe: %s", strerror(errno)), 0;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, down[0], 0);
  posix_spawn_file_actions_adddup2(&actions, up[1], 1);
  if (log_fd >= 0)
    posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
  else
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3); /* the debugger's fds opened without O_CLOEXEC */
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all_default;
  sigemptyset(&none);
  sigfillset(&all_default);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all_default);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  /* start-up: an application class-data archive the JVM makes on first use, beside the log (only there: a
     private directory); a long session's many small calls: the JVM's full tiered compilation */
  char archive[PATH_MAX + 32];
  int archived = log_fd >= 0;
  snprintf(archive, sizeof archive, "-XX:SharedArchiveFile=%.*s/libompd-engine.jsa",
           (int)(strrchr(log, '/') ? strrchr(log, '/') - log : 1), strrchr(log, '/') ? log : ".");
  char *with_archive[] = {java, "-XX:+UseSerialGC", archive, "-XX:+AutoCreateSharedArchive", "-Xshare:auto",
                          "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-XX:-UsePerfData", "-cp", classpath,
                          "dev.jompd.libompd.Engine", NULL};
  char *without_archive[] = {java, "-XX:+UseSerialGC", "-Xshare:auto", "-Xlog:cds=off", "-XX:-UsePerfData", "-cp",
                             classpath, "dev.jompd.libompd.Engine", NULL};
  char **argv = archived ? with_archive : without_archive;
  pid_t pid;
  int spawned = posix_spawn(&pid, java, &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(down[0]);
  close(up[1]);
  if (log_fd >= 0)
    close(log_fd);
  if (spawned != 0) {
    close(down[1]);
    close(up[0]);
    say("jompd libompd: cannot start %s: %s", java, strerror(spawned));
    return 0;
  }
  engine_pid = pid;
  engine_parent = getpid();
  /* held at once: the engine is starting a JVM, it has not ended and been reaped yet */
  engine_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (engine_pidfd >= 0)
    fcntl(engine_pidfd, F_SETFD, FD_CLOEXEC);
  to_engine = down[1];
  from_engine = up[0];
  const char *why = "";
  int type = receive_frame(call_deadline, &why);
  if (type != F_HELLO || get_word(&in) != PROTOCOL_VERSION || in.bad) {
    stop_engine();
    say("jompd libompd: the engine (%s, classes in %s) did not start: it %s (its log: %s)", java, dir,
        type < 0 ? why : "spoke another protocol", log);
    return 0;
  }
  engine_generation++;
  return 1;
}

/* ---- serving one call -------------------------------------------------------------------------------- */

/* Takes the call lock for this thread (waiting for another thread's call at most the timeout) and starts the
   call's deadline; ompd_rc_ok and *entered set, or the rc refusing the call. */
static ompd_rc_t enter_call(int *entered) {
  *entered = 0;
  if (serving_here) {
    say("jompd libompd: a routine was called from a callback of another one; refused (one call at a time)");
    return ompd_rc_error;
  }
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  long ms = timeout_ms();
  until.tv_sec += ms / 1000;
  until.tv_nsec += (ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  int locked;
  while ((locked = pthread_mutex_clocklock(&serving, CLOCK_MONOTONIC, &until)) == EINTR) {
  }
  if (locked != 0) {
    say("jompd libompd: another thread's call still runs after %ld ms; this one is refused", ms);
    return ompd_rc_error;
  }
  serving_here = 1;
  *entered = 1;
  call_deadline = now_ms() + ms;
  return ompd_rc_ok;
}
static void leave_call(int *entered) {
  if (!*entered)
    return;
  serving_here = 0;
  pthread_mutex_unlock(&serving);
}
/* The first statement of a routine that uses the library's state: the rest of it is one call (see Calls). */
#define SERVE_ONE_CALL()                                                                                       \
  int entered_ __attribute__((cleanup(leave_call))) = 0;                                                      \
  do {                                                                                                         \
    ompd_rc_t refused_ = enter_call(&entered_);                                                                \
    if (refused_ != ompd_rc_ok)                                                                                \
      return refused_;                                                                                         \
  } while (0)

/* Unloading the library (dlclose, the debugger's exit) stops the engine, unless a call is being served or this
   process is a child the debugger forked. */
__attribute__((destructor)) static void unloaded(void) {
  if (engine_parent != getpid() || pthread_mutex_trylock(&serving) != 0)
    return; /* not this process's engine (a forked child exiting), or a call is using it */
  stop_engine();
  pthread_mutex_unlock(&serving);
}

static ompd_rc_t answer_question(void) {
  uint8_t question = get_u8(&in);
  begin_frame(F_ANSWER);
  ompd_rc_t rc = ompd_rc_ok;
  switch (question) {
  case Q_READ: {
    ompd_address_t address = {SEGMENT_UNSPECIFIED, get_word(&in)};
    uint64_t length = get_word(&in);
    if (in.bad || length > MAX_READ)
      return ompd_rc_error;
    size_t header = out.length;
    put_word(&out, 0);
    put_u32(&out, (uint32_t)length);
    if (!reserve(&out, length))
      return ompd_rc_nomem;
    if (tracing)
      fprintf(stderr, "jompd libompd: read %lu bytes at 0x%lx\n", (unsigned long)length, (unsigned long)address.address);
    rc = cb->read_memory(current_context, NULL, &address, length, out.data + out.length);
    if (rc == ompd_rc_ok) {
      out.length += length;
    } else {
      out.length = header;
      put_word(&out, (uint64_t)rc);
    }
    break;
  }
  case Q_READ_STRING: {
    ompd_address_t address = {SEGMENT_UNSPECIFIED, get_word(&in)};
    uint64_t max = get_word(&in);
    if (in.bad || max == 0 || max > MAX_READ)
      return ompd_rc_error;
    char *text = NULL;
    if (cb->alloc_memory(max, (void **)&text) != ompd_rc_ok || !text)
      return ompd_rc_nomem;
    rc = cb->read_string(current_context, NULL, &address, max, text);
    put_word(&out, (uint64_t)rc);
    if (rc == ompd_rc_ok || rc == ompd_rc_incomplete) {
      text[max - 1] = 0;
      put_string(&out, text);
    }
    cb->free_memory(text);
    break;
  }
  case Q_SYMBOL: {
    uint64_t context_index = get_word(&in);
    uint32_t name_length, file_length;
    const unsigned char *name = get_blob(&in, &name_length);
    const unsigned char *file = get_blob(&in, &file_length);
    if (in.bad || !name || context_index > (uint64_t)thread_context_count)
      return ompd_rc_error;
    char name_z[512], file_z[PATH_MAX];
    if (name_length >= sizeof name_z || file_length >= sizeof file_z)
      return ompd_rc_error;
    memcpy(name_z, name, name_length);
    name_z[name_length] = 0;
    if (file_length)
      memcpy(file_z, file, file_length);
    file_z[file_length] = 0;
    ompd_address_t address = {SEGMENT_UNSPECIFIED, 0};
    rc = cb->symbol_addr_lookup(current_context, context_index ? thread_contexts[context_index - 1] : NULL,
                                name_z, &address, file_length ? file_z : NULL);
    put_word(&out, (uint64_t)rc);
    if (rc == ompd_rc_ok)
      put_word(&out, address.address);
    break;
  }
  case Q_THREAD_CONTEXT: {
    uint64_t kind = get_word(&in);
    uint32_t id_length;
    const unsigned char *id = get_blob(&in, &id_length);
    if (in.bad || !id)
      return ompd_rc_error;
    if (thread_context_count >= MAX_THREAD_CONTEXTS) {
      rc = ompd_rc_nomem;
      put_word(&out, (uint64_t)rc);
      break;
    }
    ompd_thread_context_t *context = NULL;
    rc = cb->get_thread_context_for_thread_id(current_context, kind, id_length, id, &context);
    put_word(&out, (uint64_t)rc);
    if (rc == ompd_rc_ok) {
      thread_contexts[thread_context_count++] = context;
      put_word(&out, (uint64_t)thread_context_count);
    }
    break;
  }
  case Q_SIZEOF: {
    ompd_device_type_sizes_t sizes;
    rc = cb->sizeof_type(current_context, &sizes);
    put_word(&out, (uint64_t)rc);
    if (rc == ompd_rc_ok) {
      unsigned char six[6] = {sizes.sizeof_char, sizes.sizeof_short, sizes.sizeof_int, sizes.sizeof_long,
                              sizes.sizeof_long_long, sizes.sizeof_pointer};
      put_blob(&out, six, 6);
    }
    break;
  }
  default:
    return ompd_rc_error;
  }
  return send_frame() ? ompd_rc_ok : ompd_rc_error;
}

/* Sends the CALL built in `out`, answers the engine's questions, and leaves the RESULT's results in `in`. */
static ompd_rc_t exchange(uint16_t routine) {
  const char *why = "";
  int questions = 0;
  long start_us = now_us(), callbacks_us = 0;
  if (!send_frame()) {
    why = "is gone (its pipe closed)";
    goto dead;
  }
  for (;;) {
    int type = receive_frame(call_deadline, &why);
    if (type == F_QUESTION) {
      questions++;
      long asked_us = now_us();
      ompd_rc_t rc = answer_question();
      callbacks_us += now_us() - asked_us;
      if (rc != ompd_rc_ok) {
        why = "asked a question that could not be answered";
        goto dead;
      }
      continue;
    }
    if (type != F_RESULT) {
      if (type < 0 && questions > 0 && strcmp(why, "timed out") == 0)
        why = "timed out (the call's deadline passed while it was still asking questions)";
      if (type >= 0)
        why = "sent an unexpected frame";
      goto dead;
    }
    ompd_rc_t rc = (ompd_rc_t)get_word(&in);
    uint32_t n;
    const unsigned char *message = get_blob(&in, &n);
    if (in.bad) {
      why = "sent a malformed result";
      goto dead;
    }
    if (tracing)
      fprintf(stderr, "jompd libompd: routine %u -> rc %d after %d questions, %ld us (callbacks %ld us) %.*s\n",
              routine, (int)rc, questions, now_us() - start_us, callbacks_us, (int)n,
              message ? (const char *)message : "");
    if (n > 0 && message) {
      char text[1024];
      snprintf(text, sizeof text, "jompd libompd: %.*s", (int)(n < 1000 ? n : 1000), message);
      print_message(text);
    }
    return rc;
  }
dead : {
  pid_t pid = engine_pid;
  stop_engine();
  say("jompd libompd: the engine (pid %ld) %s during routine %u; it is stopped, the next call starts a new one",
      (long)pid, why, routine);
  return ompd_rc_error;
}
}

static int valid(const void *handle, uint32_t kind) {
  const struct jompd_handle *h = handle;
  return h && h->magic == HANDLE_MAGIC && h->kind == kind && h->aspace && h->aspace->magic == HANDLE_MAGIC;
}

/* ok for a live handle of `kind`; a live handle of another kind is OpenMP 6.0's incompatible_handle for debuggers
   that asked for 6.0 (stale_handle for older ones, which have no better rc); anything else stale_handle. */
static ompd_rc_t handle_rc(const void *handle, uint32_t kind) {
  if (valid(handle, kind))
    return ompd_rc_ok;
  const struct jompd_handle *h = handle;
  if (h && h->magic == HANDLE_MAGIC && h->aspace && h->aspace->magic == HANDLE_MAGIC &&
      requested_api_version >= API_VERSION_6_0)
    return (ompd_rc_t)OMPD_RC_INCOMPATIBLE_HANDLE;
  return ompd_rc_stale_handle;
}
/* A missing out-argument: bad_input for a live handle of `kind`, else what the handle is. */
static ompd_rc_t bad_output(const void *handle, uint32_t kind) {
  ompd_rc_t rc = handle_rc(handle, kind);
  return rc == ompd_rc_ok ? ompd_rc_bad_input : rc;
}
#define CHECK_HANDLE(handle, kind)                                                                             \
  do {                                                                                                         \
    ompd_rc_t handle_check_ = handle_rc(handle, kind);                                                         \
    if (handle_check_ != ompd_rc_ok)                                                                           \
      return handle_check_;                                                                                    \
  } while (0)

static ompd_rc_t register_aspace(struct jompd_handle *aspace);

/* Starts a CALL for `aspace` (starting the engine, registering the address space with it when needed). */
static ompd_rc_t begin_call(uint16_t routine, struct jompd_handle *aspace) {
  if (!cb)
    return ompd_rc_error; /* before ompd_initialize or after ompd_finalize: no callbacks to say why */
  if (engine_pid < 0 && !start_engine())
    return ompd_rc_error;
  if (aspace->registered_generation != engine_generation && routine != R_PROCESS_INITIALIZE) {
    ompd_rc_t rc = register_aspace(aspace);
    if (rc != ompd_rc_ok) {
      current_context = NULL;
      return rc == ompd_rc_error ? rc : ompd_rc_stale_handle;
    }
  }
  current_context = aspace->context;
  thread_context_count = 0;
  begin_frame(F_CALL);
  put_u16(&out, routine);
  put_word(&out, aspace->id);
  return ompd_rc_ok;
}

/* The hand-over in a process_initialize RESULT (see PROTOCOL): get_state's fields into the address space,
   the states into `states`. A malformed one is kept from neither (the routines then go to the engine). */
static void take_hand_over(struct jompd_handle *aspace) {
  uint64_t fields = get_word(&in);
  uint64_t plan[4] = {0, 0, 0, 0};
  if (fields == 2)
    for (int i = 0; i < 4; i++)
      plan[i] = get_word(&in);
  int sizes_ok = fields == 2 && plan[1] >= 1 && plan[1] <= 8 && plan[3] >= 1 && plan[3] <= 8;
  if (!in.bad && (fields == 0 || sizes_ok)) {
    aspace->state_fields = fields;
    aspace->state_offset = plan[0];
    aspace->state_size = plan[1];
    aspace->wait_offset = plan[2];
    aspace->wait_size = plan[3];
  }
  uint64_t n = get_word(&in), start = get_word(&in);
  if (in.bad || n > MAX_STATES)
    return;
  int count = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t code = get_word(&in);
    uint32_t length;
    const unsigned char *name = get_blob(&in, &length);
    if (in.bad || !name || length == 0 || length >= MAX_STATE_NAME)
      return;
    states[count].code = code;
    memcpy(states[count].name, name, length);
    states[count].name[length] = 0;
    count++;
  }
  states_start = start;
  state_count = count;
}

static ompd_rc_t register_aspace(struct jompd_handle *aspace) {
  ompd_rc_t rc = begin_call(R_PROCESS_INITIALIZE, aspace);
  if (rc != ompd_rc_ok)
    return rc;
  put_word(&out, (uint64_t)requested_api_version);
  rc = exchange(R_PROCESS_INITIALIZE);
  if (rc == ompd_rc_ok) {
    aspace->registered_generation = engine_generation;
    take_hand_over(aspace);
  }
  return rc;
}

/* Ends a call begun with begin_call (`begun`: its answer; the arguments are put since): sends it and waits for
   its RESULT, whose words stay in `in`; the debugger's context is then no longer the current one. (A routine
   whose result becomes a new handle keeps the context until new_handle has read `in`: an address-space release
   during its alloc_memory callback then does not call the engine over that result.) */
static ompd_rc_t end_call(ompd_rc_t begun, uint16_t routine) {
  ompd_rc_t rc = begun == ompd_rc_ok ? exchange(routine) : begun;
  current_context = NULL;
  return rc;
}

/* A new handle from alloc_memory with the identity words of the result in `in`. */
static ompd_rc_t new_handle(uint32_t kind, struct jompd_handle *aspace, void **result) {
  uint64_t a = get_word(&in), b = get_word(&in);
  if (in.bad)
    return ompd_rc_error;
  struct jompd_handle *h = NULL;
  if (cb->alloc_memory(sizeof *h, (void **)&h) != ompd_rc_ok || !h)
    return ompd_rc_nomem;
  memset(h, 0, sizeof *h);
  h->magic = HANDLE_MAGIC;
  h->kind = kind;
  h->aspace = aspace;
  h->a = a;
  h->b = b;
  *result = h;
  return ompd_rc_ok;
}

/* handle -> new handle of kind `to`. */
static ompd_rc_t navigate(uint16_t routine, const void *from, uint32_t from_kind, uint32_t to, void **result,
                          int has_number, int number) {
  CHECK_HANDLE(from, from_kind);
  if (!result)
    return ompd_rc_bad_input;
  struct jompd_handle *h = (struct jompd_handle *)from;
  ompd_rc_t rc = begin_call(routine, h->aspace);
  if (rc != ompd_rc_ok)
    return rc;
  put_handle(&out, h);
  if (has_number)
    put_word(&out, (uint64_t)(int64_t)number);
  rc = exchange(routine);
  if (rc != ompd_rc_ok)
    return rc;
  return new_handle(to, h->aspace, result);
}

static ompd_rc_t release(void *handle, uint32_t kind) {
  CHECK_HANDLE(handle, kind);
  if (!cb)
    return ompd_rc_error;
  ((struct jompd_handle *)handle)->magic = RELEASED_MAGIC;
  return cb->free_memory(handle);
}

static ompd_rc_t compare(const void *h1, const void *h2, uint32_t kind, int *cmp_value) {
  CHECK_HANDLE(h1, kind);
  CHECK_HANDLE(h2, kind);
  if (!cmp_value)
    return ompd_rc_bad_input;
  const struct jompd_handle *x = h1, *y = h2;
  if (x->aspace != y->aspace)
    return ompd_rc_bad_input;
  uint64_t xb = kind == ompd_scope_thread ? 0 : x->b, yb = kind == ompd_scope_thread ? 0 : y->b;
  *cmp_value = x->a < y->a ? -1 : x->a > y->a ? 1 : xb < yb ? -1 : xb > yb ? 1 : 0;
  return ompd_rc_ok;
}

/* ---- the routines ------------------------------------------------------------------------------------- */

EXPORT ompd_rc_t ompd_get_api_version(ompd_word_t *version) {
  if (!version)
    return ompd_rc_bad_input;
  *version = API_VERSION;
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_get_version_string(const char **string) {
  if (!string)
    return ompd_rc_bad_input;
  *string = VERSION_STRING; /* owned by the library */
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_initialize(ompd_word_t api_version, const ompd_callbacks_t *callbacks) {
  SERVE_ONE_CALL();
  if (!callbacks || !callbacks->alloc_memory || !callbacks->free_memory || !callbacks->print_string ||
      !callbacks->read_memory || !callbacks->symbol_addr_lookup || !callbacks->sizeof_type ||
      !callbacks->read_string || !callbacks->get_thread_context_for_thread_id)
    return ompd_rc_bad_input;
  if (api_version < MIN_API_VERSION)
    return ompd_rc_unsupported;
  cb = callbacks;
  requested_api_version = api_version;
  tracing = getenv("JOMPD_LIBOMPD_TRACE") != NULL;
  return ompd_rc_ok; /* the engine starts with the first routine that needs it */
}

EXPORT ompd_rc_t ompd_finalize(void) {
  SERVE_ONE_CALL();
  if (!cb)
    return ompd_rc_unsupported;
  stop_engine();
  if (out.data)
    cb->free_memory(out.data);
  if (in.data)
    cb->free_memory(in.data);
  memset(&out, 0, sizeof out);
  memset(&in, 0, sizeof in);
  cb = NULL;
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_process_initialize(ompd_address_space_context_t *context,
                                         ompd_address_space_handle_t **handle) {
  SERVE_ONE_CALL();
  if (!cb)
    return ompd_rc_error;
  if (!context || !handle)
    return ompd_rc_bad_input;
  struct jompd_handle *h = NULL;
  if (cb->alloc_memory(sizeof *h, (void **)&h) != ompd_rc_ok || !h)
    return ompd_rc_nomem;
  memset(h, 0, sizeof *h);
  h->magic = HANDLE_MAGIC;
  h->kind = ompd_scope_address_space;
  h->aspace = h;
  h->context = context;
  h->id = next_aspace_id++;
  ompd_rc_t rc = register_aspace(h);
  current_context = NULL;
  if (rc != ompd_rc_ok) {
    h->magic = RELEASED_MAGIC;
    cb->free_memory(h);
    return rc;
  }
  *handle = (ompd_address_space_handle_t *)h;
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_device_initialize(ompd_address_space_handle_t *process_handle,
                                        ompd_address_space_context_t *device_context, ompd_device_t kind,
                                        ompd_size_t sizeof_id, void *id,
                                        ompd_address_space_handle_t **device_handle) {
  (void)kind;
  CHECK_HANDLE(process_handle, ompd_scope_address_space);
  if (!device_context || !id || !sizeof_id || !device_handle)
    return ompd_rc_bad_input;
  return ompd_rc_unsupported; /* jompd reads the host runtime only (no libomptarget) */
}

EXPORT ompd_rc_t ompd_rel_address_space_handle(ompd_address_space_handle_t *handle) {
  CHECK_HANDLE(handle, ompd_scope_address_space);
  struct jompd_handle *h = (struct jompd_handle *)handle;
  /* A release may come while another call is being served on this thread (a callback of the debugger
     collecting garbage): the engine is not told then; it forgets address spaces with its process. */
  if (serving_here)
    return release(handle, ompd_scope_address_space);
  SERVE_ONE_CALL();
  if (cb && engine_pid > 0 && h->registered_generation == engine_generation && current_context == NULL) {
    end_call(begin_call(R_RELEASE_ADDRESS_SPACE, h), R_RELEASE_ADDRESS_SPACE);
  }
  return release(handle, ompd_scope_address_space);
}

EXPORT ompd_rc_t ompd_get_omp_version(ompd_address_space_handle_t *address_space, ompd_word_t *omp_version) {
  SERVE_ONE_CALL();
  CHECK_HANDLE(address_space, ompd_scope_address_space);
  if (!omp_version)
    return ompd_rc_bad_input;
  ompd_rc_t rc = end_call(begin_call(R_GET_OMP_VERSION, (struct jompd_handle *)address_space), R_GET_OMP_VERSION);
  if (rc != ompd_rc_ok)
    return rc;
  uint64_t v = get_word(&in);
  if (in.bad)
    return ompd_rc_error;
  *omp_version = (ompd_word_t)v;
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_get_omp_version_string(ompd_address_space_handle_t *address_space, const char **string) {
  SERVE_ONE_CALL();
  CHECK_HANDLE(address_space, ompd_scope_address_space);
  if (!string)
    return ompd_rc_bad_input;
  ompd_rc_t rc = begin_call(R_GET_OMP_VERSION_STRING, (struct jompd_handle *)address_space);
  rc = end_call(rc, R_GET_OMP_VERSION_STRING);
  return rc != ompd_rc_ok ? rc : get_owned_string(&in, string);
}

#define NAVIGATE(routine, from, from_kind, to, result, has_number, number)                                 \
  SERVE_ONE_CALL();                                                                                         \
  ompd_rc_t rc_ = navigate(routine, from, from_kind, to, (void **)(result), has_number, number);            \
  current_context = NULL;                                                                                   \
  return rc_

EXPORT ompd_rc_t ompd_get_thread_in_parallel(ompd_parallel_handle_t *parallel_handle, int thread_num,
                                             ompd_thread_handle_t **thread_handle) {
  NAVIGATE(R_GET_THREAD_IN_PARALLEL, parallel_handle, ompd_scope_parallel, ompd_scope_thread, thread_handle, 1,
           thread_num);
}

EXPORT ompd_rc_t ompd_get_thread_handle(ompd_address_space_handle_t *handle, ompd_thread_id_t kind,
                                        ompd_size_t sizeof_thread_id, const void *thread_id,
                                        ompd_thread_handle_t **thread_handle) {
  SERVE_ONE_CALL();
  CHECK_HANDLE(handle, ompd_scope_address_space);
  if (!thread_id || !thread_handle || sizeof_thread_id == 0 || sizeof_thread_id > 64)
    return ompd_rc_bad_input;
  struct jompd_handle *h = (struct jompd_handle *)handle;
  ompd_rc_t rc = begin_call(R_GET_THREAD_HANDLE, h);
  if (rc == ompd_rc_ok) {
    put_word(&out, kind);
    put_blob(&out, thread_id, sizeof_thread_id);
    rc = exchange(R_GET_THREAD_HANDLE);
  }
  if (rc == ompd_rc_ok)
    rc = new_handle(ompd_scope_thread, h, (void **)thread_handle);
  current_context = NULL;
  return rc;
}

EXPORT ompd_rc_t ompd_rel_thread_handle(ompd_thread_handle_t *thread_handle) {
  return release(thread_handle, ompd_scope_thread);
}

EXPORT ompd_rc_t ompd_thread_handle_compare(ompd_thread_handle_t *thread_handle_1,
                                            ompd_thread_handle_t *thread_handle_2, int *cmp_value) {
  return compare(thread_handle_1, thread_handle_2, ompd_scope_thread, cmp_value);
}

EXPORT ompd_rc_t ompd_get_thread_id(ompd_thread_handle_t *thread_handle, ompd_thread_id_t kind,
                                    ompd_size_t sizeof_thread_id, void *thread_id) {
  SERVE_ONE_CALL();
  CHECK_HANDLE(thread_handle, ompd_scope_thread);
  if (!thread_id)
    return ompd_rc_bad_input;
  struct jompd_handle *h = (struct jompd_handle *)thread_handle;
  ompd_rc_t rc = begin_call(R_GET_THREAD_ID, h->aspace);
  if (rc == ompd_rc_ok) {
    put_handle(&out, h);
    put_word(&out, kind);
    put_word(&out, sizeof_thread_id);
  }
  rc = end_call(rc, R_GET_THREAD_ID);
  if (rc != ompd_rc_ok)
    return rc;
  uint32_t n;
  const unsigned char *id = get_blob(&in, &n);
  if (in.bad || !id || n != sizeof_thread_id)
    return ompd_rc_error;
  memcpy(thread_id, id, n);
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_get_curr_parallel_handle(ompd_thread_handle_t *thread_handle,
                                               ompd_parallel_handle_t **parallel_handle) {
  NAVIGATE(R_GET_CURR_PARALLEL, thread_handle, ompd_scope_thread, ompd_scope_parallel, parallel_handle, 0, 0);
}

EXPORT ompd_rc_t ompd_get_enclosing_parallel_handle(ompd_parallel_handle_t *parallel_handle,
                                                    ompd_parallel_handle_t **enclosing_parallel_handle) {
  NAVIGATE(R_GET_ENCLOSING_PARALLEL, parallel_handle, ompd_scope_parallel, ompd_scope_parallel,
           enclosing_parallel_handle, 0, 0);
}

EXPORT ompd_rc_t ompd_get_task_parallel_handle(ompd_task_handle_t *task_handle,
                                               ompd_parallel_handle_t **task_parallel_handle) {
  NAVIGATE(R_GET_TASK_PARALLEL, task_handle, ompd_scope_task, ompd_scope_parallel, task_parallel_handle, 0, 0);
}

EXPORT ompd_rc_t ompd_rel_parallel_handle(ompd_parallel_handle_t *parallel_handle) {
  return release(parallel_handle, ompd_scope_parallel);
}

EXPORT ompd_rc_t ompd_parallel_handle_compare(ompd_parallel_handle_t *parallel_handle_1,
                                              ompd_parallel_handle_t *parallel_handle_2, int *cmp_value) {
  return compare(parallel_handle_1, parallel_handle_2, ompd_scope_parallel, cmp_value);
}

EXPORT ompd_rc_t ompd_get_curr_task_handle(ompd_thread_handle_t *thread_handle, ompd_task_handle_t **task_handle) {
  NAVIGATE(R_GET_CURR_TASK, thread_handle, ompd_scope_thread, ompd_scope_task, task_handle, 0, 0);
}

EXPORT ompd_rc_t ompd_get_generating_task_handle(ompd_task_handle_t *task_handle,
                                                 ompd_task_handle_t **generating_task_handle) {
  NAVIGATE(R_GET_GENERATING_TASK, task_handle, ompd_scope_task, ompd_scope_task, generating_task_handle, 0, 0);
}

EXPORT ompd_rc_t ompd_get_scheduling_task_handle(ompd_task_handle_t *task_handle,
                                                 ompd_task_handle_t **scheduling_task_handle) {
  NAVIGATE(R_GET_SCHEDULING_TASK, task_handle, ompd_scope_task, ompd_scope_task, scheduling_task_handle, 0, 0);
}

EXPORT ompd_rc_t ompd_get_task_in_parallel(ompd_parallel_handle_t *parallel_handle, int thread_num,
                                           ompd_task_handle_t **task_handle) {
  NAVIGATE(R_GET_TASK_IN_PARALLEL, parallel_handle, ompd_scope_parallel, ompd_scope_task, task_handle, 1,
           thread_num);
}

EXPORT ompd_rc_t ompd_rel_task_handle(ompd_task_handle_t *task_handle) {
  return release(task_handle, ompd_scope_task);
}

EXPORT ompd_rc_t ompd_task_handle_compare(ompd_task_handle_t *task_handle_1, ompd_task_handle_t *task_handle_2,
                                          int *cmp_value) {
  return compare(task_handle_1, task_handle_2, ompd_scope_task, cmp_value);
}

/* A call on one handle whose results are words: up to `count` of them into `words`. */
static ompd_rc_t words_of(uint16_t routine, const void *handle, uint32_t kind, uint64_t *words, int count) {
  CHECK_HANDLE(handle, kind);
  const struct jompd_handle *h = handle;
  ompd_rc_t rc = begin_call(routine, h->aspace);
  if (rc == ompd_rc_ok)
    put_handle(&out, h);
  rc = end_call(rc, routine);
  if (rc != ompd_rc_ok)
    return rc;
  for (int i = 0; i < count; i++)
    words[i] = get_word(&in);
  return in.bad ? ompd_rc_error : ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_get_task_function(ompd_task_handle_t *task_handle, ompd_address_t *entry_point) {
  SERVE_ONE_CALL();
  if (!entry_point)
    return bad_output(task_handle, ompd_scope_task);
  uint64_t w[1];
  ompd_rc_t rc = words_of(R_GET_TASK_FUNCTION, task_handle, ompd_scope_task, w, 1);
  if (rc == ompd_rc_ok) {
    entry_point->segment = SEGMENT_UNSPECIFIED;
    entry_point->address = w[0];
  }
  return rc;
}

EXPORT ompd_rc_t ompd_get_task_frame(ompd_task_handle_t *task_handle, ompd_frame_info_t *exit_frame,
                                     ompd_frame_info_t *enter_frame) {
  SERVE_ONE_CALL();
  if (!exit_frame || !enter_frame)
    return bad_output(task_handle, ompd_scope_task);
  uint64_t w[4];
  ompd_rc_t rc = words_of(R_GET_TASK_FRAME, task_handle, ompd_scope_task, w, 4);
  if (rc == ompd_rc_ok) {
    exit_frame->frame_address.segment = SEGMENT_UNSPECIFIED;
    exit_frame->frame_address.address = w[0];
    exit_frame->frame_flag = (ompd_word_t)w[1];
    enter_frame->frame_address.segment = SEGMENT_UNSPECIFIED;
    enter_frame->frame_address.address = w[2];
    enter_frame->frame_flag = (ompd_word_t)w[3];
  }
  return rc;
}

/* An unsigned integer of `size` bytes (1..8, little endian) at `address`, read with the debugger's callback. */
static ompd_rc_t read_field(const struct jompd_handle *aspace, uint64_t address, uint64_t size, uint64_t *value) {
  ompd_address_t at = {SEGMENT_UNSPECIFIED, address};
  unsigned char bytes[8] = {0};
  ompd_rc_t rc = cb->read_memory(aspace->context, NULL, &at, size, bytes);
  if (tracing)
    fprintf(stderr, "jompd libompd: read %lu bytes at 0x%lx (in the shim) -> rc %d\n", (unsigned long)size,
            (unsigned long)address, (int)rc);
  if (rc != ompd_rc_ok)
    return ompd_rc_device_read_error; /* as the engine answers a refused read */
  uint64_t v = 0;
  memcpy(&v, bytes, 8); /* x86-64: little endian; the bytes past `size` are 0 */
  *value = v;
  return ompd_rc_ok;
}

/* ompd_get_state: in the shim when the engine handed over where the fields lie (the runtime's layout), with the
   debugger's callbacks at every call, the reads LLVM's library makes (the state, then the wait id when asked)
   and no more; else in the engine. */
EXPORT ompd_rc_t ompd_get_state(ompd_thread_handle_t *thread_handle, ompd_word_t *state, ompd_wait_id_t *wait_id) {
  SERVE_ONE_CALL();
  if (!state)
    return bad_output(thread_handle, ompd_scope_thread);
  CHECK_HANDLE(thread_handle, ompd_scope_thread);
  const struct jompd_handle *h = (const struct jompd_handle *)thread_handle;
  if (!cb)
    return ompd_rc_error;
  if (h->aspace->state_fields == 2) {
    if (h->a == 0)
      return ompd_rc_stale_handle; /* a handle with no runtime address, as the engine answers */
    uint64_t s = 0, w = 0;
    ompd_rc_t rc = read_field(h->aspace, h->a + h->aspace->state_offset, h->aspace->state_size, &s);
    if (rc == ompd_rc_ok && wait_id)
      rc = read_field(h->aspace, h->a + h->aspace->wait_offset, h->aspace->wait_size, &w);
    if (rc != ompd_rc_ok)
      return rc;
    *state = (ompd_word_t)s;
    if (wait_id)
      *wait_id = w;
    return ompd_rc_ok;
  }
  uint64_t w[2];
  ompd_rc_t rc = words_of(R_GET_STATE, thread_handle, ompd_scope_thread, w, 2);
  if (rc == ompd_rc_ok) {
    *state = (ompd_word_t)w[0];
    if (wait_id)
      *wait_id = w[1];
  }
  return rc;
}

EXPORT ompd_rc_t ompd_enumerate_states(ompd_address_space_handle_t *address_space_handle,
                                       ompd_word_t current_state, ompd_word_t *next_state,
                                       const char **next_state_name, ompd_word_t *more_enums) {
  SERVE_ONE_CALL();
  CHECK_HANDLE(address_space_handle, ompd_scope_address_space);
  if (!next_state || !next_state_name || !more_enums)
    return ompd_rc_bad_input;
  if (!cb)
    return ompd_rc_error;
  if (state_count > 0) { /* the engine's list, handed over: the undefined state starts the walk */
    int next = -1;
    if (current_state == (ompd_word_t)states_start)
      next = 0;
    else
      for (int i = 0; i + 1 < state_count; i++)
        if ((ompd_word_t)states[i].code == current_state)
          next = i + 1;
    if (next < 0)
      return ompd_rc_bad_input;
    size_t length = strlen(states[next].name);
    char *name = NULL;
    if (cb->alloc_memory(length + 1, (void **)&name) != ompd_rc_ok || !name)
      return ompd_rc_nomem;
    memcpy(name, states[next].name, length + 1);
    *next_state = (ompd_word_t)states[next].code;
    *next_state_name = name;
    *more_enums = next + 1 < state_count;
    return ompd_rc_ok;
  }
  ompd_rc_t rc = begin_call(R_ENUMERATE_STATES, (struct jompd_handle *)address_space_handle);
  if (rc == ompd_rc_ok)
    put_word(&out, (uint64_t)current_state);
  rc = end_call(rc, R_ENUMERATE_STATES);
  if (rc != ompd_rc_ok)
    return rc;
  uint64_t next = get_word(&in);
  const char *name = NULL;
  rc = get_owned_string(&in, &name);
  uint64_t more = get_word(&in);
  if (rc != ompd_rc_ok || in.bad)
    return rc != ompd_rc_ok ? rc : ompd_rc_error;
  *next_state = (ompd_word_t)next;
  *next_state_name = name;
  *more_enums = (ompd_word_t)more;
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_get_display_control_vars(ompd_address_space_handle_t *address_space_handle,
                                               const char *const **control_vars) {
  SERVE_ONE_CALL();
  CHECK_HANDLE(address_space_handle, ompd_scope_address_space);
  if (!control_vars)
    return ompd_rc_bad_input;
  ompd_rc_t rc = begin_call(R_GET_DISPLAY_CONTROL_VARS, (struct jompd_handle *)address_space_handle);
  rc = end_call(rc, R_GET_DISPLAY_CONTROL_VARS);
  if (rc != ompd_rc_ok)
    return rc;
  uint64_t count = get_word(&in);
  if (in.bad || count > 100000)
    return ompd_rc_error;
  /* one block: count + 1 pointers (NULL-terminated), then the strings */
  size_t start = in.position, total = (count + 1) * sizeof(char *);
  for (uint64_t i = 0; i < count; i++) {
    uint32_t n;
    get_blob(&in, &n);
    total += n + 1;
  }
  if (in.bad)
    return ompd_rc_error;
  in.position = start;
  char *block = NULL;
  if (cb->alloc_memory(total, (void **)&block) != ompd_rc_ok || !block)
    return ompd_rc_nomem;
  const char **pointers = (const char **)block;
  char *text = block + (count + 1) * sizeof(char *);
  for (uint64_t i = 0; i < count; i++) {
    uint32_t n;
    const unsigned char *s = get_blob(&in, &n);
    if (n)
      memcpy(text, s, n);
    text[n] = 0;
    pointers[i] = text;
    text += n + 1;
  }
  pointers[count] = NULL;
  *control_vars = pointers;
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_rel_display_control_vars(const char *const **control_vars) {
  if (!control_vars || !*control_vars)
    return ompd_rc_bad_input;
  if (!cb)
    return ompd_rc_error;
  cb->free_memory((void *)*control_vars);
  *control_vars = NULL;
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_enumerate_icvs(ompd_address_space_handle_t *handle, ompd_icv_id_t current,
                                     ompd_icv_id_t *next_id, const char **next_icv_name,
                                     ompd_scope_t *next_scope, int *more) {
  SERVE_ONE_CALL();
  CHECK_HANDLE(handle, ompd_scope_address_space);
  if (!next_id || !next_icv_name || !next_scope || !more)
    return ompd_rc_bad_input;
  ompd_rc_t rc = begin_call(R_ENUMERATE_ICVS, (struct jompd_handle *)handle);
  if (rc == ompd_rc_ok)
    put_word(&out, current);
  rc = end_call(rc, R_ENUMERATE_ICVS);
  if (rc != ompd_rc_ok)
    return rc;
  uint64_t next = get_word(&in);
  const char *name = NULL;
  rc = get_owned_string(&in, &name);
  uint64_t scope = get_word(&in), more_icvs = get_word(&in);
  if (rc != ompd_rc_ok || in.bad)
    return rc != ompd_rc_ok ? rc : ompd_rc_error;
  *next_id = next;
  *next_icv_name = name;
  *next_scope = (ompd_scope_t)scope;
  *more = (int)more_icvs;
  return ompd_rc_ok;
}

/* The handle behind a void * of `scope`, or NULL. */
static struct jompd_handle *scoped(void *handle, ompd_scope_t scope) {
  (void)scope; /* the engine checks the scope against the handle's kind */
  struct jompd_handle *h = handle;
  if (!h || h->magic != HANDLE_MAGIC || !h->aspace || h->aspace->magic != HANDLE_MAGIC)
    return NULL;
  return h;
}

static ompd_rc_t scoped_call(uint16_t routine, void *handle, ompd_scope_t scope, int has_icv,
                             ompd_icv_id_t icv_id) {
  struct jompd_handle *h = scoped(handle, scope);
  if (!h)
    return ompd_rc_stale_handle;
  ompd_rc_t rc = begin_call(routine, h->aspace);
  if (rc == ompd_rc_ok) {
    put_handle(&out, h);
    put_word(&out, (uint64_t)scope);
    if (has_icv)
      put_word(&out, icv_id);
  }
  return end_call(rc, routine);
}

EXPORT ompd_rc_t ompd_get_icv_from_scope(void *handle, ompd_scope_t scope, ompd_icv_id_t icv_id,
                                         ompd_word_t *icv_value) {
  SERVE_ONE_CALL();
  if (!icv_value)
    return ompd_rc_bad_input;
  ompd_rc_t rc = scoped_call(R_GET_ICV_FROM_SCOPE, handle, scope, 1, icv_id);
  if (rc != ompd_rc_ok && rc != ompd_rc_incomplete)
    return rc;
  uint64_t value = get_word(&in);
  if (in.bad)
    return ompd_rc_error;
  *icv_value = (ompd_word_t)value;
  return rc;
}

EXPORT ompd_rc_t ompd_get_icv_string_from_scope(void *handle, ompd_scope_t scope, ompd_icv_id_t icv_id,
                                                const char **icv_string) {
  SERVE_ONE_CALL();
  if (!icv_string)
    return ompd_rc_bad_input;
  ompd_rc_t rc = scoped_call(R_GET_ICV_STRING_FROM_SCOPE, handle, scope, 1, icv_id);
  return rc != ompd_rc_ok ? rc : get_owned_string(&in, icv_string);
}

EXPORT ompd_rc_t ompd_get_tool_data(void *handle, ompd_scope_t scope, ompd_word_t *value, ompd_address_t *ptr) {
  SERVE_ONE_CALL();
  if (!value || !ptr)
    return ompd_rc_bad_input;
  ompd_rc_t rc = scoped_call(R_GET_TOOL_DATA, handle, scope, 0, 0);
  if (rc != ompd_rc_ok)
    return rc;
  uint64_t v = get_word(&in), p = get_word(&in);
  if (in.bad)
    return ompd_rc_error;
  *value = (ompd_word_t)v;
  ptr->segment = SEGMENT_UNSPECIFIED;
  ptr->address = p;
  return ompd_rc_ok;
}

/* OpenMP 5.2: the host is the only device jompd reads, and its threads have pthread ids (8 bytes). */
EXPORT ompd_rc_t ompd_get_device_thread_id_kinds(ompd_address_space_handle_t *device_handle,
                                                 ompd_thread_id_t **kinds, ompd_size_t **thread_id_sizes,
                                                 int *count) {
  CHECK_HANDLE(device_handle, ompd_scope_address_space);
  if (!kinds || !thread_id_sizes || !count)
    return ompd_rc_bad_input;
  if (!cb)
    return ompd_rc_error;
  ompd_thread_id_t *k = NULL;
  ompd_size_t *s = NULL;
  if (cb->alloc_memory(sizeof *k, (void **)&k) != ompd_rc_ok || !k)
    return ompd_rc_nomem;
  if (cb->alloc_memory(sizeof *s, (void **)&s) != ompd_rc_ok || !s) {
    cb->free_memory(k);
    return ompd_rc_nomem;
  }
  k[0] = 0; /* OMPD_THREAD_ID_PTHREAD */
  s[0] = sizeof(uint64_t);
  *kinds = k;
  *thread_id_sizes = s;
  *count = 1;
  return ompd_rc_ok;
}

EXPORT ompd_rc_t ompd_get_device_from_thread(ompd_thread_handle_t *thread_handle,
                                             ompd_address_space_handle_t **device) {
  CHECK_HANDLE(thread_handle, ompd_scope_thread);
  if (!device)
    return ompd_rc_bad_input;
  /* host threads only: their device is the address space they belong to */
  *device = (ompd_address_space_handle_t *)((struct jompd_handle *)thread_handle)->aspace;
  return ompd_rc_ok;
}
