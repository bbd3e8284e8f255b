/*
 * jompd-aot-team LIBOMP: a team of four OpenMP threads on the libomp at LIBOMP, held where a hung rank of a job
 * is held, for the training of `jompd job`'s ahead-of-time cache (bin/jompd starts the training after a job's
 * front end is done; JobAgentCommand --aot-training reads this process as it reads a rank). Without it the
 * training sees no OpenMP process, and every agent of every later job generates the classes of the OpenMP read
 * path (lambdas, string concatenations) itself: ~0.5 CPU-s per agent, measured.
 *
 * The runtime is loaded with dlopen, so that this one binary runs on whichever libomp the job used (its soname
 * may be libomp.so or libomp.so.5, its directory anywhere), and the team is forked through libomp's own entry
 * point, as compiled code does. Thread 0 takes a lock and says "ready"; thread 1 waits for that lock, threads 2
 * and 3 wait at the team's barrier. The process ends itself after 60 s (alarm), should its reader never kill it.
 */
#define _DEFAULT_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

typedef struct {
  int reserved_1, flags, reserved_2, reserved_3;
  const char *psource;
} ident_t;

typedef void (*microtask_t)(int *global_tid, int *bound_tid, ...);

static ident_t location = {0, 2 /* KMP_IDENT_KMPC */, 0, 0, ";jompd-aot-team.c;team;1;1;;"};
static void (*fork_call)(ident_t *, int, microtask_t, ...);
static void (*barrier)(ident_t *, int);
static int (*thread_num)(void);
static void (*init_lock)(void *);
static void (*set_lock)(void *);
static void *lock[4]; /* omp_lock_t: one pointer; room to spare */
static atomic_int held;

static void team(int *global_tid, int *bound_tid) {
  (void)bound_tid;
  int me = thread_num();
  if (me == 0) {
    set_lock(lock);
    atomic_store(&held, 1);
    printf("ready\n");
    fflush(stdout);
    for (;;)
      pause();
  }
  while (!atomic_load(&held))
    usleep(1000);
  if (me == 1)
    set_lock(lock); /* held by thread 0: waits for good */
  else
    barrier(&location, *global_tid); /* thread 0 never arrives */
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: jompd-aot-team LIBOMP\n");
    return 2;
  }
  alarm(60);
  void *omp = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!omp) {
    fprintf(stderr, "jompd-aot-team: %s\n", dlerror());
    return 1;
  }
  void (*set_num_threads)(int) = (void (*)(int))dlsym(omp, "omp_set_num_threads");
  fork_call = (void (*)(ident_t *, int, microtask_t, ...))dlsym(omp, "__kmpc_fork_call");
  barrier = (void (*)(ident_t *, int))dlsym(omp, "__kmpc_barrier");
  thread_num = (int (*)(void))dlsym(omp, "omp_get_thread_num");
  init_lock = (void (*)(void *))dlsym(omp, "omp_init_lock");
  set_lock = (void (*)(void *))dlsym(omp, "omp_set_lock");
  if (!set_num_threads || !fork_call || !barrier || !thread_num || !init_lock || !set_lock) {
    fprintf(stderr, "jompd-aot-team: %s is not an LLVM OpenMP runtime\n", argv[1]);
    return 1;
  }
  set_num_threads(4);
  init_lock(lock);
  fork_call(&location, 0, (microtask_t)team);
  return 0;
}
