/**
 * The live-process backend: {@link dev.jompd.core.target.live.LiveProcessAddressSpace} stops a running
 * x86-64 Linux process with ptrace (called through the FFM API from one dedicated platform thread) and
 * reads it as an {@link dev.jompd.core.target.AddressSpace}; its read-only mode reads a process another
 * debugger already holds stopped, without ptrace.
 */
package dev.jompd.core.target.live;
