/* Task-heavy benchmark for the jompd-recorder: TASKS tiny explicit tasks per round, ROUNDS rounds,
 * created by one thread of a team and run by all. Prints "elapsed <seconds> cpu <seconds>" of the work only. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  long tasks = argc > 1 ? atol(argv[1]) : 200000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  long sum = 0;
  struct timespec cpu0, cpu1; /* the process's CPU time of the work: steadier than wall time on a busy machine */
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
  double start = omp_get_wtime();
  for (int r = 0; r < rounds; r++) {
#pragma omp parallel
#pragma omp single
    for (long i = 0; i < tasks; i++) {
#pragma omp task shared(sum) firstprivate(i)
      {
#pragma omp atomic
        sum += i & 7;
      }
    }
  }
  double elapsed = omp_get_wtime() - start;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
  double cpu = (double)(cpu1.tv_sec - cpu0.tv_sec) + (double)(cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
  printf("elapsed %.6f cpu %.6f checksum %ld\n", elapsed, cpu, sum);
  return 0;
}
