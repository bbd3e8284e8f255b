/*
 * recorder_deadlock.c [SETTLE_MS] -- a lock-order deadlock for the jompd-recorder: who holds what.
 *
 * One region of 3 threads. Thread 1 takes lock A, thread 2 takes lock B; once both hold theirs,
 * thread 1 asks for B and thread 2 for A: neither can go on. Each announces (a counter) just before
 * its second omp_set_lock; thread 0 waits for both announcements, sleeps SETTLE_MS (default 200) so
 * that both are inside omp_set_lock's wait, writes the facts and calls the marker. After the marker it
 * prints JOMPD_RESULT ok and ends the process with _exit(0): the deadlock never resolves.
 * Extra facts: lock_a, lock_b (addresses of the omp_lock_t), thread.<k>.holds, thread.<k>.waits_for
 * ("A" or "B", k = 1, 2), thread.<k>.holds_line and .waits_line (the lines of its two omp_set_lock calls).
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static const char *usage = "[SETTLE_MS (0..10000, default 200)]";

int main(int argc, char **argv) {
  fx_init("recorder_deadlock", argc, argv);
  fx_arg_max(argc, argv, 1, usage);
  int settle = fx_arg_int(argc, argv, 1, 200, 0, 10000, usage);
  omp_set_dynamic(0);
  omp_lock_t a, b;
  omp_init_lock(&a);
  omp_init_lock(&b);
  fx_put("lock_a", "%p", (void *)&a);
  fx_put("lock_b", "%p", (void *)&b);
  fx_counter *holding = fx_counter_new();
  fx_counter *asking = fx_counter_new();

#pragma omp parallel num_threads(3)
  {
    int k = omp_get_thread_num();
    if (omp_get_num_threads() != 3)
      fx_fail("team of %d threads, wanted 3", omp_get_num_threads());
    if (k == 0) {
      fx_thread_facts(0, "marker");
      fx_counter_await(asking, 2);
      struct timespec ts = {settle / 1000, (settle % 1000) * 1000000L};
      nanosleep(&ts, NULL);
      fx_write_facts_and_mark(0);
      fx_ok(0);
      fflush(stdout);
      _exit(0);
    }
    omp_lock_t *first = k == 1 ? &a : &b;
    omp_lock_t *second = k == 1 ? &b : &a;
    int holds_line = __LINE__ + 1;
    omp_set_lock(first);
    fx_thread_facts(k, "lock");
    fx_thread_put(k, "holds", "%s", k == 1 ? "A" : "B");
    fx_thread_put(k, "waits_for", "%s", k == 1 ? "B" : "A");
    fx_thread_put(k, "holds_line", "%d", holds_line);
    fx_thread_put(k, "waits_line", "%d", __LINE__ + 4);
    fx_counter_add(holding, 1);
    fx_counter_await(holding, 2);
    fx_counter_add(asking, 1);
    omp_set_lock(second); /* never returns */
    omp_unset_lock(second);
    omp_unset_lock(first);
  }
  return 0;
}
