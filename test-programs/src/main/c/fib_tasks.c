/*
 * fib_tasks.c [N] -- BOTS fib's shape: two task constructs in one recursive function, each task's code a
 * single call of that same function (x = fib(n - 1), y = fib(n - 2)). Built at -O2 by clang, each task's
 * outlined code is inlined into its .omp_task_entry. thunk, and both thunks call nothing but fib: only
 * the debug information tells the two constructs apart. N (2..30, default 10).
 *
 * A region of 2 threads: thread 1 waits at the gate (no task scheduling point, so it takes no task);
 * thread 0 computes fib(N) with deferred tasks, which it runs itself at its taskwaits. The first time a
 * base case (n < 2) runs inside tasks of both constructs, it records the facts and calls the marker, with
 * every task of the chain live on thread 0's stack.
 * Facts: task.x.line and task.y.line (the lines of the two `#pragma omp task`), task_chain (the
 * construct of each explicit task running on thread 0, innermost first: "x,y,y,y,y"), task_chain_depth,
 * fib_n, fib_result (checked after the marker).
 */
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

static const char *usage = "[N (2..30, default 10)]";

enum { FROM_MAIN, FROM_X, FROM_Y };
enum { MAX_DEPTH = 64 };

/* The constructs of the tasks running on this thread, outermost first (thread 0 runs them all). */
static __thread int chain[MAX_DEPTH];
static __thread int chain_depth;
static int marked;
static int x_line, y_line; /* the lines of the two task constructs, as the compiler numbers them */

__attribute__((noinline)) static void base_case_in_tasks(void) {
  int x = 0, y = 0;
  char text[3 * MAX_DEPTH] = "";
  for (int d = chain_depth - 1; d >= 0; d--) {
    x += chain[d] == FROM_X;
    y += chain[d] == FROM_Y;
    strcat(text, chain[d] == FROM_X ? "x" : "y");
    if (d > 0)
      strcat(text, ",");
  }
  if (marked || x == 0 || y == 0)
    return;
  marked = 1;
  fx_thread_facts(0, "marker");
  fx_put("task.x.line", "%d", x_line);
  fx_put("task.y.line", "%d", y_line);
  fx_put("task_chain", "%s", text);
  fx_put("task_chain_depth", "%d", chain_depth);
  fx_gate_await(1);
  fx_write_facts_and_mark(0);
  fx_gate_open();
}

static int fib(int n, int from) {
  int x, y;
  if (from != FROM_MAIN)
    chain[chain_depth++] = from;
  if (chain_depth >= MAX_DEPTH)
    fx_fail("task chain deeper than %d", MAX_DEPTH);
  if (n < 2) {
    base_case_in_tasks();
    if (from != FROM_MAIN)
      chain_depth--;
    return n;
  }
  x_line = __LINE__ + 1;
#pragma omp task shared(x) firstprivate(n)
  x = fib(n - 1, FROM_X);
  y_line = __LINE__ + 1;
#pragma omp task shared(y) firstprivate(n)
  y = fib(n - 2, FROM_Y);
#pragma omp taskwait
  if (from != FROM_MAIN)
    chain_depth--;
  return x + y;
}

int main(int argc, char **argv) {
  fx_init("fib_tasks", argc, argv);
  fx_arg_max(argc, argv, 1, usage);
  int n = fx_arg_int(argc, argv, 1, 10, 2, 30, usage);
  omp_set_dynamic(0);
  fx_put("fib_n", "%d", n);
  int result = 0;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_num_threads() != 2)
      fx_fail("team of %d threads, wanted 2", omp_get_num_threads());
    if (omp_get_thread_num() == 0) {
      fx_gate_await(1);
      result = fib(n, FROM_MAIN);
    } else {
      fx_thread_facts(1, "gate");
      fx_gate_wait();
    }
  }
  int a = 0, b = 1;
  for (int i = 0; i < n; i++) {
    int next = a + b;
    a = b;
    b = next;
  }
  if (!marked)
    fx_fail("no base case ran inside tasks of both constructs");
  if (result != a)
    fx_fail("fib(%d) = %d, wanted %d", n, result, a);
  fx_ok((unsigned long long)result);
  return 0;
}
