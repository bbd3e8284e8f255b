/*
 * recorder_taskwait.c -- a thread runs a task inside its own taskwait, for the jompd-recorder.
 *
 * One region of 2 threads. Thread 1 waits at the gate in user code (outside the runtime: it cannot take
 * a task). Thread 0 creates task T and waits for it in "#pragma omp taskwait", where it runs T itself; T
 * (on thread 0, inside that taskwait) waits until thread 1 is at the gate, writes the facts, calls the
 * marker and opens the gate.
 * Extra facts: task_line (T's "#pragma omp task"), taskwait_line (the "#pragma omp taskwait"),
 * task_thread (omp_get_thread_num() inside T: 0), thread.0 (role marker, read inside T), thread.1 (gate).
 */
#include "fixture.h"

#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  fx_init("recorder_taskwait", argc, argv);
  fx_arg_max(argc, argv, 0, "");
  omp_set_dynamic(0);
  int ran = 0;

#pragma omp parallel num_threads(2)
  {
    int k = omp_get_thread_num();
    if (omp_get_num_threads() != 2)
      fx_fail("team of %d threads, wanted 2", omp_get_num_threads());
    if (k == 1) {
      fx_thread_facts(1, "gate");
      fx_gate_wait();
    } else {
      fx_put("task_line", "%d", __LINE__ + 1);
#pragma omp task shared(ran)
      {
        fx_gate_await(1);
        fx_put("task_thread", "%d", omp_get_thread_num());
        fx_thread_facts(0, "marker");
        fx_write_facts_and_mark(0);
        fx_gate_open();
        ran = 1;
      }
      fx_put("taskwait_line", "%d", __LINE__ + 1);
#pragma omp taskwait
    }
  }
  if (!ran)
    fx_fail("task T did not run");
  fx_ok(1);
  return 0;
}
