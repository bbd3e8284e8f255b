package dev.jompd.core.ompd;

import dev.jompd.core.ompd.CodeLocation.Resolution;
import dev.jompd.core.target.Demangler;
import dev.jompd.core.target.Symbolizer;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Names a task's code the way its author wrote it, for every door: the user's outlined function behind
 * libomp's GOMP wrapper (gcc/gfortran programs), the task function behind clang's {@code .omp_task_entry.}
 * thunk, C++ names demangled. Nothing is guessed: a pointer read from memory is named only where a symbol
 * table has a function starting there, and a resolution that does not hold leaves the entry point shown,
 * with the reason in {@link CodeLocation#note()}.
 */
public final class FunctionNames implements AutoCloseable {
    /** clang's name for a task's entry thunk: {@code .omp_task_entry.}, {@code .omp_task_entry..3}. */
    static final String TASK_ENTRY_PREFIX = ".omp_task_entry.";

    /** Whether a symbol is clang's task entry thunk ({@code .omp_task_entry..3}), glue around a task's code. */
    public static boolean isTaskEntryThunk(String symbol) {
        return symbol.startsWith(TASK_ENTRY_PREFIX);
    }
    /** Bound on the thunk bytes decoded: clang's thunks are a few dozen instructions. */
    static final int MAX_THUNK_BYTES = 1024;
    private static final int CALL_REL32 = 0xe8;

    private final Symbolizer symbols;
    private final Demangler demangler = new Demangler();
    private final Map<Long, Optional<Long>> thunkCallees = new ConcurrentHashMap<>();

    /** Names through {@code symbols}, which stays the caller's to close. */
    public FunctionNames(Symbolizer symbols) {
        this.symbols = symbols;
    }

    /**
     * The user's code a task runs.
     *
     * @throws OmpdException as {@link TaskHandle#function()} (no OMP_DEBUG, an outer serialized level)
     */
    public CodeLocation ofTask(TaskHandle task) {
        long entry = task.function();
        try {
            return ofTask(entry, OptionalLong.of(task.outlinedFunction()), Optional.empty());
        } catch (OmpdException unresolved) {
            return ofTask(entry, OptionalLong.empty(), Optional.of(unresolved.getMessage()));
        }
    }

    /** The user's code of a task in a {@link ProcessSnapshot}; empty when the snapshot has no entry point. */
    public Optional<CodeLocation> ofTask(ProcessSnapshot.TaskView task) {
        if (task.function().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(ofTask(task.function().getAsLong(), task.outlinedFunction(), task.outlinedFunctionProblem()));
    }

    private CodeLocation ofTask(long entry, OptionalLong outlined, Optional<String> whyNotOutlined) {
        if (outlined.isPresent() && outlined.getAsLong() != entry) {
            long function = outlined.getAsLong();
            if (symbols.isFunctionStart(function)) {
                return named(function, entry, Resolution.GOMP_WRAPPER_ARGUMENT, Optional.empty());
            }
            return ofCode(entry, Optional.of("the GOMP wrapper's argument 0x" + Long.toHexString(function)
                    + " is not the start of a function any symbol table names"));
        }
        return ofCode(entry, whyNotOutlined);
    }

    /** Code at {@code address} (a task's entry point): clang's task thunk resolved, C++ demangled. */
    public CodeLocation ofCode(long address) {
        return ofCode(address, Optional.empty());
    }

    private CodeLocation ofCode(long address, Optional<String> note) {
        Optional<Symbolizer.Location> location = symbols.locate(address);
        if (location.isPresent() && location.get().offset() == 0
                && location.get().function().startsWith(TASK_ENTRY_PREFIX)) {
            Optional<Long> callee = thunkCallees.computeIfAbsent(address, a -> thunkCallee(a, location.get()));
            if (callee.isPresent()) {
                return named(callee.get(), address, Resolution.TASK_ENTRY_CALLEE, note);
            }
            note = note.or(() -> Optional.of(location.get().function() + " makes no single direct call to a "
                    + "function of its module (its task code is inlined into it)"));
        }
        return named(address, address, Resolution.ENTRY_POINT, note);
    }

    /** {@code symbol} as people read it: C++ demangled ({@code fib(int) [clone .omp_outlined]}). */
    public String displayName(String symbol) {
        return demangler.demangle(symbol);
    }

    private CodeLocation named(long address, long entry, Resolution resolution, Optional<String> note) {
        Optional<Symbolizer.Location> location = symbols.locate(address);
        String display = location.map(l -> displayName(l.function())
                        + (l.offset() == 0 ? "" : "+0x" + Long.toHexString(l.offset())))
                .orElse("0x" + Long.toHexString(address));
        return new CodeLocation(address, entry, location.map(Symbolizer.Location::toString), display, resolution,
                location, note);
    }

    /**
     * The one function of the thunk's own module the thunk calls directly ({@code call rel32}); empty
     * when it calls none or several. Each candidate must be the start of a function in the same module,
     * so a stray 0xe8 byte inside another instruction does not name anything.
     */
    private Optional<Long> thunkCallee(long thunk, Symbolizer.Location thunkLocation) {
        Optional<byte[]> code = symbols.functionCode(thunk, MAX_THUNK_BYTES);
        if (code.isEmpty()) {
            return Optional.empty();
        }
        byte[] bytes = code.get();
        Set<Long> callees = new LinkedHashSet<>();
        for (int i = 0; i + 5 <= bytes.length; i++) {
            if ((bytes[i] & 0xff) != CALL_REL32) {
                continue;
            }
            int displacement = (bytes[i + 1] & 0xff) | (bytes[i + 2] & 0xff) << 8 | (bytes[i + 3] & 0xff) << 16
                    | (bytes[i + 4] & 0xff) << 24;
            long target = thunk + i + 5 + displacement;
            if (target == thunk) {
                continue;
            }
            Optional<Symbolizer.Location> callee = symbols.locate(target);
            // Names starting with "__" are reserved for the implementation (__clang_call_terminate on the
            // thunk's exception path): never the task's code.
            if (callee.isPresent() && callee.get().offset() == 0 && !callee.get().function().startsWith("__")
                    && callee.get().modulePath().equals(thunkLocation.modulePath())) {
                callees.add(target);
            }
        }
        return callees.size() == 1 ? Optional.of(callees.iterator().next()) : Optional.empty();
    }

    @Override
    public void close() {
        demangler.close();
    }
}
