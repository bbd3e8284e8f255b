package dev.jompd.core.ompd;

import dev.jompd.core.dwarf.FunctionScopes;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.ompd.CodeLocation.Resolution;
import dev.jompd.core.target.Demangler;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.unwind.DebugInfoCache;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Names a task's code the way its author wrote it, for every door: the user's outlined function behind
 * libomp's GOMP wrapper (gcc/gfortran programs), the task construct behind clang's {@code .omp_task_entry.}
 * thunk, C++ names demangled. Nothing is guessed: a pointer read from memory is named only where a symbol
 * table has a function starting there, and a resolution that does not hold leaves the entry point shown,
 * with the reason in {@link CodeLocation#note()}.
 *
 * <p>clang inlines a task's outlined code into its thunk, so the thunk's code is the task's: a task is
 * named by its construct ({@code task at fib.c:7}), the line of the {@code #pragma omp task} the thunk's
 * DWARF gives (the call line of the one function inlined into it). Never by the function the task's code
 * calls: BOTS fib's two constructs ({@code x = fib(n - 1)}, {@code y = fib(n - 2)}) both call only
 * {@code fib}, and would collapse into one name. Without DWARF, or with several functions inlined into the
 * thunk, the thunk is shown with the reason.
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
    private final DebugInfoCache debugInfo;
    private final boolean ownsDebugInfo;
    private final Demangler demangler = new Demangler();
    private final Map<Long, TaskCode> taskCodes = new ConcurrentHashMap<>();

    /** What a task entry thunk's code is, found once per thunk. */
    private sealed interface TaskCode {
        /** The construct whose outlined code is inlined into the thunk, at its pragma's line. */
        record Construct(String outlined, String file, int line) implements TaskCode {}

        /** Nothing inlined (the thunk's DWARF says so), one direct callee: the outlined function itself. */
        record Callee(long address) implements TaskCode {}

        /** Not known for certain, and why. */
        record Unknown(String why) implements TaskCode {}
    }

    /** Names through {@code symbols}, which stays the caller's to close; debug information of its own. */
    public FunctionNames(Symbolizer symbols) {
        this(symbols, new DebugInfoCache(), true);
    }

    /**
     * Names through {@code symbols} and the modules' debug information in {@code debugInfo} (the door's,
     * shared with its unwinder); both stay the caller's to close.
     */
    public FunctionNames(Symbolizer symbols, DebugInfoCache debugInfo) {
        this(symbols, debugInfo, false);
    }

    private FunctionNames(Symbolizer symbols, DebugInfoCache debugInfo, boolean ownsDebugInfo) {
        this.symbols = symbols;
        this.debugInfo = debugInfo;
        this.ownsDebugInfo = ownsDebugInfo;
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
            return ofTask(entry, OptionalLong.empty(), Optional.of(unresolved.reason()));
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
            TaskCode code = taskCodes.computeIfAbsent(address, a -> taskCode(a, location.get()));
            switch (code) {
                case TaskCode.Construct construct -> {
                    String shortFile = construct.file().substring(construct.file().lastIndexOf('/') + 1);
                    return new CodeLocation(address, address, location.map(Symbolizer.Location::toString),
                            "task at " + shortFile + ":" + construct.line(), Resolution.TASK_CONSTRUCT, location, note,
                            Optional.of(construct.file() + ":" + construct.line()));
                }
                case TaskCode.Callee callee -> {
                    return named(callee.address(), address, Resolution.TASK_ENTRY_CALLEE, note);
                }
                case TaskCode.Unknown unknown -> note = note.or(() -> Optional.of(unknown.why()));
            }
        }
        return named(address, address, Resolution.ENTRY_POINT, note);
    }

    /**
     * What the thunk at {@code thunk} runs, from its module's DWARF: the one function inlined into it (the
     * task's outlined code: its call line is the construct's), or with nothing inlined its one direct callee.
     */
    private TaskCode taskCode(long thunk, Symbolizer.Location thunkLocation) {
        String thunkName = thunkLocation.function();
        Optional<LoadedModule> module = symbols.modules().stream()
                .filter(m -> m.path().equals(thunkLocation.modulePath())).findFirst();
        Optional<List<FunctionScopes.InlinedCall>> inlined;
        try {
            Optional<FunctionScopes> scopes = module.flatMap(m -> debugInfo.of(m).scopes());
            if (scopes.isEmpty()) {
                return new TaskCode.Unknown(thunkName + " runs a task construct's code, and " + thunkLocation.module()
                        + " has no debug information (.debug_info) that says which construct");
            }
            inlined = scopes.get().inlinedCallsOf(thunkLocation.moduleOffset());
        } catch (ElfFormatException damaged) {
            return new TaskCode.Unknown(thunkName + " runs a task construct's code; the debug information that "
                    + "says which cannot be read: " + damaged.getMessage());
        }
        if (inlined.isEmpty()) {
            return new TaskCode.Unknown(thunkName + " runs a task construct's code, and no debug information of "
                    + thunkLocation.module() + " describes it");
        }
        Map<Long, FunctionScopes.InlinedCall> byOrigin = new LinkedHashMap<>();
        inlined.get().forEach(call -> byOrigin.putIfAbsent(call.origin(), call));
        if (byOrigin.size() > 1) {
            return new TaskCode.Unknown("clang inlined " + byOrigin.size() + " functions into " + thunkName + " ("
                    + String.join(", ", byOrigin.values().stream().map(FunctionScopes.InlinedCall::function).toList())
                    + "): which one is the task's code is not certain");
        }
        if (byOrigin.size() == 1) {
            FunctionScopes.InlinedCall call = byOrigin.values().iterator().next();
            if (call.callFile().isEmpty() || call.callLine() <= 0) {
                return new TaskCode.Unknown(thunkName + " runs the code of " + call.function()
                        + ", and its debug information gives no line of the construct");
            }
            return new TaskCode.Construct(call.function(), call.callFile().get(), call.callLine());
        }
        return thunkCallee(thunk, thunkLocation).<TaskCode>map(TaskCode.Callee::new).orElseGet(() ->
                new TaskCode.Unknown(thunkName + " has nothing inlined into it and makes no single direct call to a "
                        + "function of its module"));
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
        if (ownsDebugInfo) {
            debugInfo.close();
        }
    }
}
