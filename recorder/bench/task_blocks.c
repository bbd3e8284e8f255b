/* Task-heavy benchmark with task bodies as users write them: one thread of a team walks an array in
 * blocks of BLOCK elements (default 512) and makes a task per block that updates it (a scaled square root
 * and a running sum, a few flops per element: about 1.3 us per task on one thread here), ROUNDS times
 * (default 40) over N elements (default 1 << 20; with 512, 2048 tasks per round). Prints
 * "elapsed <seconds> cpu <seconds>" of the work only, and the tasks made. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1L << 20;
  int rounds = argc > 2 ? atoi(argv[2]) : 40;
  long block = argc > 3 ? atol(argv[3]) : 512;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  double sum = 0;
  for (long i = 0; i < n; i++) {
    a[i] = 0;
    b[i] = (double)(i % 1000) + 1;
  }
  struct timespec cpu0, cpu1; /* the process's CPU time of the work: steadier than wall time on a busy machine */
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
  double start = omp_get_wtime();
#pragma omp parallel
#pragma omp single
  for (int r = 0; r < rounds; r++) {
    for (long from = 0; from < n; from += block) {
      long to = from + block < n ? from + block : n;
#pragma omp task firstprivate(from, to) shared(a, b, sum)
      {
        double local = 0;
        for (long i = from; i < to; i++) {
          a[i] = 0.5 * a[i] + sqrt(b[i]) * 1e-3;
          local += a[i];
        }
#pragma omp atomic
        sum += local;
      }
    }
#pragma omp taskwait
  }
  double elapsed = omp_get_wtime() - start;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
  double cpu = (double)(cpu1.tv_sec - cpu0.tv_sec) + (double)(cpu1.tv_nsec - cpu0.tv_nsec) * 1e-9;
  long tasks = (long)rounds * ((n + block - 1) / block);
  printf("elapsed %.6f cpu %.6f tasks %ld checksum %.3f\n", elapsed, cpu, tasks, sum);
  free(a);
  free(b);
  return 0;
}
