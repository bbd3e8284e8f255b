package dev.jompd.core.ompd;

import dev.jompd.core.target.Symbolizer;

import java.util.Optional;

/**
 * A task's code as a person wants it named: the user's function, not the runtime's or the compiler's glue
 * in front of it, with how jompd got from one to the other.
 *
 * @param address     the code shown: the user's function (equal to {@code entryPoint} when nothing was resolved)
 * @param entryPoint  what the runtime keeps as the task's entry point ({@code ompd_get_task_function})
 * @param symbol      the raw symbol at {@code address} ({@code _Z3fibi}, {@code main._omp_fn.0}), with
 *                    {@code +0x…} when the address is inside it; empty when no symbol table names it
 * @param displayName {@code symbol} demangled ({@code fib(int)}), else the hex address
 * @param resolution  how {@code address} was found from {@code entryPoint}
 * @param location    the symbol table entry (module, offset into it, the module file's address)
 * @param note        why a resolution that applied could not be made (the entry point is shown then)
 * @param construct   for a task named by its construct: the construct's full path and line (its
 *                    {@code #pragma omp task}), from the debug information of clang's task entry
 */
public record CodeLocation(long address, long entryPoint, Optional<String> symbol, String displayName,
                           Resolution resolution, Optional<Symbolizer.Location> location, Optional<String> note,
                           Optional<String> construct) {

    public CodeLocation(long address, long entryPoint, Optional<String> symbol, String displayName,
                        Resolution resolution, Optional<Symbolizer.Location> location, Optional<String> note) {
        this(address, entryPoint, symbol, displayName, resolution, location, note, Optional.empty());
    }

    /** How the user's function was reached from the runtime's entry point. */
    public enum Resolution {
        /** The entry point is the user's code itself. */
        ENTRY_POINT("entry point"),
        /** The entry point is libomp's GOMP wrapper; the user's function is its argument (team's t_argv[0]). */
        GOMP_WRAPPER_ARGUMENT("argument of libomp's GOMP wrapper"),
        /**
         * The entry point is clang's task thunk ({@code .omp_task_entry.}), into which nothing is inlined (its
         * debug information says so); the task's code is its one direct callee.
         */
        TASK_ENTRY_CALLEE("callee of clang's task entry"),
        /**
         * The entry point is clang's task thunk, with the task's outlined code inlined into it (clang always
         * does this): the task is named by its construct, whose line the thunk's debug information gives.
         */
        TASK_CONSTRUCT("construct inlined into clang's task entry");

        private final String description;

        Resolution(String description) {
            this.description = description;
        }

        /** For people: {@code argument of libomp's GOMP wrapper}. */
        public String description() {
            return description;
        }
    }

    /** The module's file name, when a symbol table names the code. */
    public Optional<String> module() {
        return location.map(Symbolizer.Location::module);
    }

    /** Whether jompd looked past the runtime's entry point. */
    public boolean resolved() {
        return resolution != Resolution.ENTRY_POINT;
    }

    @Override
    public String toString() {
        return displayName;
    }
}
