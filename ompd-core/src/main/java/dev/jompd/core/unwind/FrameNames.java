package dev.jompd.core.unwind;

import dev.jompd.core.target.Demangler;

import java.util.Optional;

/**
 * Frames' function names as gdb's backtrace prints them, from the names the debug information gives scopes.
 * Holds a demangler (a subprocess, started when first needed): close it with the stop.
 */
final class FrameNames implements AutoCloseable {
    private final Demangler demangler = new Demangler();

    /**
     * A scope's function name as gdb's backtrace has it: the debug information's name, but for a C++ function
     * whose name only its linkage name holds (a lambda's {@code operator()}: the debug information gives it as
     * a bare mangled identifier), that name demangled ({@code sim::Grid<double>::relax()::{lambda(int)#1}::operator()(int) const}).
     * Names of clones ({@code _ZL4workR6DomainPd.omp_outlined}) are gdb's as they are.
     */
    Optional<String> of(Optional<String> function) {
        return function.map(name -> Demangler.isMangled(name) && name.chars()
                .allMatch(c -> Character.isLetterOrDigit(c) || c == '_') ? demangler.demangle(name) : name);
    }

    @Override
    public void close() {
        demangler.close();
    }
}
