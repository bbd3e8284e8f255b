/*
 * nested_hang.c [S1 [S2]] -- nested teams: one inner team hangs at its barrier for a straggler, and
 * the outer team waits for that team's primary thread (a hang fixture: see FIXTURES.md, "Hang
 * fixtures").
 *
 * omp_set_max_active_levels(2); an outer region of S1 threads (2..16, default 2), in each an inner
 * region of S2 threads (2..16, default 3). The inner team of outer thread S1-1 (team path S1-1) is
 * stuck: its thread S2-1 is in user code (straggle: a read() from a pipe nobody writes), its other
 * threads wait at an explicit barrier of the inner region. Every other inner team ends normally, and
 * their primary threads wait at an explicit barrier of the outer region, which can never complete
 * because outer thread S1-1 is the stuck inner team's primary. The straggler writes the facts once
 * every other thread is in its wait; the watcher thread then calls the marker, prints JOMPD_RESULT ok
 * and _exit(0)s. The other inner teams' workers are back in libomp's pool (no team).
 * k: the stuck inner team's threads are k = 0..S2-1 (their inner thread number), the outer barrier's
 * threads k = S2 + outer thread number.
 * Facts: hang.kind=nested-hang, hang.expect, hang.stuck_team_path (S1-1), hang.straggler (k),
 * hang.straggler.function, hang.inner_barrier.line, hang.outer_barrier.line, thread.<k>.role
 * (barrier, straggler, outer_barrier), thread.<k>.wait_line.
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <unistd.h>

static const char *usage = "[S1 (2..16, default 2) [S2 (2..16, default 3)]]";

static int s1, s2;

/* Slots: the stuck inner team's barrier threads 0..S2-2, the outer barrier's S2-1..S2+S1-3, the
 * straggler last (S1+S2-2). */
__attribute__((noinline)) static void straggle(int k) {
  int fd = fx_hang_never_ready_fd();
  char c;
  fx_thread_facts(k, "straggler");
  fx_thread_put(k, "wait_line", "%d", __LINE__ + 5);
  fx_hang_await(s1 + s2 - 2);
  fx_hang_write_facts();
  fx_hang_enter(s1 + s2 - 2);
  for (;;)
    if (read(fd, &c, 1) == 1) /* never: nobody writes the pipe */
      break;
}

int main(int argc, char **argv) {
  fx_init("nested_hang", argc, argv);
  fx_arg_max(argc, argv, 2, usage);
  s1 = fx_arg_int(argc, argv, 1, 2, 2, 16, usage);
  s2 = fx_arg_int(argc, argv, 2, 3, 2, 16, usage);
  omp_set_dynamic(0);
  omp_set_max_active_levels(2);
  int stuck = s1 - 1;
  fx_put("hang.kind", "nested-hang");
  fx_put("hang.stuck_team_path", "%d", stuck);
  fx_put("hang.straggler", "%d", s2 - 1);
  fx_put("hang.straggler.function", "straggle");
  fx_put("hang.expect", "the inner team of outer thread %d: %d of %d threads wait at its barrier, its "
         "thread %d has not reached it (in straggle); the outer team: %d of %d threads wait at its "
         "barrier, thread %d has not reached it: it is the primary thread of that stuck inner team",
         stuck, s2 - 1, s2, s2 - 1, s1 - 1, s1, stuck);
  fx_put("requested_sizes", "%d,%d", s1, s2);
  fx_hang_watch(s1 + s2 - 1);

#pragma omp parallel num_threads(s1)
  {
    int outer = omp_get_thread_num();
    if (omp_get_num_threads() != s1)
      fx_fail("outer team of %d threads, wanted %d", omp_get_num_threads(), s1);
#pragma omp parallel num_threads(s2)
    {
      int inner = omp_get_thread_num();
      if (omp_get_num_threads() != s2)
        fx_fail("inner team of %d threads, wanted %d", omp_get_num_threads(), s2);
      if (outer == stuck && inner == s2 - 1) {
        straggle(inner);
      } else if (outer == stuck) {
        fx_thread_facts(inner, "barrier");
        fx_put("hang.inner_barrier.line", "%d", __LINE__ + 3);
        fx_thread_put(inner, "wait_line", "%d", __LINE__ + 2);
        fx_hang_enter(inner);
#pragma omp barrier
      }
    }
    /* only the primary threads of the inner teams that ended get here */
    fx_thread_facts(s2 + outer, "outer_barrier");
    fx_put("hang.outer_barrier.line", "%d", __LINE__ + 3);
    fx_thread_put(s2 + outer, "wait_line", "%d", __LINE__ + 2);
    fx_hang_enter(s2 - 1 + outer);
#pragma omp barrier
  }
  fx_fail("the hang ended");
}
