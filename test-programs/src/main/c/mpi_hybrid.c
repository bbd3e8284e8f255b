/*
 * mpi_hybrid.c MODE [THREADS [CULPRIT|ITERATIONS]] -- a hybrid MPI+OpenMP job that states its truth, per rank.
 *
 * Built with mpicc (Open MPI) over clang-19 against the OMPD-enabled libomp (see FIXTURES.md, "MPI
 * fixtures"). Every rank first runs one parallel region of THREADS threads (default 4), so that its
 * OpenMP runtime is up with a pool of THREADS - 1 workers, then:
 *
 * MODE lock_barrier: rank CULPRIT (default 1, or 0 in a job of one rank) deadlocks: its thread 1 takes
 *   omp_lock_t `guard` and goes to the team's barrier; thread 0 asks for `guard` (omp_set_lock never
 *   returns) so the barrier never completes; threads 2.. wait at the barrier. Every other rank waits in
 *   wait_in_allreduce for an MPI_Iallreduce the culprit never joins.
 * MODE taskwait: rank CULPRIT's thread 0 creates a task that blocks for good (blocked_task, a read of a
 *   pipe nobody writes) and waits for it in a taskwait: it never reaches MPI. The other ranks as above.
 * MODE healthy: ITERATIONS (default 40) rounds of an OpenMP reduction over N = 1000 terms followed by an
 *   MPI allreduce of the ranks' sums; each round's result is checked against its closed form, every rank
 *   prints "JOMPD_RESULT ok <checksum>" at the end (exit 0) or "JOMPD_RESULT fail <reason>" (exit 1).
 *
 * Facts (when JOMPD_FACTS_DIR is set): one file per rank, JOMPD_FACTS_DIR/rank-<R>.properties, written
 * once that rank is in its final state (a hang) or has started its rounds (healthy): mpi.rank, mpi.size,
 * mpi.host (SLURMD_NODENAME, else the host name), mpi.role (culprit, waiting, healthy), mpi.mode,
 * mpi.culprit, hang.expect, and per thread the standard keys plus role and wait_line; for the culprit of
 * lock_barrier hang.lock.guard.address and .holder; for waiting ranks mpi.wait_function and mpi.wait_line.
 *
 * The ranks that wait poll (MPI_Test then a 50 ms sleep) rather than block in MPI: with Open MPI's
 * OMPI_MCA_mpi_yield_when_idle=0 their stacks are stable to sample and they do not burn a core each.
 * A hang never resolves: the job is ended by its launcher (scancel, or killing mpirun).
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *usage = "lock_barrier|taskwait|healthy [THREADS (2..64, default 4) [CULPRIT rank (default 1) | ITERATIONS (1..100000, default 40)]]";

static int rank, size, nthreads;
static omp_lock_t guard;
static fx_counter *task_started;

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Points the harness's facts file at this rank's own file. */
static void facts_per_rank(const char *mode, const char *role, int culprit) {
  const char *dir = getenv("JOMPD_FACTS_DIR");
  if (dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%d.properties", dir, rank);
    setenv("JOMPD_FACTS", path, 1);
  }
  const char *node = getenv("SLURMD_NODENAME");
  char host[256] = "";
  if (!node) {
    gethostname(host, sizeof host - 1);
    node = host;
  }
  fx_put("mpi.rank", "%d", rank);
  fx_put("mpi.size", "%d", size);
  fx_put("mpi.host", "%s", node);
  fx_put("mpi.mode", "%s", mode);
  fx_put("mpi.role", "%s", role);
  fx_put("mpi.culprit", "%d", culprit);
}

/* A waiting rank: polls an allreduce the culprit never joins. */
__attribute__((noinline)) static void wait_in_allreduce(int culprit) {
  long one = 1, total = 0;
  MPI_Request request;
  MPI_Iallreduce(&one, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &request);
  fx_thread_facts(0, "mpi_wait");
  fx_put("mpi.wait_function", "wait_in_allreduce");
  fx_thread_put(0, "wait_line", "%d", __LINE__ + 5);
  fx_put("mpi.wait_line", "%d", __LINE__ + 4);
  fx_put("hang.expect", "rank %d waits in an MPI allreduce (wait_in_allreduce) for rank %d", rank, culprit);
  fx_write_facts(0);
  int done = 0;
  for (;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE); /* never completes: the culprit does not join */
    if (done)
      fx_fail("the allreduce completed without the culprit");
    sleep_ms(50);
  }
}

/* The culprit's reporter: a plain pthread (no OpenMP call) that writes the facts once every OpenMP
 * thread of the culprit is inside its wait, then sleeps. */
static void *culprit_reporter(void *arg) {
  int n = (int)(intptr_t)arg;
  fx_hang_await(n);
  fx_write_facts(-1);
  for (;;)
    pause();
  return NULL;
}

static void lock_barrier(void) {
  omp_init_lock(&guard);
  fx_put("hang.kind", "lock-and-barrier");
  fx_put("hang.lock.guard.address", "%p", (void *)&guard);
  fx_put("hang.lock.guard.holder", "1");
  fx_put("hang.expect", "rank %d: thread 0 waits for lock guard held by thread 1, which waits at the team's "
         "barrier with threads 2..%d for thread 0", rank, nthreads - 1);
  fx_counter *held = fx_counter_new();
#pragma omp parallel num_threads(nthreads)
  {
    int k = omp_get_thread_num();
    if (k == 0) {
      fx_counter_await(held, 1);
      fx_thread_facts(0, "lock_wait");
      fx_thread_put(0, "waits_for", "guard");
      fx_thread_put(0, "wait_line", "%d", __LINE__ + 2);
      fx_hang_enter(0);
      omp_set_lock(&guard); /* never returns: thread 1 holds guard and waits at the barrier */
    } else {
      if (k == 1) {
        omp_set_lock(&guard);
        fx_thread_put(1, "holds", "guard");
        fx_counter_add(held, 1);
      }
      fx_thread_facts(k, "barrier");
      fx_thread_put(k, "wait_line", "%d", __LINE__ + 2);
      fx_hang_enter(k);
#pragma omp barrier
    }
  }
}

/* The blocked task's code: reads a pipe nobody writes. */
__attribute__((noinline)) static void blocked_task(void) {
  int fd = fx_hang_never_ready_fd();
  int k = omp_get_thread_num();
  char c;
  fx_thread_facts(k, "task");
  fx_put("hang.task.thread", "%d", k);
  fx_thread_put(k, "wait_line", "%d", __LINE__ + 4);
  fx_hang_enter(k);
  fx_counter_add(task_started, 1);
  for (;;)
    if (read(fd, &c, 1) == 1) /* never: nobody writes the pipe */
      break;
}

static void taskwait(void) {
  task_started = fx_counter_new();
  fx_put("hang.kind", "taskwait-blocked");
  fx_put("hang.expect", "rank %d: thread 0 waits in a taskwait for a task blocked in blocked_task (mpi_hybrid.c); "
         "it never reaches MPI", rank);
#pragma omp parallel num_threads(nthreads)
  {
    int k = omp_get_thread_num();
    if (k == 0) {
      fx_thread_facts(0, "taskwait");
#pragma omp task
      blocked_task();
      fx_counter_await(task_started, 1); /* another thread runs it: thread 0 only waits for it */
      fx_thread_put(0, "wait_line", "%d", __LINE__ + 2);
      fx_hang_enter(0);
#pragma omp taskwait
    } else {
      fx_thread_facts(k, "barrier");
      fx_hang_enter(k);
    }
  }
}

/* One healthy round: an OpenMP reduction and an MPI allreduce, checked against the closed form. */
static unsigned long long healthy(int iterations) {
  const long n = 1000;
  unsigned long long checksum = 0;
  fx_thread_facts(0, "healthy");
  fx_put("mpi.iterations", "%d", iterations);
  fx_put("hang.expect", "none: rank %d progresses", rank);
  fx_write_facts(0);
  for (int round = 1; round <= iterations; round++) {
    long local = 0;
#pragma omp parallel for reduction(+ : local) num_threads(nthreads) schedule(static)
    for (long i = 1; i <= n; i++)
      local += i * (rank + 1) * round;
    long global = 0;
    MPI_Request request;
    MPI_Iallreduce(&local, &global, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &request);
    int done = 0;
    while (!done) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (!done)
        sleep_ms(1);
    }
    long expected = n * (n + 1) / 2 * ((long)size * (size + 1) / 2) * round;
    if (local != n * (n + 1) / 2 * (rank + 1) * round)
      fx_fail("rank %d round %d: OpenMP reduction gave %ld", rank, round, local);
    if (global != expected)
      fx_fail("rank %d round %d: allreduce gave %ld, expected %ld", rank, round, global, expected);
    checksum += (unsigned long long)global;
    sleep_ms(25);
  }
  return checksum;
}

int main(int argc, char **argv) {
  fx_init("mpi_hybrid", argc, argv);
  fx_arg_max(argc, argv, 3, usage);
  if (argc < 2)
    fx_usage_exit(argv, usage, "MODE is required");
  const char *mode = argv[1];
  nthreads = fx_arg_int(argc, argv, 2, 4, 2, 64, usage);
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  omp_set_dynamic(0);
  int started = 0;
#pragma omp parallel num_threads(nthreads) reduction(+ : started)
  started += 1;
  if (started != nthreads)
    fx_fail("team of %d threads, wanted %d", started, nthreads);

  if (strcmp(mode, "healthy") == 0) {
    int iterations = fx_arg_int(argc, argv, 3, 40, 1, 100000, usage);
    facts_per_rank(mode, "healthy", -1);
    unsigned long long checksum = healthy(iterations);
    MPI_Finalize();
    fx_ok(checksum);
    return 0;
  }
  if (strcmp(mode, "lock_barrier") != 0 && strcmp(mode, "taskwait") != 0)
    fx_usage_exit(argv, usage, "MODE is lock_barrier, taskwait or healthy");
  int culprit = fx_arg_int(argc, argv, 3, size > 1 ? 1 : 0, 0, 1 << 20, usage);
  if (culprit >= size)
    fx_fail("culprit rank %d, but the job has %d ranks", culprit, size);
  /* Every rank is up before the culprit hangs: no rank is still starting when the job is inspected. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != culprit) {
    facts_per_rank(mode, "waiting", culprit);
    wait_in_allreduce(culprit);
  }
  facts_per_rank(mode, "culprit", culprit);
  pthread_t reporter;
  if (pthread_create(&reporter, NULL, culprit_reporter, (void *)(intptr_t)nthreads) != 0)
    fx_fail("cannot start the reporter thread");
  if (strcmp(mode, "lock_barrier") == 0)
    lock_barrier();
  else
    taskwait();
  fx_fail("the culprit's hang ended");
  return 1;
}
