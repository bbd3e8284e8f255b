/*
 * lock_deadlock.c [KIND] [SETTLE_MS] -- a real lock-order deadlock, no recorder: who holds what.
 *
 * KIND lock (default): one region of 4 threads; threads 1, 2, 3 take omp_lock_t A, B, C
 * respectively, then each asks for the next one (1 wants B, 2 wants C, 3 wants A): a cycle of three.
 * KIND nest: one region of 3 threads over omp_nest_lock_t A, B; thread 1 takes A twice (depth 2), thread 2
 * takes B once, then 1 asks for B and 2 for A: a cycle of two.
 * KIND stall: one region of 3 threads, each in the cycle: thread k takes omp_lock_t A, B, C (k = 0, 1, 2) and
 * then asks for the next; no OpenMP thread runs, and libomp records no owner: the watcher thread (no OpenMP
 * thread, fx_hang_watch) calls the marker once all three are inside omp_set_lock's wait.
 * Otherwise thread 0 is outside the cycle: it waits until every thread of the cycle has announced (a counter)
 * that it is about to ask for its second lock, sleeps SETTLE_MS (default 200) so that each is inside
 * omp_set_lock's wait, writes the facts and calls the marker. After the marker it prints
 * JOMPD_RESULT ok and ends the process with _exit(0): the deadlock never resolves.
 * Facts: hang.kind, hang.expect, hang.lock.<A|B|C>.address (the omp_lock_t), .holder (k),
 * .depth (nest), thread.<k>.role (marker, cycle), .holds, .waits_for, .wait_line (the line of the
 * omp_set_lock that never returns).
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *usage = "[lock|nest|stall] [SETTLE_MS (0..10000, default 200)]";
static const char *const names[] = {"A", "B", "C"};

int main(int argc, char **argv) {
  fx_init("lock_deadlock", argc, argv);
  fx_arg_max(argc, argv, 2, usage);
  int nest = argc > 1 && strcmp(argv[1], "nest") == 0;
  int stall = argc > 1 && strcmp(argv[1], "stall") == 0;
  if (argc > 1 && !nest && !stall && strcmp(argv[1], "lock") != 0)
    fx_fail("KIND must be lock, nest or stall, not %s", argv[1]);
  int settle = fx_arg_int(argc, argv, 2, 200, 0, 10000, usage);
  int cycle = nest ? 2 : 3; /* threads 1..cycle, one lock each */
  omp_set_dynamic(0);
  static omp_lock_t locks[3];
  static omp_nest_lock_t nest_locks[2];
  for (int i = 0; i < cycle; i++) {
    if (nest)
      omp_init_nest_lock(&nest_locks[i]);
    else
      omp_init_lock(&locks[i]);
    char key[64];
    snprintf(key, sizeof key, "hang.lock.%s.address", names[i]);
    fx_put(key, "%p", nest ? (void *)&nest_locks[i] : (void *)&locks[i]);
    snprintf(key, sizeof key, "hang.lock.%s.holder", names[i]);
    fx_put(key, "%d", stall ? i : i + 1);
    if (nest) {
      snprintf(key, sizeof key, "hang.lock.%s.depth", names[i]);
      fx_put(key, "%d", i == 0 ? 2 : 1);
    }
  }
  fx_put("hang.kind", "lock-order-deadlock");
  fx_put("hang.lock_kind", "%s", nest ? "omp_nest_lock_t" : "omp_lock_t");
  fx_put("hang.expect", "%s", nest ? "deadlock: thread 1 holds A and waits for B, thread 2 holds B and waits for A"
                                   : "deadlock: thread 1 holds A and waits for B, thread 2 holds B and waits for C, "
                                     "thread 3 holds C and waits for A");
  fx_counter *holding = fx_counter_new();
  fx_counter *asking = fx_counter_new();
  if (stall) {
    fx_put("hang.expect", "possible deadlock: every OpenMP thread waits for a lock, none records an owner");
    fx_hang_watch(cycle);
#pragma omp parallel num_threads(cycle)
    {
      int k = omp_get_thread_num();
      if (omp_get_num_threads() != cycle)
        fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), cycle);
      omp_set_lock(&locks[k]);
      fx_thread_facts(k, "cycle");
      fx_thread_put(k, "holds", "%s", names[k]);
      fx_thread_put(k, "waits_for", "%s", names[(k + 1) % cycle]);
      fx_thread_put(k, "wait_line", "%d", __LINE__ + 7);
      fx_counter_add(holding, 1);
      fx_counter_await(holding, cycle);
#pragma omp barrier
      if (k == 0)
        fx_hang_write_facts();
      fx_hang_enter(k);
      omp_set_lock(&locks[(k + 1) % cycle]); /* never returns */
    }
    return 0;
  }

#pragma omp parallel num_threads(cycle + 1)
  {
    int k = omp_get_thread_num();
    if (omp_get_num_threads() != cycle + 1)
      fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), cycle + 1);
    if (k == 0) {
      fx_thread_facts(0, "marker");
      fx_counter_await(asking, cycle);
      struct timespec ts = {settle / 1000, (settle % 1000) * 1000000L};
      nanosleep(&ts, NULL);
      fx_write_facts_and_mark(0);
      fx_ok(0);
      fflush(stdout);
      _exit(0);
    }
    int first = k - 1, second = k % cycle;
    if (nest) {
      omp_set_nest_lock(&nest_locks[first]);
      if (k == 1)
        omp_set_nest_lock(&nest_locks[first]); /* depth 2 */
    } else {
      omp_set_lock(&locks[first]);
    }
    fx_thread_facts(k, "cycle");
    fx_thread_put(k, "holds", "%s", names[first]);
    fx_thread_put(k, "waits_for", "%s", names[second]);
    fx_counter_add(holding, 1);
    fx_counter_await(holding, cycle);
    fx_thread_put(k, "wait_line", "%d", __LINE__ + 2);
    fx_counter_add(asking, 1);
    if (nest) omp_set_nest_lock(&nest_locks[second]); else omp_set_lock(&locks[second]); /* never returns */
  }
  return 0;
}
