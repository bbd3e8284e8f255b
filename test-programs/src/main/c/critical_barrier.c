/*
 * critical_barrier.c [SETTLE_MS] -- a real hang: a thread waits at a barrier inside a critical section
 * that the rest of its team waits to enter.
 *
 * An outer region of 2 threads (max-active-levels 2). Outer thread 0 starts an inner region of 3
 * threads: inner thread 0 enters "critical(gate)", waits until threads 1 and 2 have announced (a
 * counter) that they are about to enter the same critical section, and then reaches "#pragma omp barrier"
 * inside it; threads 1 and 2 wait to enter the critical section, so never reach the barrier.
 * Outer thread 1 is outside the hang: it waits for all three announcements, sleeps SETTLE_MS (default
 * 200) so that each is inside its wait, writes the facts and calls the marker; then JOMPD_RESULT ok and
 * _exit(0).
 * Facts: k = inner thread number 0..2, k = 3 the marker. hang.kind critical-barrier, hang.expect,
 * hang.lock.gate.symbol (the critical name: clang's .gomp_critical_user_gate.var), hang.lock.gate.holder
 * (0), hang.lock.gate.line (the critical construct's line), thread.<k>.role (holder, waiter, marker),
 * .wait_line (thread 0: the orphaned barrier's line in team_barrier()).
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static const char *usage = "[SETTLE_MS (0..10000, default 200)]";

/* An orphaned barrier: clang refuses a barrier written lexically inside a critical construct, not one
 * reached from it (non-conforming all the same, which is the point). */
static int barrier_line;
__attribute__((noinline)) static void team_barrier(void) {
  barrier_line = __LINE__ + 1;
#pragma omp barrier
}

int main(int argc, char **argv) {
  fx_init("critical_barrier", argc, argv);
  fx_arg_max(argc, argv, 1, usage);
  int settle = fx_arg_int(argc, argv, 1, 200, 0, 10000, usage);
  omp_set_dynamic(0);
  omp_set_max_active_levels(2);
  fx_counter *inside = fx_counter_new();  /* 1 once thread 0 is inside the critical section */
  fx_counter *waiting = fx_counter_new(); /* announcements: 2 waiters + the holder at the barrier */
  fx_put("hang.kind", "critical-barrier");
  fx_put("hang.expect", "thread 0 holds critical(gate) and waits at the barrier inside it; threads 1 and 2 "
                        "wait to enter critical(gate) and so never reach that barrier");
  /* The critical name's address: clang's symbol .gomp_critical_user_gate.var, which C cannot name (a
   * declaration of it is renamed); tests read it with gdb. */
  fx_put("hang.lock.gate.symbol", ".gomp_critical_user_gate.var");
  fx_put("hang.lock.gate.holder", "0");

#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1) {
      fx_thread_facts(3, "marker");
      fx_counter_await(waiting, 3);
      fx_thread_put(0, "wait_line", "%d", barrier_line);
      struct timespec ts = {settle / 1000, (settle % 1000) * 1000000L};
      nanosleep(&ts, NULL);
      fx_write_facts_and_mark(3);
      fx_ok(0);
      fflush(stdout);
      _exit(0);
    }
#pragma omp parallel num_threads(3)
    {
      int k = omp_get_thread_num();
      if (omp_get_num_threads() != 3)
        fx_fail("inner team of %d threads, wanted 3", omp_get_num_threads());
      if (k == 0) {
        fx_put("hang.lock.gate.line", "%d", __LINE__ + 1);
#pragma omp critical(gate)
        {
          fx_thread_facts(0, "holder");
          fx_thread_put(0, "holds", "gate");
          fx_counter_add(inside, 1);
          fx_counter_await(waiting, 2);
          fx_counter_add(waiting, 1);
          team_barrier();
        }
      } else {
        fx_counter_await(inside, 1);
        fx_thread_facts(k, "waiter");
        fx_thread_put(k, "waits_for", "gate");
        fx_thread_put(k, "wait_line", "%d", __LINE__ + 2);
        fx_counter_add(waiting, 1);
#pragma omp critical(gate)
        {
          fx_fail("thread %d entered the critical section", k);
        }
      }
    }
  }
  return 0;
}
