/*
 * tasks.c [NTASKS [NTHREADS]] -- explicit tasks; a known task chain at the marker while
 * NTASKS (default 2000) deferred tasks are outstanding. NTHREADS (default 4, >= 2).
 *
 * State at the marker (thread k = omp_get_thread_num(), one parallel region, level 1):
 *  - thread 0 (role "marker"): its implicit task is suspended in a taskwait inside a
 *    taskgroup and executes explicit task A (tied, deferred, depend(out: dep)); A created
 *    B (untied, deferred) and runs it itself inside a taskwait; B created C
 *    (final(1) mergeable if(0)), which runs at once and calls the marker. Generation and scheduling parents
 *    coincide: C -> B -> A -> implicit task of thread 0.
 *  - NTASKS deferred tasks, created by thread 0's implicit task after A, each
 *    depend(in: dep) mergeable priority(i % 4): none can start before A completes, so all
 *    are outstanding (in the dependence graph, not in any ready queue).
 *  - thread 1 (role "task"): its implicit task is suspended in a taskwait and executes its
 *    own deferred tied child T1, which waits at the gate.
 *  - thread 2 (role "task", when NTHREADS >= 3): executes an undeferred (if(0)) child T2 of
 *    its implicit task, which waits at the gate.
 *  - threads 3.. (role "gate"): wait at the gate in their implicit tasks.
 * Determinism: thread 0 creates A only after all other threads are at their waiting
 * points, none of which is a task scheduling point, so only thread 0 can run A; likewise
 * thread 1 runs T1 before anybody else reaches a scheduling point.
 * After the marker: A completes, the NTASKS tasks run (on any thread) and add i+1 each;
 * each checks that A had completed before it started.
 */
#include "fixture.h"

#include <omp.h>

static const char *usage = "[NTASKS (0..1000000, default 2000) [NTHREADS (2..256, default 4)]]";

static int ntasks, nthreads;
static int dep; /* the dependence object */
static int a_done;
static unsigned long long task_sum;
static int order_violations;

static void task_c(void) {
  if (!omp_in_final())
    fx_fail("C is not final");
  fx_thread_facts(0, "marker");
  fx_thread_put(0, "task", "C");
  fx_thread_put(0, "implicit_task", "taskwait");
  fx_put("task.C.in_final", "%d", omp_in_final());
  fx_write_facts_and_mark(0);
  fx_gate_open();
}

static void task_b(void) {
  fx_put("task.B.in_final", "%d", omp_in_final());
  /* C: final, mergeable, undeferred; tied (default). */
#pragma omp task final(1) mergeable if(0)
  task_c();
}

static void task_a(void) {
  if (omp_get_thread_num() != 0)
    fx_fail("A runs on thread %d, not 0", omp_get_thread_num());
  fx_put("task.A.in_final", "%d", omp_in_final());
  /* B: untied, deferred. Only this thread is at a scheduling point (the taskwait), so it
   * runs B. (untied together with if(0) trips a libomp debug assertion, td_last_tied.) */
#pragma omp task untied
  task_b();
#pragma omp taskwait
#pragma omp atomic write
  a_done = 1;
}

static void deferred_task(int i) {
  int done;
#pragma omp atomic read
  done = a_done;
  if (!done) {
#pragma omp atomic
    order_violations++;
  }
#pragma omp atomic
  task_sum += (unsigned long long)i + 1;
}

int main(int argc, char **argv) {
  fx_init("tasks", argc, argv);
  fx_arg_max(argc, argv, 2, usage);
  ntasks = fx_arg_int(argc, argv, 1, 2000, 0, 1000000, usage);
  nthreads = fx_arg_int(argc, argv, 2, 4, 2, 256, usage);

  omp_set_dynamic(0);
  fx_put("requested_threads", "%d", nthreads);
  fx_put("tasks_outstanding", "%d", ntasks);
  fx_put("tasks_outstanding.depend", "in");
  fx_put("tasks_outstanding.blocked_on", "A");
  fx_put("task_chain", "C:final,B:untied,A:tied");
  fx_put("task_chain_depth", "3");
  fx_put("task.A.flags", "tied,deferred,depend_out");
  fx_put("task.B.flags", "untied,deferred");
  fx_put("task.C.flags", "tied,final,mergeable,undeferred");
  fx_put("task.C.thread", "0");

#pragma omp parallel num_threads(nthreads)
  {
    int tid = omp_get_thread_num();
    if (omp_get_num_threads() != nthreads)
      fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), nthreads);
    if (tid == 0) {
      fx_gate_await(nthreads - 1);
#pragma omp taskgroup
      {
        /* A: tied, deferred; holds the dependence every other task below waits for. */
#pragma omp task depend(out : dep)
        task_a();
        for (int i = 0; i < ntasks; i++) {
#pragma omp task depend(in : dep) mergeable priority(i % 4) firstprivate(i)
          deferred_task(i);
        }
        /* Only A is ready, and no other thread is at a scheduling point: thread 0 runs A. */
#pragma omp taskwait
      }
    } else if (tid == 1) {
      /* T1: deferred, tied; executed by this thread inside the taskwait. */
#pragma omp task
      {
        if (omp_get_thread_num() != 1)
          fx_fail("T1 runs on thread %d, not 1", omp_get_thread_num());
        fx_thread_facts(1, "task");
        fx_thread_put(1, "task", "T1");
        fx_thread_put(1, "task_flags", "tied,deferred");
        fx_thread_put(1, "implicit_task", "taskwait");
        fx_gate_wait();
      }
#pragma omp taskwait
    } else if (tid == 2) {
      /* T2: undeferred, tied. */
#pragma omp task if(0)
      {
        fx_thread_facts(2, "task");
        fx_thread_put(2, "task", "T2");
        fx_thread_put(2, "task_flags", "tied,undeferred");
        fx_thread_put(2, "implicit_task", "task_creation");
        fx_gate_wait();
      }
    } else {
      fx_thread_facts(tid, "gate");
      fx_thread_put(tid, "implicit_task", "gate");
      fx_gate_wait();
    }
  }

  unsigned long long expect = (unsigned long long)ntasks * (ntasks + 1) / 2;
  if (order_violations)
    fx_fail("%d tasks started before A completed", order_violations);
  if (task_sum != expect)
    fx_fail("task sum %llu != %llu", task_sum, expect);
  fx_ok(task_sum);
  return 0;
}
