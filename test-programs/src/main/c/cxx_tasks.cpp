/*
 * cxx_tasks.cpp -- C++ names and clang's task thunk (built with clang++-19).
 *
 * A parallel region of 2 threads inside a C++ function with internal linkage, so that clang names its
 * outlined function with a mangled name (_ZL...omp_outlined); thread 0 creates a deferred explicit task
 * whose code calls the C++ function leaf(Domain&, int), and runs it at the taskwait (thread 1 waits at the
 * gate, not at a task scheduling point, so it cannot take the task). leaf() calls the marker: thread 0's
 * task chain is then explicit task (entry point clang's .omp_task_entry. thunk) -> implicit task (the
 * mangled outlined function). Facts: task_callee = &leaf as the program sees it, task_callee_name.
 */
#include "fixture.h"

#include <omp.h>
#include <stdio.h>

struct Domain {
  int cells;
};

static int leaf(Domain &domain, int depth);

static void work(Domain &domain, double *result) {
#pragma omp parallel num_threads(2)
  {
    int k = omp_get_thread_num();
    if (k == 0) {
      int value = 0;
#pragma omp task shared(value, domain)
      value = leaf(domain, 1);
#pragma omp taskwait
      *result = value;
    } else {
      fx_thread_facts(k, "gate");
      fx_gate_wait();
    }
  }
}

__attribute__((noinline)) static int leaf(Domain &domain, int depth) {
  fx_thread_facts(0, "task");
  fx_put("task_callee", "%p", (void *)&leaf);
  fx_put("task_callee_name", "%s", "leaf(Domain&, int)");
  fx_gate_await(1);
  fx_write_facts_and_mark(0);
  fx_gate_open();
  return domain.cells + depth;
}

int main(int argc, char **argv) {
  fx_init("cxx_tasks", argc, argv);
  fx_arg_max(argc, argv, 0, "(no arguments)");
  omp_set_dynamic(0);
  Domain domain{41};
  double result = 0;
  work(domain, &result);
  if (result != 42)
    fx_fail("result %g, wanted 42", result);
  fx_ok((unsigned long long)result);
  return 0;
}
