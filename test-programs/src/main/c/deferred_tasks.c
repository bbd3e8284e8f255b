/*
 * deferred_tasks.c [N0 [N1 [M [NTHREADS]]]] -- explicit tasks created and not started: N0 (default 6) in thread
 * 0's deque, N1 (default 2) in thread 1's, and M (default 3) waiting for their dependences on a task P that waits
 * in thread 0's deque itself. NTHREADS (default 3, >= 2).
 *
 * State at the marker (one parallel region of NTHREADS threads, level 1; thread k = omp_get_thread_num()):
 *  - thread 1 (role "gate"): created N1 deferred tasks (construct at deferred.t1.line), then waits at the gate.
 *  - threads 2.. (role "gate"): wait at the gate in their implicit tasks.
 *  - thread 0 (role "marker"): once every other thread is at the gate, created N0 deferred tasks (construct at
 *    deferred.t0.line), then P (depend(out: dep), at deferred.p.line), then M tasks depend(in: dep) (at
 *    deferred.d.line), and calls the marker in user code.
 * Nobody has reached a task scheduling point since the tasks were created (the gate is a mutex and condition
 * variable; a task construct whose task is pushed to the deque runs nothing), so libomp's deques hold
 * N0 + 1 tasks (thread 0's: the N0 tasks, then P) and N1 (thread 1's), and the M tasks sit in P's dependence node.
 * After the marker the gate opens, every task runs (at the region's end barrier), records itself, and checks it
 * ran after the marker; each of the M ran after P.
 */
#include "fixture.h"

#include <omp.h>

static const char *usage = "[N0 (0..200, default 6) [N1 (0..200, default 2) [M (0..200, default 3) "
                           "[NTHREADS (2..64, default 3)]]]]";

static int dep;
static int ran_t0, ran_t1, ran_p, ran_d, early, order;

static void ran(int *counter) {
  if (!fx_gate_is_open()) {
#pragma omp atomic
    early++;
  }
#pragma omp atomic
  (*counter)++;
}

int main(int argc, char **argv) {
  fx_init("deferred_tasks", argc, argv);
  fx_arg_max(argc, argv, 4, usage);
  int n0 = fx_arg_int(argc, argv, 1, 6, 0, 200, usage);
  int n1 = fx_arg_int(argc, argv, 2, 2, 0, 200, usage);
  int m = fx_arg_int(argc, argv, 3, 3, 0, 200, usage);
  int nthreads = fx_arg_int(argc, argv, 4, 3, 2, 64, usage);

  omp_set_dynamic(0);
  fx_put("requested_threads", "%d", nthreads);
  fx_put("deferred.t0.count", "%d", n0);
  fx_put("deferred.t1.count", "%d", n1);
  fx_put("deferred.p.count", "1");
  fx_put("deferred.d.count", "%d", m);
  fx_put("deferred.total", "%d", n0 + n1 + 1 + m);

#pragma omp parallel num_threads(nthreads)
  {
    int tid = omp_get_thread_num();
    if (omp_get_num_threads() != nthreads)
      fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), nthreads);
    if (tid == 0) {
      fx_gate_await(nthreads - 1);
      fx_thread_facts(0, "marker");
      fx_put("deferred.t0.line", "%d", __LINE__ + 2);
      for (int i = 0; i < n0; i++) {
#pragma omp task
        ran(&ran_t0);
      }
      fx_put("deferred.p.line", "%d", __LINE__ + 1);
#pragma omp task depend(out : dep)
      {
        ran(&ran_p);
      }
      fx_put("deferred.d.line", "%d", __LINE__ + 2);
      for (int i = 0; i < m; i++) {
#pragma omp task depend(in : dep)
        {
          int p_done;
#pragma omp atomic read
          p_done = ran_p;
          if (!p_done) {
#pragma omp atomic
            order++;
          }
          ran(&ran_d);
        }
      }
      fx_write_facts_and_mark(0);
      fx_gate_open();
    } else {
      if (tid == 1) {
        fx_put("deferred.t1.line", "%d", __LINE__ + 2);
        for (int i = 0; i < n1; i++) {
#pragma omp task
          ran(&ran_t1);
        }
      }
      fx_thread_facts(tid, "gate");
      fx_gate_wait();
    }
  }

  if (early)
    fx_fail("%d tasks ran before the marker", early);
  if (order)
    fx_fail("%d dependent tasks ran before P", order);
  if (ran_t0 != n0 || ran_t1 != n1 || ran_p != 1 || ran_d != m)
    fx_fail("ran %d/%d, %d/%d, %d/1, %d/%d tasks", ran_t0, n0, ran_t1, n1, ran_p, ran_d, m);
  fx_ok((unsigned long long)(ran_t0 + ran_t1 + ran_p + ran_d));
  return 0;
}
