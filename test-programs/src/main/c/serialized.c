/*
 * serialized.c [N [DEPTH]] -- serialized nested parallel regions (lightweight teams).
 *
 * omp_set_dynamic(0), omp_set_max_active_levels(1). An active outer region of N threads
 * (default 4); inside it every outer thread encounters DEPTH (default 3) further nested
 * "parallel num_threads(2)" regions, one inside the other. They are serialized (team size 1,
 * level increases by one each, active level stays 1): libomp represents them as lightweight
 * task teams (ompt_lw_taskteam_t). At the marker every outer thread is at the innermost
 * serialized level 1+DEPTH; thread k = its outer thread number; outer thread 0 calls the
 * marker, the others wait at the gate.
 */
#include "fixture.h"

#include <omp.h>

static const char *usage = "[N (1..256, default 4) [DEPTH (0..100, default 3)]]";

static int n, depth;
static unsigned long long sum;

static void innermost(int outer) {
  int level = omp_get_level();
  if (level != 1 + depth)
    fx_fail("level %d, wanted %d", level, 1 + depth);
  if (omp_get_active_level() != 1)
    fx_fail("active level %d, wanted 1", omp_get_active_level());
  if (omp_get_num_threads() != (depth ? 1 : n))
    fx_fail("team size %d at the innermost level", omp_get_num_threads());
  if (outer == 0) {
    fx_thread_facts(0, "marker");
    fx_gate_await(n - 1);
    fx_write_facts_and_mark(0);
    fx_gate_open();
  } else {
    fx_thread_facts(outer, "gate");
    fx_gate_wait();
  }
#pragma omp atomic
  sum += (unsigned long long)(outer + 1) * (unsigned long long)(level);
}

static void nest(int outer, int d) {
  if (d == depth) {
    innermost(outer);
    return;
  }
#pragma omp parallel num_threads(2)
  nest(outer, d + 1);
}

int main(int argc, char **argv) {
  fx_init("serialized", argc, argv);
  fx_arg_max(argc, argv, 2, usage);
  n = fx_arg_int(argc, argv, 1, 4, 1, 256, usage);
  depth = fx_arg_int(argc, argv, 2, 3, 0, 100, usage);

  omp_set_dynamic(0);
  omp_set_max_active_levels(1);
  fx_put("requested_threads", "%d", n);
  fx_put("depth", "%d", depth);

#pragma omp parallel num_threads(n)
  {
    if (omp_get_num_threads() != n)
      fx_fail("team of %d threads, wanted %d", omp_get_num_threads(), n);
    nest(omp_get_thread_num(), 0);
  }

  unsigned long long expect = (unsigned long long)n * (n + 1) / 2 * (unsigned long long)(1 + depth);
  if (sum != expect)
    fx_fail("sum %llu != %llu", sum, expect);
  fx_ok(sum);
  return 0;
}
