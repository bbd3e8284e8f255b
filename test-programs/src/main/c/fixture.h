/*
 * fixture.h -- common harness for jompd's OpenMP fixture programs.
 *
 * Every fixture brings the process into one deterministic state, writes a facts file
 * (Java .properties) describing that state from values it computed itself, and then has
 * exactly ONE thread call jompd_marker(), where a debugger breaks (or, with JOMPD_HOLD=1,
 * where the process waits for a test to attach). After the marker returns the program
 * releases every waiting thread, finishes its work, verifies a result and prints
 * "JOMPD_RESULT ok <checksum>" (exit 0) or "JOMPD_RESULT fail <reason>" (exit 1).
 * Usage errors exit 2. See FIXTURES.md.
 */
#ifndef JOMPD_FIXTURE_H
#define JOMPD_FIXTURE_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The breakpoint target. Called once, by one thread, after the facts file is written.
 * In hold mode (JOMPD_HOLD=1) prints "JOMPD_AT_MARKER <pid>" and blocks until a line
 * (or EOF) arrives on stdin. */
__attribute__((noinline, used)) void jompd_marker(void);

/* ---- facts ------------------------------------------------------------------------ */

/* Starts the facts: fixture=, pid=, openmp_version=, args=, env.<NAME>= for every
 * OMP_*, KMP_*, LIBOMP_* and GOMP_* environment variable. Call first thing in main,
 * before any OpenMP call (it makes none). */
void fx_init(const char *fixture, int argc, char **argv);

/* key=value (printf-style value), process-wide. Thread-safe. A later put of the same key
 * replaces the earlier value. */
void fx_put(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* thread.<k>.<subkey>=value. Thread-safe. */
void fx_thread_put(int k, const char *subkey, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records the standard per-thread keys for OpenMP thread k from the CALLING thread:
 * lwp, pthread, thread_num, level, active_level, team_size, ancestors, team_sizes,
 * role, in_final, max_threads, dynamic, schedule, max_active_levels, thread_limit,
 * proc_bind, default_device, team_num, num_teams. Thread-safe. */
void fx_thread_facts(int k, const char *role);

/* Writes the facts file (if JOMPD_FACTS is set): adds marker_thread=<k>, threads=<number of
 * distinct k recorded> and the process-wide icv.* keys (read by the calling thread), then
 * calls jompd_marker(). Exactly one thread calls this, once. */
void fx_write_facts_and_mark(int marker_k);
/* Only writes the facts file (the caller then calls jompd_marker() itself). */
void fx_write_facts(int marker_k);
/* Same, but first renumbers the threads: k follows the lexicographic order of the
 * thread.<k>.ancestors tuples (for fixtures whose team shapes are only known at run time).
 * marker_k is the marker's index before renumbering. */
void fx_write_facts_and_mark_sorted(int marker_k);

/* ---- the gate: where "working" threads wait (mutex + condition variable, no spinning) -- */

/* Participant: counts itself as arrived and blocks until fx_gate_open(). The arrival is
 * counted under the same mutex the wait releases, so when fx_gate_await(n) returns every
 * counted thread is inside pthread_cond_wait. */
void fx_gate_wait(void);
/* Counts the caller as arrived without blocking (for threads that go on to wait elsewhere). */
void fx_gate_arrive(void);
/* Blocks until at least n participants have arrived. */
void fx_gate_await(long n);
/* For team shapes known only at run time: adds delta to the number of expected arrivals
 * (e.g. team size - 1 by a new team's thread 0), and waits until arrivals >= expected. */
void fx_gate_expect(long delta);
void fx_gate_await_expected(void);
/* Releases all current and future fx_gate_wait callers. */
void fx_gate_open(void);
int fx_gate_is_open(void);

/* ---- counters: small condition-variable counters for phase hand-offs ---------------- */
typedef struct fx_counter fx_counter;
fx_counter *fx_counter_new(void);
void fx_counter_add(fx_counter *c, long delta);
/* Blocks until the value is >= target. */
void fx_counter_await(fx_counter *c, long target);
long fx_counter_get(fx_counter *c);

/* ---- helpers ------------------------------------------------------------------------ */

/* Parses argv[i] as an int in [min, max]; on error prints usage and exits 2. Returns dflt
 * when i >= argc. */
int fx_arg_int(int argc, char **argv, int i, int dflt, int min, int max, const char *usage);
/* Prints "<why>" and the usage line to stderr, exits 2. */
__attribute__((noreturn)) void fx_usage_exit(char **argv, const char *usage, const char *why);
/* Too many arguments -> usage, exit 2. */
void fx_arg_max(int argc, char **argv, int max_args, const char *usage);

/* Prints "JOMPD_RESULT fail <reason>" and exits 1 immediately (_exit: safe inside regions). */
__attribute__((noreturn, format(printf, 1, 2))) void fx_fail(const char *fmt, ...);
/* Prints "JOMPD_RESULT ok <checksum>" and flushes. */
void fx_ok(unsigned long long checksum);

long fx_gettid(void);
/* "monotonic:dynamic,4" etc. from omp_get_schedule. buf >= 64 bytes. */
const char *fx_schedule_string(char *buf, int size);

/* ---- for Fortran (ISO_C_BINDING) ---------------------------------------------------- */
/* Strings are NUL-terminated (pass "name"//c_null_char). */
void fx_f_init(const char *fixture);               /* args from /proc/self/cmdline */
void fx_f_thread_facts(int k, const char *role);
void fx_f_put_int(const char *key, int value);
void fx_f_gate_wait(void);
void fx_f_gate_await(int n);
void fx_f_gate_open(void);
void fx_f_write_facts(int marker_k);
void fx_f_fail(const char *reason);
void fx_f_ok(long long checksum);

/* ---- hang fixtures: threads blocked for good (see FIXTURES.md, "Hang fixtures") ---------- */

/* Each thread that is to hang takes a slot (0..FX_HANG_SLOTS-1) and calls fx_hang_enter(slot)
 * right before its blocking statement, with nothing that could block in between: it records the
 * thread's LWP and pthread_t and marks the slot (an atomic store, no lock). */
enum { FX_HANG_SLOTS = 1024 };
void fx_hang_enter(int slot);
/* Blocks until slots 0..n-1 are entered and each of those threads is inside its wait: asleep in
 * the kernel (state S in /proc/self/task/TID/stat) or, for a runtime wait that spins (libomp
 * spins for the blocktime before it sleeps, and never sleeps in a taskwait or taskgroup), having
 * used 20 ms of CPU time since it was seen entering -- far more than the few instructions
 * between fx_hang_enter and the wait. Fails after 60 s. */
void fx_hang_await(int n);
/* The same for slots 0..n-1 other than `except` (the caller's own slot). */
void fx_hang_await_except(int n, int except);
/* Marks the slot as not waiting: its thread left its wait to do other work (a barrier thread that
 * picked up a task). It enters the slot again right before its next blocking statement; a waiter
 * measures a re-entered slot afresh. */
void fx_hang_leave(int slot);
/* Writes the facts (fx_write_facts, marker_thread=-1: the watcher calls the marker) and lets
 * the watcher go on. Call it from an OpenMP thread once every thread's facts are recorded. */
void fx_hang_write_facts(void);
/* Starts the watcher: a plain pthread that makes no OpenMP call (so it is no OpenMP thread). It
 * waits for fx_hang_write_facts and fx_hang_await(n), calls jompd_marker(), then prints
 * "JOMPD_RESULT ok <n>" and ends the process with _exit(0): a hang cannot be undone. */
void fx_hang_watch(int n);
/* A file descriptor whose reads block for good (a pipe nobody writes): a thread stuck in user
 * code calls read() on it at the line the facts name. */
int fx_hang_never_ready_fd(void);
/* For Fortran. */
void fx_f_hang_enter(int slot);
void fx_f_hang_await(int n);
void fx_f_hang_write_facts(void);
void fx_f_hang_watch(int n);
void fx_f_thread_put_int(int k, const char *subkey, int value);
void fx_f_put_str(const char *key, const char *value);

#ifdef __cplusplus
}
#endif
#endif
