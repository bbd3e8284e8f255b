/*
 * serial.c [NTHREADS [after]] -- the runtime is initialised but no parallel region has run yet, or
 * (with `after`) one region has run and ended.
 *
 * main() sets nthreads-var with omp_set_num_threads(NTHREADS) (default 3) and reads
 * omp_get_max_threads(), which initialises libomp (serial + middle initialisation: OMPD's
 * breadcrumbs are filled in). The initial thread (the only OpenMP thread) calls the marker.
 * Afterwards a parallel region of NTHREADS threads computes a checksum. With `after` that region
 * runs first and the marker is called once it has ended: the program is back in serial code at
 * level 0, and libomp keeps the region's team (its hot team) with the workers waiting for the next
 * region, still showing the state of the ended region's implicit barrier.
 */
#include "fixture.h"

#include <omp.h>
#include <string.h>

static const char *usage = "[NTHREADS (1..256, default 3) [after]]";

static const long n = 100000;

/* Sum of i*i over 0..n-1 in a parallel region of nthreads threads, checked. Its line: region_line. */
static int region_line;
static void checksum_region(int nthreads) {
  unsigned long long sum = 0;
  int team = 0;
  region_line = __LINE__ + 1;
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
}

int main(int argc, char **argv) {
  fx_init("serial", argc, argv);
  fx_arg_max(argc, argv, 2, usage);
  int nthreads = fx_arg_int(argc, argv, 1, 3, 1, 256, usage);
  int after = argc > 2 && strcmp(argv[2], "after") == 0;
  if (argc > 2 && !after)
    fx_fail("usage: serial %s", usage);

  omp_set_dynamic(0);
  omp_set_num_threads(nthreads);
  if (omp_get_max_threads() != nthreads)
    fx_fail("omp_get_max_threads() = %d after omp_set_num_threads(%d)", omp_get_max_threads(),
            nthreads);
  if (omp_in_parallel())
    fx_fail("in parallel at start");

  if (after) {
    checksum_region(nthreads);
    if (omp_in_parallel() || omp_get_level() != 0)
      fx_fail("still in a parallel region after it ended");
    fx_put("ended_region.line", "%d", region_line);
    fx_put("ended_region.team_size", "%d", nthreads);
  }
  fx_put("requested_threads", "%d", nthreads);
  fx_thread_facts(0, "marker");
  fx_write_facts_and_mark(0);

  /* Work after the marker (without `after`): the region. */
  if (!after)
    checksum_region(nthreads);
  fx_ok((unsigned long long)(n - 1) * n * (2 * n - 1) / 6);
  return 0;
}
