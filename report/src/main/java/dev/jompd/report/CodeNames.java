package dev.jompd.report;

import dev.jompd.core.ompd.FunctionNames;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.core.unwind.SourceLocation;
import dev.jompd.core.unwind.SourceLocator;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Names code for one target's pictures: the user's function as ompd-core's {@link FunctionNames} finds it
 * (behind libomp's GOMP wrapper and clang's task thunks, C++ demangled), source lines from the modules'
 * DWARF line tables, read by ompd-core's {@link SourceLocator} (the unwinder's own lookup; no subprocess).
 * A line is looked up when first asked for: a door that shows no lines opens no debug information. The
 * parsed debug information lives in {@link #debugInfo()}, which the door's unwinder shares, so a module's
 * tables are read once for names, lines and stacks. Close it with the target (it may keep a demangler
 * process, and it unmaps the debug files).
 */
public final class CodeNames implements AutoCloseable {
    private final FunctionNames functions;
    private final Symbolizer symbols;
    private final DebugInfoCache debugInfo;
    private final boolean ownsDebugInfo;
    private final Map<String, CodeLocation> named = new HashMap<>();
    private final Map<Long, Optional<String>> lines = new HashMap<>();
    private SourceLocator locator;

    public CodeNames(Symbolizer symbols) {
        this(symbols, new DebugInfoCache(), true);
    }

    /**
     * Names over {@code shared} debug data, which the caller owns and closes: targets that map the same files
     * (the ranks of one job) parse each file once.
     */
    public CodeNames(Symbolizer symbols, DebugInfoCache shared) {
        this(symbols, shared, false);
    }

    private CodeNames(Symbolizer symbols, DebugInfoCache debugInfo, boolean ownsDebugInfo) {
        this.debugInfo = debugInfo;
        this.ownsDebugInfo = ownsDebugInfo;
        this.functions = new FunctionNames(symbols, debugInfo);
        this.symbols = symbols;
    }

    /**
     * The target's parsed debug information (line tables, scopes, call frame information), kept while the
     * target's module files stay the same: give it to the unwinder of each stop.
     */
    public DebugInfoCache debugInfo() {
        return debugInfo;
    }

    /** ompd-core's names of code behind these (for doors that name code of OMPD handles directly). */
    public FunctionNames functions() {
        return functions;
    }

    /** The code at {@code address} (a region's outlined function, a thunk resolved); empty for NULL. */
    public synchronized Optional<CodeLocation> name(long address) {
        if (address == 0) {
            return Optional.empty();
        }
        return Optional.of(named.computeIfAbsent("code " + address, k -> convert(functions.ofCode(address))));
    }

    /** The user's code a task of a snapshot runs; empty when the snapshot has no entry point for it. */
    public synchronized Optional<CodeLocation> task(ProcessSnapshot.TaskView task) {
        if (task.function().isEmpty() || task.function().getAsLong() == 0) {
            return Optional.empty();
        }
        String key = "task " + task.function().getAsLong() + " " + task.outlinedFunction() + " "
                + task.outlinedFunctionProblem();
        return functions.ofTask(task).map(location -> named.computeIfAbsent(key, k -> convert(location)));
    }

    private CodeLocation convert(dev.jompd.core.ompd.CodeLocation location) {
        long address = location.address();
        // a task named by its construct is at the construct's line (its pragma), as its thunk's DWARF says
        Optional<String> construct = location.construct();
        return new CodeLocation(address, location.symbol(), location.displayName(), location.module(),
                () -> construct.or(() -> line(address)),
                location.resolved() ? Optional.of(location.entryPoint()) : Optional.empty(),
                location.resolved() ? symbols.locate(location.entryPoint()).map(Symbolizer.Location::toString)
                        : Optional.empty(),
                location.resolved() ? Optional.of(location.resolution()) : Optional.empty(),
                location.note(), () -> location.resolved()
                        ? construct.or(() -> line(location.entryPoint())) : Optional.empty());
    }

    /** The full path and line of the instruction at {@code address}, as the module's line table has it. */
    private synchronized Optional<String> line(long address) {
        return lines.computeIfAbsent(address, a -> {
            if (locator == null) {
                locator = new SourceLocator(symbols.modules(), debugInfo);
            }
            return locator.locate(a).map(SourceLocation::toString);
        });
    }

    @Override
    public void close() {
        functions.close();
        if (ownsDebugInfo) {
            debugInfo.close();
        }
    }
}
