/*
 * icvs.c [api|env] -- ICVs that differ per thread and per nesting level.
 *
 * api (default): main() sets omp_set_dynamic(0), omp_set_max_active_levels(2),
 *   omp_set_num_threads(3), omp_set_schedule(monotonic:dynamic, 4). An outer region (size from
 *   nthreads-var: 3) in which outer thread t sets:
 *     t=0: omp_set_num_threads(2), schedule guided,2
 *     t=1: omp_set_num_threads(3), schedule static (unchunked), omp_set_max_active_levels(1)
 *          -> its inner region is serialized (team size 1)
 *     t=2: omp_set_num_threads(4), schedule monotonic:static,8, omp_set_dynamic(0)
 *   and then encounters an inner region without clauses (sizes 2, 1, 4: 7 innermost threads).
 *   Each innermost thread (outer t, inner j) then sets its own ICVs:
 *     omp_set_dynamic(j % 2), omp_set_schedule(kind (j % 4: static, dynamic, guided, auto) with
 *     the monotonic modifier when j is odd, chunk 10*t + j + 1), omp_set_num_threads(10*t + j + 1),
 *     omp_set_max_active_levels(t + j + 1).
 * env: no ICV is set through the API; three nested regions without clauses, so everything
 *   comes from the environment (e.g. OMP_NUM_THREADS=4,3,2, see FIXTURES.md).
 * In both modes every innermost thread records its facts (read back through the API) and
 * waits at the gate; the innermost thread whose ancestors are all 0 calls the marker. Thread
 * indices k follow the lexicographic order of the ancestor thread numbers.
 */
#include "fixture.h"

#include <omp.h>
#include <string.h>

static const char *usage = "[api|env]   (default api)";

static int api;
static int levels;
static int next_k;
static long leaves_done;
static unsigned long long sum;

static void set_outer_icvs(void) {
  int t = omp_get_thread_num();
  switch (t) {
  case 0:
    omp_set_num_threads(2);
    omp_set_schedule(omp_sched_guided, 2);
    break;
  case 1:
    omp_set_num_threads(3);
    omp_set_schedule(omp_sched_static, 0);
    omp_set_max_active_levels(1);
    break;
  default:
    omp_set_num_threads(4);
    omp_set_schedule((omp_sched_t)(omp_sched_static | omp_sched_monotonic), 8);
    omp_set_dynamic(0);
    break;
  }
}

static void set_leaf_icvs(void) {
  int t = omp_get_ancestor_thread_num(1);
  int j = omp_get_thread_num();
  static const omp_sched_t kinds[4] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided,
                                       omp_sched_auto};
  omp_sched_t kind = kinds[j % 4];
  if (j % 2)
    kind = (omp_sched_t)(kind | omp_sched_monotonic);
  omp_set_dynamic(j % 2);
  omp_set_schedule(kind, 10 * t + j + 1);
  omp_set_num_threads(10 * t + j + 1);
  omp_set_max_active_levels(t + j + 1);
}

static void leaf(void) {
  int level = omp_get_level();
  int all0 = 1;
  for (int l = 1; l <= level; l++)
    if (omp_get_ancestor_thread_num(l) != 0)
      all0 = 0;
  if (api)
    set_leaf_icvs();
  int k = all0 ? 0 : __atomic_add_fetch(&next_k, 1, __ATOMIC_SEQ_CST);
  fx_thread_facts(k, all0 ? "marker" : "gate");
  fx_thread_put(k, "place_num", "%d", omp_get_place_num());
  fx_thread_put(k, "partition_num_places", "%d", omp_get_partition_num_places());
  char aff[512];
  size_t n = omp_capture_affinity(aff, sizeof aff, NULL);
  if (n >= sizeof aff)
    aff[sizeof aff - 1] = '\0';
  fx_thread_put(k, "affinity", "%s", aff);
  if (all0) {
    fx_gate_await_expected();
    fx_write_facts_and_mark_sorted(0);
    fx_gate_open();
  } else {
    fx_gate_wait();
  }
#pragma omp atomic
  leaves_done++;
#pragma omp atomic
  sum += (unsigned long long)k;
}

static void region(int d) {
#pragma omp parallel
  {
    /* Count the new team's threads before any of them can arrive at the gate. */
    if (omp_get_thread_num() == 0)
      fx_gate_expect(omp_get_num_threads() - 1);
#pragma omp barrier
    if (api && d == 0)
      set_outer_icvs();
    if (d + 1 < levels)
      region(d + 1);
    else
      leaf();
  }
}

int main(int argc, char **argv) {
  fx_init("icvs", argc, argv);
  fx_arg_max(argc, argv, 1, usage);
  if (argc > 1 && strcmp(argv[1], "api") != 0 && strcmp(argv[1], "env") != 0)
    fx_usage_exit(argv, usage, "mode must be api or env");
  api = argc < 2 || strcmp(argv[1], "api") == 0;
  levels = api ? 2 : 3;
  fx_put("mode", "%s", api ? "api" : "env");
  fx_put("levels", "%d", levels);

  if (api) {
    omp_set_dynamic(0);
    omp_set_max_active_levels(2);
    omp_set_num_threads(3);
    omp_set_schedule((omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 4);
  }
  char sched[64];
  fx_put("initial.max_threads", "%d", omp_get_max_threads());
  fx_put("initial.dynamic", "%d", omp_get_dynamic());
  fx_put("initial.schedule", "%s", fx_schedule_string(sched, sizeof sched));
  fx_put("initial.max_active_levels", "%d", omp_get_max_active_levels());
  fx_put("initial.thread_limit", "%d", omp_get_thread_limit());
  fx_put("initial.proc_bind", "%d", (int)omp_get_proc_bind());

  region(0);

  int n = next_k + 1;
  if (leaves_done != n)
    fx_fail("%ld innermost threads finished, %d recorded", leaves_done, n);
  if (sum != (unsigned long long)n * (n - 1) / 2)
    fx_fail("sum %llu", sum);
  if (api && n != 7)
    fx_fail("%d innermost threads, wanted 7 (2 + 1 + 4)", n);
  fx_ok(sum + (unsigned long long)n);
  return 0;
}
