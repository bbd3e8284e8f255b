/* Barrier-heavy benchmark for the jompd-recorder: BARRIERS explicit barriers in one parallel region
 * (each thread does a little work between them). Prints "elapsed <seconds>" of the work only. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long barriers = argc > 1 ? atol(argv[1]) : 200000;
  long sum = 0;
  double start = omp_get_wtime();
#pragma omp parallel reduction(+ : sum)
  for (long i = 0; i < barriers; i++) {
    sum += (i ^ omp_get_thread_num()) & 3;
#pragma omp barrier
  }
  double elapsed = omp_get_wtime() - start;
  printf("elapsed %.6f checksum %ld\n", elapsed, sum);
  return 0;
}
