/*
 * parallel.c [N] -- one active parallel region of N threads (default 4).
 *
 * Every thread records its facts; threads 1..N-1 then wait at the gate (pthread condition
 * variable, role "gate") inside the region; thread 0 waits until all N-1 have arrived,
 * writes the facts and calls the marker (role "marker"). Afterwards every thread takes part
 * in a worksharing loop whose sum is checked.
 */
#include "fixture.h"

#include <omp.h>

static const char *usage = "[N (1..1024, default 4)]";

int main(int argc, char **argv) {
  fx_init("parallel", argc, argv);
  fx_arg_max(argc, argv, 1, usage);
  int n = fx_arg_int(argc, argv, 1, 4, 1, 1024, usage);

  omp_set_dynamic(0);
  fx_put("requested_threads", "%d", n);
  const long iters = 100000;
  unsigned long long sum = 0;

#pragma omp parallel num_threads(n) reduction(+ : sum)
  {
    int tid = omp_get_thread_num();
    if (omp_get_num_threads() != n)
      fx_fail("team of %d threads, wanted %d (thread limit?)", omp_get_num_threads(), n);
    if (tid == 0) {
      fx_thread_facts(0, "marker");
      fx_gate_await(n - 1);
      fx_write_facts_and_mark(0);
      fx_gate_open();
    } else {
      fx_thread_facts(tid, "gate");
      fx_gate_wait();
    }
#pragma omp for schedule(static)
    for (long i = 0; i < iters; i++)
      sum += (unsigned long long)i * 3u + 1u;
  }
  unsigned long long expect = 3ull * (unsigned long long)(iters - 1) * iters / 2 + iters;
  if (sum != expect)
    fx_fail("sum %llu != %llu", sum, expect);
  fx_ok(sum);
  return 0;
}
