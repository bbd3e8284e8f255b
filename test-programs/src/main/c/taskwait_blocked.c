/*
 * taskwait_blocked.c [N [CHILDREN [taskwait|taskgroup [grandchild]]]] -- a task waits for child tasks, one
 * of which is blocked for good (a hang fixture: see FIXTURES.md, "Hang fixtures").
 *
 * One region of N threads (2..64, default 3). Thread 0's implicit task creates child task C1
 * (deferred, depend(out: dep)), blocked in user code (blocked_child: a read() from a pipe nobody
 * writes), and CHILDREN-1 more (1..1000 in all, default 3), each depend(in: dep): none can start
 * before C1 completes. Threads 1..N-1 go to an explicit barrier, where one of them takes C1 and runs
 * it. Once C1 runs, thread 0 waits for its children in "#pragma omp taskwait" (default) or at the end
 * of a "#pragma omp taskgroup" that encloses their creation. The barrier threads wait for thread 0.
 * Thread 0 writes the facts once C1 is blocked and the other barrier threads are in their waits; the
 * watcher thread then calls the marker, prints JOMPD_RESULT ok N and _exit(0)s.
 * With "grandchild" (N >= 3) C1 first creates task G (blocked_grandchild: a read() too) and waits until
 * another barrier thread runs it, then blocks: thread 0's child C1 runs on one thread, its descendant G on
 * another, which C1 is not suspended on (hang.task.G.line, hang.task.G.thread, hang.task.G.wait_line;
 * that thread's role: grandchild).
 * Facts: hang.kind=taskwait-blocked, hang.expect, hang.construct=taskwait|taskgroup, hang.waiter=0,
 * hang.wait_line (the line thread 0 is blocked at: the taskwait, or the end of the taskgroup),
 * hang.children (CHILDREN), hang.children.running=1, hang.children.not_started=CHILDREN-1,
 * hang.task.C1.line (its "#pragma omp task"), hang.task.C1.thread (k of the thread running it),
 * hang.task.C1.wait_line (the read), hang.barrier.line; thread.<k>.role (taskwait, task, barrier)
 * and .wait_line; k = omp_get_thread_num().
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *usage = "[N (2..64, default 3) [CHILDREN (1..1000, default 3) [taskwait|taskgroup [grandchild]]]]";

static int nthreads, children, in_taskgroup, with_grandchild;
static fx_counter *c1_started, *g_started;

/* G's code (with "grandchild"): blocks for good in the read below, on a barrier thread other than C1's. */
__attribute__((noinline)) static void blocked_grandchild(void) {
  int fd = fx_hang_never_ready_fd();
  int k = omp_get_thread_num();
  char c;
  fx_thread_facts(k, "grandchild");
  fx_put("hang.task.G.thread", "%d", k);
  fx_put("hang.task.G.wait_line", "%d", __LINE__ + 4);
  fx_thread_put(k, "wait_line", "%d", __LINE__ + 3);
  fx_counter_add(g_started, 1);
  for (;;)
    if (read(fd, &c, 1) == 1) /* never: nobody writes the pipe */
      break;
}

/* With "grandchild", C1's first deed: G, run by another barrier thread before C1 goes on. */
static void grandchild_first(void) {
  if (!with_grandchild)
    return;
  fx_put("hang.task.G.line", "%d", __LINE__ + 1);
#pragma omp task
  blocked_grandchild();
  fx_counter_await(g_started, 1);
}

/* C1's code: blocks for good in the read below. The barrier thread that runs it entered its hang
 * slot before the barrier; thread 0 waits for c1_started first, so its fx_hang_await sees this
 * thread asleep in the read (nothing after the counter blocks but the read). */
__attribute__((noinline)) static void blocked_child(void) {
  int fd = fx_hang_never_ready_fd();
  int k = omp_get_thread_num();
  char c;
  grandchild_first();
  fx_thread_facts(k, "task");
  fx_put("hang.task.C1.thread", "%d", k);
  fx_put("hang.task.C1.wait_line", "%d", __LINE__ + 4);
  fx_thread_put(k, "wait_line", "%d", __LINE__ + 3);
  fx_counter_add(c1_started, 1);
  for (;;)
    if (read(fd, &c, 1) == 1) /* never: nobody writes the pipe */
      break;
}

/* Thread 0 before it waits: C1 runs, the other barrier threads are in their waits. */
static void before_the_wait(int wait_line) {
  fx_counter_await(c1_started, 1);
  fx_hang_await(nthreads - 1);
  fx_put("hang.wait_line", "%d", wait_line);
  fx_thread_put(0, "wait_line", "%d", wait_line);
  fx_hang_write_facts();
  fx_hang_enter(nthreads - 1);
}

int main(int argc, char **argv) {
  fx_init("taskwait_blocked", argc, argv);
  fx_arg_max(argc, argv, 4, usage);
  nthreads = fx_arg_int(argc, argv, 1, 3, 2, 64, usage);
  children = fx_arg_int(argc, argv, 2, 3, 1, 1000, usage);
  if (argc > 3 && strcmp(argv[3], "taskgroup") == 0)
    in_taskgroup = 1;
  else if (argc > 3 && strcmp(argv[3], "taskwait") != 0)
    fx_usage_exit(argv, usage, "the construct is taskwait or taskgroup");
  if (argc > 4 && strcmp(argv[4], "grandchild") == 0)
    with_grandchild = 1;
  else if (argc > 4)
    fx_usage_exit(argv, usage, "the fourth argument is grandchild");
  if (with_grandchild && nthreads < 3)
    fx_usage_exit(argv, usage, "a grandchild needs 3 threads: C1's, G's and thread 0");
  omp_set_dynamic(0);
  c1_started = fx_counter_new();
  g_started = fx_counter_new();
  const char *construct = in_taskgroup ? "taskgroup" : "taskwait";
  fx_put("hang.kind", "taskwait-blocked");
  fx_put("hang.construct", "%s", construct);
  fx_put("hang.waiter", "0");
  fx_put("hang.children", "%d", children);
  fx_put("hang.children.running", "1");
  fx_put("hang.children.not_started", "%d", children - 1);
  fx_put("hang.expect", "thread 0's implicit task waits %s for %d child tasks: C1 runs on another thread "
         "and is blocked in blocked_child (taskwait_blocked.c), %d have not started (they depend on C1); "
         "the other threads wait at the barrier for thread 0",
         in_taskgroup ? "at the end of a taskgroup" : "in a taskwait", children, children - 1);
  fx_put("requested_threads", "%d", nthreads);
  fx_hang_watch(nthreads);
  int dep = 0;

#pragma omp parallel num_threads(nthreads) shared(dep)
  {
    int k = omp_get_thread_num();
    if (omp_get_num_threads() != nthreads)
      fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), nthreads);
    if (k == 0) {
      fx_thread_facts(0, construct);
      if (!in_taskgroup) {
        fx_put("hang.task.C1.line", "%d", __LINE__ + 1);
#pragma omp task depend(out: dep) shared(dep)
        blocked_child();
        for (int i = 1; i < children; i++) {
#pragma omp task depend(in: dep) shared(dep)
          dep += 0;
        }
        before_the_wait(__LINE__ + 1);
#pragma omp taskwait
      } else {
#pragma omp taskgroup
        {
          fx_put("hang.task.C1.line", "%d", __LINE__ + 1);
#pragma omp task depend(out: dep) shared(dep)
          blocked_child();
          for (int i = 1; i < children; i++) {
#pragma omp task depend(in: dep) shared(dep)
            dep += 0;
          }
          before_the_wait(__LINE__ + 1);
        } /* the end of the taskgroup: thread 0 waits here */
      }
    } else {
      /* slots 0..N-2: the barrier threads (one of them runs C1 from the barrier); N-1: thread 0 */
      fx_thread_facts(k, "barrier");
      fx_put("hang.barrier.line", "%d", __LINE__ + 3);
      fx_thread_put(k, "wait_line", "%d", __LINE__ + 2);
      fx_hang_enter(k - 1);
#pragma omp barrier
    }
  }
  fx_fail("the hang ended");
}
