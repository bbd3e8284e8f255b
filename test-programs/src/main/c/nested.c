/*
 * nested.c S1 [S2 [S3]] -- nested active parallel regions, 1 to 3 levels deep
 * (default: 4 4). omp_set_dynamic(0), omp_set_max_active_levels(LEVELS), and each level's
 * region has num_threads(S<level>). Every thread is inside its innermost region at the
 * marker: the thread whose ancestors are all 0 calls the marker, all others wait at the gate.
 * Thread index k = ancestor(1)*S2*S3 + ancestor(2)*S3 + ancestor(3) (row-major over the
 * ancestor thread numbers, the innermost being omp_get_thread_num()).
 */
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static const char *usage = "S1 [S2 [S3]]   (team sizes per level, each 1..256, product <= 4096)";

static int levels;
static int sizes[3];
static long total;
static unsigned char *seen;
static unsigned long long sum;

static void innermost(void) {
  int level = omp_get_level();
  if (level != levels)
    fx_fail("innermost level %d, wanted %d", level, levels);
  if (omp_get_active_level() != levels)
    fx_fail("active level %d, wanted %d (max-active-levels?)", omp_get_active_level(), levels);
  long k = 0;
  for (int l = 1; l <= levels; l++) {
    if (omp_get_team_size(l) != sizes[l - 1])
      fx_fail("team size at level %d is %d, wanted %d (thread limit?)", l, omp_get_team_size(l),
              sizes[l - 1]);
    k = k * sizes[l - 1] + omp_get_ancestor_thread_num(l);
  }
  if (k == 0) {
    fx_thread_facts(0, "marker");
    fx_gate_await(total - 1);
    fx_write_facts_and_mark(0);
    fx_gate_open();
  } else {
    fx_thread_facts((int)k, "gate");
    fx_gate_wait();
  }
  /* Work after the marker: every innermost thread contributes once. */
#pragma omp atomic
  sum += (unsigned long long)k + 1;
  seen[k]++;
#pragma omp barrier
}

static void region(int depth) {
#pragma omp parallel num_threads(sizes[depth])
  {
    if (depth + 1 < levels)
      region(depth + 1);
    else
      innermost();
  }
}

int main(int argc, char **argv) {
  fx_init("nested", argc, argv);
  fx_arg_max(argc, argv, 3, usage);
  levels = argc > 1 ? argc - 1 : 2;
  total = 1;
  for (int l = 0; l < levels; l++) {
    sizes[l] = fx_arg_int(argc, argv, l + 1, 4, 1, 256, usage);
    total *= sizes[l];
  }
  if (total > 4096)
    fx_usage_exit(argv, usage, "more than 4096 threads");
  seen = calloc((size_t)total, 1);

  omp_set_dynamic(0);
  omp_set_max_active_levels(levels);
  if (omp_get_max_active_levels() != levels)
    fx_fail("max-active-levels is %d, wanted %d", omp_get_max_active_levels(), levels);
  fx_put("levels", "%d", levels);
  char req[64];
  int len = 0;
  for (int l = 0; l < levels; l++)
    len += snprintf(req + len, sizeof req - (size_t)len, "%s%d", l ? "," : "", sizes[l]);
  fx_put("requested_sizes", "%s", req);
  fx_put("expected_threads", "%ld", total);

  region(0);

  for (long k = 0; k < total; k++)
    if (seen[k] != 1)
      fx_fail("thread index %ld ran %d times", k, seen[k]);
  unsigned long long expect = (unsigned long long)total * (total + 1) / 2;
  if (sum != expect)
    fx_fail("sum %llu != %llu", sum, expect);
  fx_ok(sum);
  return 0;
}
