package dev.jompd.report;

/**
 * What was inspected, for a report's header ({@code target} in the JSON).
 *
 * @param kind    {@code core}, {@code pid}, or (from the gdb bridge) {@code remote}
 * @param name    the core file, the process id, or the remote connection
 * @param backend the address space's name ({@code core:/tmp/core}, {@code pid:4711}, ...)
 * @param runtime the OpenMP runtime's module
 */
public record TargetDescription(String kind, String name, String backend, String runtime) {}
