/*
 * waits.c [SETTLE_MS] -- threads in different OpenMP wait states at the marker.
 *
 * One parallel region of exactly 7 threads (k = omp_get_thread_num()):
 *   0 marker   holds lock L (omp_set_lock), is inside the ordered region of iteration 0 of
 *              an "ordered schedule(static,1) nowait" loop, and inside it inside
 *              "critical (jompd_crit)"; calls the marker there.
 *   1 ordered  iteration 1 of the same loop: waits in "#pragma omp ordered" for iteration 0.
 *   2 lock     waits in omp_set_lock(&L).
 *   3 critical waits to enter "critical (jompd_crit)".
 *   4 taskwait waits in "#pragma omp taskwait" for its child task K, which runs on thread 6.
 *   5 barrier  waits in an explicit "#pragma omp barrier" (after a first, empty region).
 *   6 task     executes K (a deferred untied child of thread 4's implicit task, stolen
 *              from inside a taskyield loop); K waits at the gate.
 * Determinism: the waiters start waiting only after thread 0 holds L, the critical section and
 * the ordered region; thread 4 enters the taskwait and thread 5 the barrier only after K has
 * started on thread 6, so nobody else can run K. This program registers a minimal OMPT tool
 * (ompt_start_tool below): its sync_region_wait (explicit barrier, taskwait) and
 * mutex_acquire (lock, critical, ordered) callbacks tell thread 0 that each waiter has
 * entered its runtime wait. libomp sets the thread's OMPT state right around that callback
 * (ordered: just before; barrier, lock: just after), so thread 0 then sleeps SETTLE_MS
 * milliseconds (default 20) to let every waiter pass those few instructions and reach its
 * spin/sleep loop before the facts are written and the marker is called.
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <omp-tools.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static const char *usage = "[SETTLE_MS (0..10000, default 20)]";

enum { NTHREADS = 7 };
enum { W_NONE, W_ORDERED, W_LOCK, W_CRITICAL, W_TASKWAIT, W_BARRIER, W_KINDS };
static const char *const wait_names[W_KINDS] = {"none",     "ordered",  "lock",
                                                "critical", "taskwait", "barrier"};

/* ---- the minimal OMPT tool ------------------------------------------------------------- */

static __thread int my_wait; /* which wait this thread is about to enter */
static fx_counter *entered;  /* waiters whose wait callback has fired */
static uint64_t wait_ids[W_KINDS];
static int set_callback_rc[2];
static int tool_active;

static void note_wait(int kind, uint64_t wait_id) {
  if (my_wait != kind)
    return;
  my_wait = W_NONE;
  wait_ids[kind] = wait_id;
  fx_counter_add(entered, 1);
}

/* The sync-region kind libomp reports for the implicit barrier at the end of a parallel
 * region: ompt_sync_region_barrier_implicit_parallel (9) from LLVM 19 on, the deprecated
 * ompt_sync_region_barrier_implicit (2) before. The same LLVM 19 change (llvm-project PR 95602)
 * made a thread waiting in an explicit barrier report ompt_state_wait_barrier_explicit (0x14)
 * instead of the deprecated ompt_state_wait_barrier (0x10), so this tells the states apart. */
static int implicit_barrier_kind = -1;

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr_ra) {
  (void)parallel_data, (void)task_data, (void)codeptr_ra;
  if (endpoint != ompt_scope_begin)
    return;
  if (kind != ompt_sync_region_barrier_explicit && kind != ompt_sync_region_taskwait &&
      implicit_barrier_kind < 0)
    __atomic_store_n(&implicit_barrier_kind, (int)kind, __ATOMIC_SEQ_CST);
  if (kind == ompt_sync_region_barrier_explicit)
    note_wait(W_BARRIER, 0);
  else if (kind == ompt_sync_region_taskwait)
    note_wait(W_TASKWAIT, 0);
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr_ra) {
  (void)hint, (void)impl, (void)codeptr_ra;
  if (kind == ompt_mutex_lock)
    note_wait(W_LOCK, wait_id);
  else if (kind == ompt_mutex_critical)
    note_wait(W_CRITICAL, wait_id);
  else if (kind == ompt_mutex_ordered)
    note_wait(W_ORDERED, wait_id);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data) {
  (void)initial_device_num, (void)tool_data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set_callback)
    return 0;
  set_callback_rc[0] =
      set_callback(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
  set_callback_rc[1] = set_callback(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
  tool_active = 1;
  return 1;
}

static void tool_finalize(ompt_data_t *tool_data) { (void)tool_data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  return &result;
}

/* ---- the program ----------------------------------------------------------------------- */

static omp_lock_t L;
static fx_counter *held;      /* 1 once thread 0 holds lock, ordered and critical */
static fx_counter *k_started; /* 1 once K runs on thread 6 */
static int settle_ms;
static unsigned long long sum;

/* The OMPT state libomp keeps in the thread (th.ompt_thread_info.state) during the wait. */
#define STATE(k, s) (fx_thread_put((k), "omp_state", "%s", #s), \
                     fx_thread_put((k), "omp_state_value", "0x%x", (unsigned)ompt_state_##s))

static void marker_thread(void) {
  /* Thread 0: holds L (taken before the loop), is in ordered(iteration 0) and critical. */
  fx_thread_facts(0, "marker");
  fx_thread_put(0, "holds", "lock,ordered,critical");
  STATE(0, work_parallel);
  fx_counter_add(held, 1);
  fx_gate_await(1);               /* K is at the gate, on thread 6 */
  fx_counter_await(entered, 5);   /* ordered, lock, critical, taskwait, barrier */
  /* Settle: see the comment at the top of the file. */
  struct timespec ts = {settle_ms / 1000, (long)(settle_ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0)
    ;
  fx_put("settle_ms", "%d", settle_ms);
  fx_put("lock_address", "0x%lx", (unsigned long)(uintptr_t)&L);
  for (int w = W_ORDERED; w <= W_CRITICAL; w++) {
    char key[64];
    snprintf(key, sizeof key, "ompt_wait_id.%s", wait_names[w]);
    fx_put(key, "0x%lx", (unsigned long)wait_ids[w]);
  }
  fx_put("ompt.set_callback.sync_region_wait", "%d", set_callback_rc[0]);
  fx_put("ompt.set_callback.mutex_acquire", "%d", set_callback_rc[1]);
  fx_write_facts_and_mark(0);
  omp_unset_lock(&L);
  fx_gate_open();
}

static void waiter_facts(int k, int kind) {
  fx_thread_facts(k, wait_names[kind]);
  my_wait = kind;
}

int main(int argc, char **argv) {
  fx_init("waits", argc, argv);
  fx_arg_max(argc, argv, 1, usage);
  settle_ms = fx_arg_int(argc, argv, 1, 20, 0, 10000, usage);
  entered = fx_counter_new();
  held = fx_counter_new();
  k_started = fx_counter_new();

  omp_set_dynamic(0);
  omp_init_lock(&L);
  /* A first region, only to learn from its implicit barrier which barrier states the
   * runtime reports (see implicit_barrier_kind). */
#pragma omp parallel num_threads(2)
  {
  }
  if (!tool_active)
    fx_fail("the program's OMPT tool is not active (OMP_TOOL=disabled?)");
  if (set_callback_rc[0] != ompt_set_always || set_callback_rc[1] != ompt_set_always)
    fx_fail("ompt_set_callback answered %d and %d", set_callback_rc[0], set_callback_rc[1]);
  fx_put("ompt.implicit_barrier_kind", "%d", implicit_barrier_kind);
  fx_put("requested_threads", "%d", NTHREADS);
  fx_put("critical_name", "jompd_crit");

#pragma omp parallel num_threads(NTHREADS)
  {
    int tid = omp_get_thread_num();
    if (omp_get_num_threads() != NTHREADS)
      fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), NTHREADS);
    if (tid == 0)
      omp_set_lock(&L);

#pragma omp for ordered schedule(static, 1) nowait
    for (int i = 0; i < 2; i++) {
      if (i == 1) {
        fx_counter_await(held, 1);
        STATE(tid, wait_ordered);
        waiter_facts(tid, W_ORDERED);
      }
#pragma omp ordered
      {
        if (i == 0) {
#pragma omp critical(jompd_crit)
          {
            marker_thread();
#pragma omp atomic
            sum += 1;
          }
        } else {
#pragma omp atomic
          sum += 2;
        }
      }
    }

    switch (tid) {
    case 0:
    case 1:
      break;
    case 2:
      fx_counter_await(held, 1);
      STATE(tid, wait_lock);
      waiter_facts(tid, W_LOCK);
      omp_set_lock(&L);
#pragma omp atomic
      sum += 4;
      omp_unset_lock(&L);
      break;
    case 3:
      fx_counter_await(held, 1);
      /* Not wait_critical: libomp (14..19) sets wait_critical only on a local copy of the
       * thread's OMPT info (kmp_csupport.cpp, __kmpc_critical*: "ti = ...ompt_thread_info"),
       * and the critical section's queuing lock then sets wait_lock in the thread itself
       * (kmp_lock.cpp, __kmp_acquire_queuing_lock_timed_template), with the lock as wait id. */
      STATE(tid, wait_lock);
      waiter_facts(tid, W_CRITICAL);
#pragma omp critical(jompd_crit)
      {
#pragma omp atomic
        sum += 8;
      }
      break;
    case 4:
      /* K: deferred, untied child of this implicit task; run by thread 6. (Untied: inside a
       * taskyield libomp lets a thread run only descendants of its own current task when the
       * new task is tied -- the task scheduling constraint -- so a tied K could not move.) */
#pragma omp task untied
      {
        if (omp_get_thread_num() != 6)
          fx_fail("K runs on thread %d, not 6", omp_get_thread_num());
        fx_thread_facts(6, "task");
        fx_thread_put(6, "task", "K");
        fx_thread_put(6, "task_flags", "untied,deferred");
        fx_thread_put(6, "task_parent_thread", "4");
        fx_thread_put(6, "implicit_task", "taskyield");
        STATE(6, work_parallel);
        fx_counter_add(k_started, 1);
        fx_gate_wait();
#pragma omp atomic
        sum += 16;
      }
      fx_counter_await(k_started, 1);
      /* libomp sets no wait state for taskwait: the state stays work_parallel. */
      STATE(tid, work_parallel);
      waiter_facts(tid, W_TASKWAIT);
      fx_thread_put(tid, "waits_for", "K");
#pragma omp taskwait
      break;
    case 5:
      fx_counter_await(k_started, 1);
      if (implicit_barrier_kind == ompt_sync_region_barrier_implicit_parallel) {
        STATE(tid, wait_barrier_explicit);
      } else { /* libomp before LLVM 19 */
        fx_thread_put(tid, "omp_state", "wait_barrier");
        fx_thread_put(tid, "omp_state_value", "0x10");
      }
      waiter_facts(tid, W_BARRIER);
      break; /* into the barrier below */
    case 6: {
      int started = 0;
      while (!started) {
#pragma omp taskyield
        started = fx_counter_get(k_started) > 0;
      }
      break;
    }
    }
#pragma omp barrier
#pragma omp atomic
    sum += 100;
  }
  omp_destroy_lock(&L);

  unsigned long long expect = 1 + 2 + 4 + 8 + 16 + 100 * NTHREADS;
  if (sum != expect)
    fx_fail("sum %llu != %llu", sum, expect);
  fx_ok(sum);
  return 0;
}
