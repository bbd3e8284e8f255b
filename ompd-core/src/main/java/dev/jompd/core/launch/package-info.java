/**
 * Starting a program on jompd's OMPD-enabled libomp ({@code jompd run}, the DAP server's {@code launch},
 * gdb's {@code ompd run}): where that runtime is, the directory that offers it under the names programs
 * load ({@code libomp.so.5}, GCC's {@code libgomp.so.1}), the environment, and the GOMP entry points a
 * gcc-built program needs that libomp lacks. One place, so every door starts programs the same way.
 */
package dev.jompd.core.launch;
