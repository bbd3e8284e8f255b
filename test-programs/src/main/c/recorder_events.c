/*
 * recorder_events.c [N [ROUNDS]] -- a program whose OpenMP events are known, for the jompd-recorder
 * (run it with OMP_TOOL_LIBRARIES=.../libjompd-recorder.so).
 *
 * One region of N threads (default 4) runs ROUNDS rounds (default 12). Each round every thread passes
 * an explicit barrier, then does one action chosen by (thread, round): "lock" (omp_set_lock and
 * omp_unset_lock of one lock), "critical" (enters critical(jompd_rec)), "task" (creates one explicit
 * task and waits for it in a taskwait) or "none". Each thread logs what it did, in order, as the
 * fact thread.<k>.actions (e.g. "barrier,lock,barrier,task,..."), and counts thread.<k>.barriers,
 * .locks, .criticals, .tasks. Then thread 0 calls the marker, the others wait at the gate.
 * Extra facts: rounds, lock_address (the omp_lock_t's address), monotonic_ns_start (CLOCK_MONOTONIC
 * when main began) and monotonic_ns_marker (just before the facts are written).
 */
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static long long monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static const char *usage = "[N (1..64, default 4) [ROUNDS (1..200, default 12)]]";

enum { A_NONE, A_LOCK, A_CRITICAL, A_TASK };
static const char *const action_names[] = {"none", "lock", "critical", "task"};

static int action(int k, int round) { return (int)(((unsigned)(k + 1) * 2654435761u ^ (unsigned)(round + 1) * 40503u) >> 7) % 4; }

int main(int argc, char **argv) {
  long long start_ns = monotonic_ns();
  fx_init("recorder_events", argc, argv);
  fx_arg_max(argc, argv, 2, usage);
  int n = fx_arg_int(argc, argv, 1, 4, 1, 64, usage);
  int rounds = fx_arg_int(argc, argv, 2, 12, 1, 200, usage);
  omp_set_dynamic(0);
  omp_lock_t lock;
  omp_init_lock(&lock);
  long shared = 0;
  fx_put("rounds", "%d", rounds);
  fx_put("lock_address", "%p", (void *)&lock);

#pragma omp parallel num_threads(n)
  {
    int k = omp_get_thread_num();
    if (omp_get_num_threads() != n)
      fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), n);
    static __thread char log[8192];
    log[0] = '\0';
    int counts[4] = {0};
    int barriers = 0;
    for (int r = 0; r < rounds; r++) {
#pragma omp barrier
      barriers++;
      strcat(log, log[0] ? ",barrier" : "barrier");
      int a = action(k, r);
      counts[a]++;
      if (a == A_LOCK) {
        omp_set_lock(&lock);
        shared++;
        omp_unset_lock(&lock);
      } else if (a == A_CRITICAL) {
#pragma omp critical(jompd_rec)
        shared++;
      } else if (a == A_TASK) {
#pragma omp task shared(shared)
        {
#pragma omp atomic
          shared++;
        }
#pragma omp taskwait
      }
      if (a != A_NONE) {
        strcat(log, ",");
        strcat(log, action_names[a]);
      }
    }
    fx_thread_facts(k, k == 0 ? "marker" : "gate");
    fx_thread_put(k, "actions", "%s", log);
    fx_thread_put(k, "barriers", "%d", barriers);
    fx_thread_put(k, "locks", "%d", counts[A_LOCK]);
    fx_thread_put(k, "criticals", "%d", counts[A_CRITICAL]);
    fx_thread_put(k, "tasks", "%d", counts[A_TASK]);
    if (k == 0) {
      fx_gate_await(n - 1);
      fx_put("monotonic_ns_start", "%lld", start_ns);
      fx_put("monotonic_ns_marker", "%lld", monotonic_ns());
      fx_write_facts_and_mark(0);
      fx_gate_open();
    } else {
      fx_gate_wait();
    }
  }
  long expect = 0;
  for (int k = 0; k < n; k++)
    for (int r = 0; r < rounds; r++)
      expect += action(k, r) != A_NONE;
  omp_destroy_lock(&lock);
  if (shared != expect)
    fx_fail("shared %ld != %ld", shared, expect);
  fx_ok((unsigned long long)shared);
  return 0;
}
