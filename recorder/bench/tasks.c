/* Task-heavy benchmark for the jompd-recorder: TASKS tiny explicit tasks per round, ROUNDS rounds,
 * created by one thread of a team and run by all. Prints "elapsed <seconds>" of the work only. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long tasks = argc > 1 ? atol(argv[1]) : 200000;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  long sum = 0;
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
  printf("elapsed %.6f checksum %ld\n", elapsed, sum);
  return 0;
}
