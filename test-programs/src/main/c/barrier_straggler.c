/*
 * barrier_straggler.c [N [STRAGGLER [explicit|implicit|mismatch]]] -- a team hangs at a barrier: N-1 threads
 * wait there, one never comes (a hang fixture: see FIXTURES.md, "Hang fixtures").
 *
 * One region of N threads (2..256, default 4). Thread STRAGGLER (0..N-1, default N-2) is stuck in
 * user code, in straggle(): a read() from a pipe nobody writes. Every other thread waits in the
 * barrier: an explicit "#pragma omp barrier" (default), or with "implicit" the implicit barrier at
 * the end of the parallel region. The straggler waits until all of them are inside the barrier's wait
 * (fx_hang_await), writes the facts and blocks; the watcher thread (no OpenMP thread) then calls the
 * marker, prints JOMPD_RESULT ok N and _exit(0)s.
 * With "mismatch" nobody straggles: the barrier is in a branch only threads 0..STRAGGLER-1 take (the classic
 * "#pragma omp barrier" inside an if), so they wait at the explicit barrier while threads STRAGGLER..N-1 wait
 * at the implicit barrier at the end of the region; each barrier waits for the other's threads. Thread 0
 * enters its wait last, once the others are in theirs, and writes the facts first (hang.barrier=mismatch,
 * hang.barrier.line the explicit barrier's, hang.region.line the "#pragma omp parallel"'s, hang.split =
 * STRAGGLER; thread.<k>.role explicit or implicit, thread.<k>.wait_line).
 * Facts: hang.kind=barrier-straggler, hang.expect (the diagnosis in words), hang.barrier=explicit|
 * implicit, hang.barrier.line (the barrier's line: "#pragma omp barrier", or for the implicit one
 * the "#pragma omp parallel" whose region ends there), hang.straggler=<k>, hang.straggler.function,
 * thread.<k>.role (barrier, straggler), thread.<k>.wait_line (where each thread is blocked; k =
 * omp_get_thread_num()).
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *usage = "[N (2..256, default 4) [STRAGGLER (0..N-1, default N-2) [explicit|implicit|mismatch]]]";

static int nthreads, straggler, implicit_barrier, mismatch;

/* The straggler: records where it will be stuck, waits until the others are in the barrier,
 * writes the facts and blocks for good in the read below. */
__attribute__((noinline)) static void straggle(int k) {
  int fd = fx_hang_never_ready_fd();
  char c;
  fx_thread_facts(k, "straggler");
  fx_thread_put(k, "wait_line", "%d", __LINE__ + 5);
  fx_hang_await(nthreads - 1);
  fx_hang_write_facts();
  fx_hang_enter(nthreads - 1);
  for (;;)
    if (read(fd, &c, 1) == 1) /* never: nobody writes the pipe */
      break;
}

/* Threads 0..straggler-1 at an explicit barrier in a branch the others skip, threads straggler..N-1 at the
 * implicit barrier at the region's end. */
static int mismatched_barriers(void) {
  fx_put("hang.kind", "barrier-mismatch");
  fx_put("hang.barrier", "mismatch");
  fx_put("hang.split", "%d", straggler);
  fx_put("hang.expect", "the team of %d: threads 0..%d wait at the explicit barrier, threads %d..%d at the "
         "implicit barrier at the end of the region", nthreads, straggler - 1, straggler, nthreads - 1);
  fx_put("requested_threads", "%d", nthreads);
  fx_hang_watch(nthreads);
  int region_line = __LINE__ + 2;
  fx_put("hang.region.line", "%d", region_line);
#pragma omp parallel num_threads(nthreads)
  {
    int k = omp_get_thread_num();
    if (omp_get_num_threads() != nthreads)
      fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), nthreads);
    if (k < straggler) {
      fx_thread_facts(k, "explicit");
      fx_put("hang.barrier.line", "%d", __LINE__ + 8);
      fx_thread_put(k, "wait_line", "%d", __LINE__ + 7);
      if (k == 0) {
        /* last in: the others are in their waits, so the facts are written before this thread's own */
        fx_hang_await_except(nthreads, 0);
        fx_hang_write_facts();
      }
      fx_hang_enter(k);
#pragma omp barrier
    } else {
      fx_thread_facts(k, "implicit");
      fx_thread_put(k, "wait_line", "%d", region_line);
      fx_hang_enter(k);
    }
  }
  fx_fail("the hang ended");
  return 1;
}

int main(int argc, char **argv) {
  fx_init("barrier_straggler", argc, argv);
  fx_arg_max(argc, argv, 3, usage);
  nthreads = fx_arg_int(argc, argv, 1, 4, 2, 256, usage);
  straggler = fx_arg_int(argc, argv, 2, nthreads - 2, 0, nthreads - 1, usage);
  if (argc > 3 && strcmp(argv[3], "implicit") == 0)
    implicit_barrier = 1;
  else if (argc > 3 && strcmp(argv[3], "mismatch") == 0)
    mismatch = 1;
  else if (argc > 3 && strcmp(argv[3], "explicit") != 0)
    fx_usage_exit(argv, usage, "the barrier is explicit, implicit or mismatch");
  if (mismatch && straggler == 0)
    fx_usage_exit(argv, usage, "a mismatch needs at least thread 0 at the explicit barrier (STRAGGLER >= 1)");
  omp_set_dynamic(0);
  if (mismatch)
    return mismatched_barriers();
  fx_put("hang.kind", "barrier-straggler");
  fx_put("hang.barrier", "%s", implicit_barrier ? "implicit" : "explicit");
  fx_put("hang.straggler", "%d", straggler);
  fx_put("hang.straggler.function", "straggle");
  fx_put("hang.expect", "the team of %d: %d of %d threads wait at the %s barrier, thread %d has not "
         "reached it: it is in straggle (barrier_straggler.c)", nthreads, nthreads - 1, nthreads,
         implicit_barrier ? "implicit" : "explicit", straggler);
  fx_put("requested_threads", "%d", nthreads);
  fx_hang_watch(nthreads);

  int region_line = __LINE__ + 3;
  if (implicit_barrier)
    fx_put("hang.barrier.line", "%d", region_line);
#pragma omp parallel num_threads(nthreads)
  {
    int k = omp_get_thread_num();
    if (omp_get_num_threads() != nthreads)
      fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), nthreads);
    if (k == straggler) {
      straggle(k);
    } else if (implicit_barrier) {
      fx_thread_facts(k, "barrier");
      fx_thread_put(k, "wait_line", "%d", region_line);
      fx_hang_enter(k < straggler ? k : k - 1);
    } else {
      fx_thread_facts(k, "barrier");
      fx_put("hang.barrier.line", "%d", __LINE__ + 3);
      fx_thread_put(k, "wait_line", "%d", __LINE__ + 2);
      fx_hang_enter(k < straggler ? k : k - 1);
#pragma omp barrier
    }
  }
  fx_fail("the hang ended");
}
