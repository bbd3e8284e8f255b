/* Barrier-heavy benchmark for the jompd-recorder: BARRIERS explicit barriers in one parallel region
 * (each thread does a little work between them). Prints "elapsed <seconds> cpu <seconds>" of the work only. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  long barriers = argc > 1 ? atol(argv[1]) : 200000;
  long sum = 0;
  struct timespec cpu0, cpu1; /* the process's CPU time of the work: steadier than wall time on a busy machine */
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
  double start = omp_get_wtime();
#pragma omp parallel reduction(+ : sum)
  for (long i = 0; i < barriers; i++) {
    sum += (i ^ omp_get_thread_num()) & 3;
#pragma omp barrier
  }
  double elapsed = omp_get_wtime() - start;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
  double cpu = (double)(cpu1.tv_sec - cpu0.tv_sec) + (double)(cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
  printf("elapsed %.6f cpu %.6f checksum %ld\n", elapsed, cpu, sum);
  return 0;
}
