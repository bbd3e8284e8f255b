/*
 * teams.c [NTEAMS [NTHREADS]] -- a host teams construct (league of NTEAMS teams, default 2)
 * with a parallel region of NTHREADS threads (default 2) in each team.
 *
 * "#pragma omp teams num_teams(NTEAMS) thread_limit(NTHREADS)", then in each team
 * "#pragma omp parallel num_threads(NTHREADS)". Every thread of every team's parallel region
 * records its facts (team_num, num_teams, ...) and waits at the gate; thread 0 of team 0
 * calls the marker. Thread index k = team_num * NTHREADS + omp_get_thread_num().
 * libomp caps the league at KMP_TEAMS_THREAD_LIMIT threads in total (default: the number of
 * processors) and each team's threads at the global nthreads-var (OMP_NUM_THREADS; default:
 * the number of processors). So that the shape does not depend on the machine, the program
 * sets KMP_TEAMS_THREAD_LIMIT=NTEAMS*NTHREADS and OMP_NUM_THREADS=NTHREADS with setenv before
 * the runtime starts, unless they are set already (fact env_set_by_program lists what it set;
 * the env.* facts show the values). The OpenMP code is kept out of main(): clang makes a
 * function that contains a construct call __kmpc_global_thread_num() on entry, which would
 * initialise the runtime before the setenv.
 */
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage = "[NTEAMS (1..64, default 2) [NTHREADS (1..64, default 2)]]";

static int run(int nteams, int nthreads);

int main(int argc, char **argv) {
  fx_arg_max(argc, argv, 2, usage);
  int nteams = fx_arg_int(argc, argv, 1, 2, 1, 64, usage);
  int nthreads = fx_arg_int(argc, argv, 2, 2, 1, 64, usage);
  char set[128] = "", v[32];
  if (!getenv("KMP_TEAMS_THREAD_LIMIT")) {
    snprintf(v, sizeof v, "%d", nteams * nthreads);
    setenv("KMP_TEAMS_THREAD_LIMIT", v, 0);
    strcat(set, "KMP_TEAMS_THREAD_LIMIT");
  }
  if (!getenv("OMP_NUM_THREADS")) {
    snprintf(v, sizeof v, "%d", nthreads);
    setenv("OMP_NUM_THREADS", v, 0);
    strcat(set, *set ? ",OMP_NUM_THREADS" : "OMP_NUM_THREADS");
  }
  fx_init("teams", argc, argv);
  fx_put("env_set_by_program", "%s", set);
  return run(nteams, nthreads);
}

static int run(int nteams, int nthreads) {
  fx_put("requested_teams", "%d", nteams);
  fx_put("requested_threads", "%d", nthreads);
  const long total = (long)nteams * nthreads;
  fx_put("expected_threads", "%ld", total);

  omp_set_dynamic(0);
  omp_set_max_active_levels(2);
  unsigned long long sum = 0;

#pragma omp teams num_teams(nteams) thread_limit(nthreads) reduction(+ : sum)
  {
    if (omp_get_num_teams() != nteams)
      fx_fail("%d teams, wanted %d", omp_get_num_teams(), nteams);
    int team = omp_get_team_num();
#pragma omp parallel num_threads(nthreads) reduction(+ : sum)
    {
      if (omp_get_num_threads() != nthreads)
        fx_fail("team %d has %d threads, wanted %d", team, omp_get_num_threads(), nthreads);
      if (omp_get_team_num() != team)
        fx_fail("team number %d inside the parallel region of team %d", omp_get_team_num(), team);
      int k = team * nthreads + omp_get_thread_num();
      if (k == 0) {
        fx_thread_facts(0, "marker");
        fx_gate_await(total - 1);
        fx_write_facts_and_mark(0);
        fx_gate_open();
      } else {
        fx_thread_facts(k, "gate");
        fx_gate_wait();
      }
      sum += (unsigned long long)k + 1;
    }
  }
  unsigned long long expect = (unsigned long long)total * (total + 1) / 2;
  if (sum != expect)
    fx_fail("sum %llu != %llu", sum, expect);
  fx_ok(sum);
  return 0;
}
