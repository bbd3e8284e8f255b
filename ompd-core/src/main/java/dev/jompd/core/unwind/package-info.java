/**
 * Native stacks of a stopped target's threads, read only through its {@link dev.jompd.core.target.AddressSpace}
 * (so cores, live processes and gdb-read targets alike): x86-64 call frame information, signal frames, a
 * frame-pointer fallback, symbols, source lines and inlined calls. Every walk is bounded; a stack cut
 * short says why ({@link dev.jompd.core.unwind.NativeStack.Truncation}).
 */
package dev.jompd.core.unwind;
