package dev.jompd.report;

import dev.jompd.core.ompd.CodeLocation.Resolution;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * A code address as people read it: the function's readable name (demangled, the user's code rather
 * than a compiler thunk or a runtime wrapper, where that is known), the raw symbol with its offset, the
 * module, and the source line when the module's debug information has it.
 *
 * @param address     the code address in the target
 * @param symbol      the symbol and offset as the symbol table has it ({@code main.omp_outlined+0x12})
 * @param displayName the function's name for people; the symbol's name where nothing better is known
 * @param module      the file name of the module holding the code
 * @param entryPoint  the runtime's entry point when the user's code was found behind it
 * @param entrySymbol the entry point's symbol ({@code __kmp_GOMP_microtask_wrapper})
 * @param resolvedBy  how the user's code was found behind the entry point (absent: the entry point is it)
 * @param note        why a resolution that applied could not be made (the entry point is shown then)
 * @param entrySourceLine the entry point's full path and line, when it was resolved and debug information has it
 */
public record CodeLocation(long address, Optional<String> symbol, String displayName, Optional<String> module,
                           Supplier<Optional<String>> sourceLine, Optional<Long> entryPoint,
                           Optional<String> entrySymbol, Optional<Resolution> resolvedBy, Optional<String> note,
                           Supplier<Optional<String>> entrySourceLine) {

    /** The full path and line, {@code /src/nested.c:42}, when debug information has it. */
    public Optional<String> source() {
        return sourceLine.get();
    }

    /** The entry point's full path and line ({@code .omp_task_entry.}'s: the task's pragma), when resolved. */
    public Optional<String> entrySource() {
        return entrySourceLine.get();
    }

    /** The file name and line only: {@code nested.c:42}. */
    public Optional<String> shortSource() {
        return source().map(full -> full.substring(full.lastIndexOf('/') + 1));
    }

    /**
     * {@code main.omp_outlined (nested.c:42)}, or the hex address; a task named by its construct
     * ({@code task at fib.c:7}) is not followed by its line again.
     */
    public String describe() {
        return displayName + shortSource().filter(line -> !displayName.endsWith(" at " + line))
                .map(line -> " (" + line + ")").orElse("");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CodeLocation other && other.address == address;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(address);
    }
}
