package dev.jompd.report;

import dev.jompd.core.ompd.FunctionNames;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.target.Symbolizer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Names code for one target's pictures: the user's function as ompd-core's {@link FunctionNames} finds it
 * (behind libomp's GOMP wrapper and clang's task thunks, C++ demangled), source lines from debug
 * information. Lines are looked up once, for every address named so far, when the first line is asked
 * for: a door that shows no lines pays nothing, and one that does pays one lookup per module. Close it
 * with the target (it may keep a demangler process).
 */
public final class CodeNames implements AutoCloseable {
    private final FunctionNames functions;
    private final Symbolizer symbols;
    private final Map<Long, Symbolizer.Location> locations = new HashMap<>();
    private final Map<String, CodeLocation> named = new HashMap<>();
    private boolean linesStale = true;
    private SourceLines lines;

    public CodeNames(Symbolizer symbols) {
        this.functions = new FunctionNames(symbols);
        this.symbols = symbols;
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
        location.location().ifPresent(l -> {
            locations.put(location.address(), l);
            linesStale = true;
        });
        long address = location.address();
        return new CodeLocation(address, location.symbol(), location.displayName(), location.module(),
                () -> line(address), location.resolved() ? Optional.of(location.entryPoint()) : Optional.empty(),
                location.resolved() ? symbols.locate(location.entryPoint()).map(Symbolizer.Location::toString)
                        : Optional.empty(),
                location.resolved() ? Optional.of(location.resolution().description()) : Optional.empty(),
                location.note());
    }

    private synchronized Optional<String> line(long address) {
        Symbolizer.Location location = locations.get(address);
        if (location == null) {
            return Optional.empty();
        }
        if (lines == null || linesStale) {
            lines = new SourceLines(new ArrayList<>(locations.values()));
            linesStale = false;
        }
        return lines.of(location);
    }

    @Override
    public void close() {
        functions.close();
    }
}
