/* Barrier-heavy benchmark with work as users write it, for the jompd-recorder: SWEEPS sweeps of a
 * three-point stencil over ELEMENTS doubles, one worksharing loop per sweep (its implicit barrier ends
 * every sweep: a few microseconds of work per thread between barriers, as in iterative solvers).
 * barriers.c is the worst case beside it: barriers with nothing between them.
 * Prints "elapsed <seconds> cpu <seconds>" of the work only. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  long elements = argc > 1 ? atol(argv[1]) : 1 << 14;
  long sweeps = argc > 2 ? atol(argv[2]) : 40000;
  if (elements < 3 || sweeps < 1) {
    fprintf(stderr, "usage: barrier_sweeps [ELEMENTS>=3 [SWEEPS>=1]]\n");
    return 2;
  }
  double *a = malloc(sizeof(double) * (size_t)elements), *b = malloc(sizeof(double) * (size_t)elements);
  if (!a || !b)
    return 1;
  for (long i = 0; i < elements; i++)
    a[i] = b[i] = (double)(i % 17);
  struct timespec cpu0, cpu1; /* the process's CPU time of the work: steadier than wall time on a busy machine */
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
  double start = omp_get_wtime();
#pragma omp parallel
  for (long s = 0; s < sweeps; s++) {
    double *from = (s & 1) ? b : a, *to = (s & 1) ? a : b;
#pragma omp for schedule(static)
    for (long i = 1; i < elements - 1; i++)
      to[i] = (from[i - 1] + from[i] + from[i + 1]) * (1.0 / 3.0);
  }
  double elapsed = omp_get_wtime() - start;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
  double cpu = (double)(cpu1.tv_sec - cpu0.tv_sec) + (double)(cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
  double checksum = 0;
  for (long i = 0; i < elements; i++)
    checksum += a[i];
  printf("elapsed %.6f cpu %.6f checksum %.6f\n", elapsed, cpu, checksum);
  free(a);
  free(b);
  return 0;
}
