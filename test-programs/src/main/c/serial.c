/*
 * serial.c [NTHREADS] -- the runtime is initialised but no parallel region has run yet.
 *
 * main() sets nthreads-var with omp_set_num_threads(NTHREADS) (default 3) and reads
 * omp_get_max_threads(), which initialises libomp (serial + middle initialisation: OMPD's
 * breadcrumbs are filled in). The initial thread (the only OpenMP thread) calls the marker.
 * Afterwards a parallel region of NTHREADS threads computes a checksum.
 */
#include "fixture.h"

#include <omp.h>

static const char *usage = "[NTHREADS (1..256, default 3)]";

int main(int argc, char **argv) {
  fx_init("serial", argc, argv);
  fx_arg_max(argc, argv, 1, usage);
  int nthreads = fx_arg_int(argc, argv, 1, 3, 1, 256, usage);

  omp_set_dynamic(0);
  omp_set_num_threads(nthreads);
  if (omp_get_max_threads() != nthreads)
    fx_fail("omp_get_max_threads() = %d after omp_set_num_threads(%d)", omp_get_max_threads(),
            nthreads);
  if (omp_in_parallel())
    fx_fail("in parallel at start");

  fx_put("requested_threads", "%d", nthreads);
  fx_thread_facts(0, "marker");
  fx_write_facts_and_mark(0);

  /* Work after the marker: sum of i*i over 0..n-1 in a parallel region. */
  const long n = 100000;
  unsigned long long sum = 0;
  int team = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(nthreads)
  for (long i = 0; i < n; i++) {
    if (i == 0)
      team = omp_get_num_threads();
    sum += (unsigned long long)i * (unsigned long long)i;
  }
  unsigned long long expect = (unsigned long long)(n - 1) * n * (2 * n - 1) / 6;
  if (sum != expect)
    fx_fail("sum %llu != %llu", sum, expect);
  if (team != nthreads)
    fx_fail("team of %d threads, wanted %d", team, nthreads);
  fx_ok(sum);
  return 0;
}
