/*
 * critical_names.c -- a hang in two critical sections, one named and one unnamed, so that a diagnosis can
 * be checked to say each by the name the program gave it (a hang fixture: see FIXTURES.md, "Hang fixtures").
 *
 * One region of 4 threads. Thread 0 enters "critical(big)" and, inside it, the unnamed "critical"; then it
 * blocks for good in user code (a read() from a pipe nobody writes). Threads 1 and 2 wait to enter
 * critical(big), thread 3 waits to enter the unnamed critical. Thread 0 waits until the three are inside
 * their waits (fx_hang_await), writes the facts and blocks; the watcher calls the marker, prints
 * JOMPD_RESULT ok and _exit(0)s.
 * The compiler passes each critical construct's name as a variable: clang's .gomp_critical_user_big.var
 * and, for the unnamed one, .gomp_critical_user_.var.
 * Facts: hang.kind=critical-names, hang.expect, hang.critical.<big|unnamed>.symbol (that variable's
 * symbol), .name (the construct as the program wrote it: "critical(big)", "unnamed critical"), .line (the
 * construct's line), .waiters (how many threads wait to enter it), .holder (0); thread.<k>.role (holder,
 * waiter), .waits_for (big, unnamed), .wait_line; k = omp_get_thread_num().
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <omp.h>
#include <unistd.h>

int main(int argc, char **argv) {
  fx_init("critical_names", argc, argv);
  fx_arg_max(argc, argv, 0, "(no arguments)");
  omp_set_dynamic(0);
  fx_put("hang.kind", "critical-names");
  fx_put("hang.expect", "thread 0 holds critical(big) and the unnamed critical and is stuck in read(); threads 1 "
                        "and 2 wait to enter critical(big), thread 3 the unnamed critical");
  fx_put("hang.critical.big.symbol", ".gomp_critical_user_big.var");
  fx_put("hang.critical.big.name", "critical(big)");
  fx_put("hang.critical.big.waiters", "2");
  fx_put("hang.critical.big.holder", "0");
  fx_put("hang.critical.unnamed.symbol", ".gomp_critical_user_.var");
  fx_put("hang.critical.unnamed.name", "unnamed critical");
  fx_put("hang.critical.unnamed.waiters", "1");
  fx_put("hang.critical.unnamed.holder", "0");
  fx_counter *inside = fx_counter_new(); /* 1 once thread 0 holds both */
  fx_hang_watch(4);

#pragma omp parallel num_threads(4)
  {
    int k = omp_get_thread_num();
    if (omp_get_num_threads() != 4)
      fx_fail("team of %d threads, wanted 4", omp_get_num_threads());
    if (k == 0) {
      fx_put("hang.critical.big.line", "%d", __LINE__ + 1);
#pragma omp critical(big)
      {
        fx_put("hang.critical.unnamed.line", "%d", __LINE__ + 1);
#pragma omp critical
        {
          int fd = fx_hang_never_ready_fd();
          char c;
          fx_thread_facts(0, "holder");
          fx_thread_put(0, "holds", "big,unnamed");
          fx_thread_put(0, "wait_line", "%d", __LINE__ + 6);
          fx_counter_add(inside, 1);
          fx_hang_await(3);
          fx_hang_write_facts();
          fx_hang_enter(3);
          for (;;)
            if (read(fd, &c, 1) == 1) /* never: nobody writes the pipe */
              break;
        }
      }
    } else if (k < 3) {
      fx_counter_await(inside, 1);
      fx_thread_facts(k, "waiter");
      fx_thread_put(k, "waits_for", "big");
      fx_thread_put(k, "wait_line", "%d", __LINE__ + 2);
      fx_hang_enter(k - 1);
#pragma omp critical(big)
      fx_fail("thread %d entered critical(big)", k);
    } else {
      fx_counter_await(inside, 1);
      fx_thread_facts(k, "waiter");
      fx_thread_put(k, "waits_for", "unnamed");
      fx_thread_put(k, "wait_line", "%d", __LINE__ + 2);
      fx_hang_enter(2);
#pragma omp critical
      fx_fail("thread %d entered the unnamed critical", k);
    }
  }
  fx_fail("the hang ended");
}
