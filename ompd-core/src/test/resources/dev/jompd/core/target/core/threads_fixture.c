/*
 * Fixture for the core-file backend's integration tests: starts N threads (argv[1], default 3) that
 * each store a known value, their LWP and their pthread_self() in global arrays, prints what they
 * stored, and stops in the noinline marker stop_here(). With argv[2] == "abort", stop_here() calls
 * abort() so the kernel writes a core; otherwise gdb stops there and writes one with gcore.
 * Compile with -DFIXTURE_VARIANT=n to get a program with another build-id.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FIXTURE_VARIANT
#define FIXTURE_VARIANT 0
#endif
#define MAX_THREADS 64

long thread_values[MAX_THREADS];
long thread_lwps[MAX_THREADS];
unsigned long thread_selves[MAX_THREADS];
int thread_count;
__thread long per_thread_counter = 42;
const char fixture_greeting[] = "jompd core fixture greeting";
const int fixture_variant = FIXTURE_VARIANT;
static pthread_barrier_t all_started;
static pthread_barrier_t may_finish;

__attribute__((noinline)) void stop_here(int crash) {
    if (crash) {
        abort();
    }
    __asm__ volatile("" ::: "memory");
}

static void *worker(void *argument) {
    long index = (long) argument;
    thread_values[index] = 1000 + index;
    thread_lwps[index] = gettid();
    thread_selves[index] = (unsigned long) pthread_self();
    per_thread_counter = index;
    pthread_barrier_wait(&all_started);
    pthread_barrier_wait(&may_finish);
    return NULL;
}

int main(int argc, char **argv) {
    thread_count = argc > 1 ? atoi(argv[1]) : 3;
    if (thread_count < 0 || thread_count > MAX_THREADS) {
        thread_count = 3;
    }
    int crash = argc > 2 && strcmp(argv[2], "abort") == 0;
    pthread_t threads[MAX_THREADS];
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    /* Small stacks keep the cores small. */
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    pthread_barrier_init(&all_started, NULL, thread_count + 1);
    pthread_barrier_init(&may_finish, NULL, thread_count + 1);
    for (long i = 0; i < thread_count; i++) {
        pthread_create(&threads[i], &attributes, worker, (void *) i);
    }
    pthread_barrier_wait(&all_started);
    printf("fixture main %d %lx\n", gettid(), (unsigned long) pthread_self());
    for (int i = 0; i < thread_count; i++) {
        printf("fixture thread %ld %lx %ld\n", thread_lwps[i], thread_selves[i], thread_values[i]);
    }
    fflush(stdout);
    stop_here(crash);
    pthread_barrier_wait(&may_finish);
    for (int i = 0; i < thread_count; i++) {
        pthread_join(threads[i], NULL);
    }
    return fixture_variant;
}
