package dev.jompd.dap.session;

import dev.jompd.core.ompd.ClangOpenMpPrologue;
import dev.jompd.dap.gdb.GdbBreakpoint;
import dev.jompd.dap.gdb.GdbCommandException;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.mi.MiValue;
import org.eclipse.lsp4j.debug.Breakpoint;
import org.eclipse.lsp4j.debug.Source;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The breakpoints the client asked for, by source file and by function, and the gdb breakpoints behind
 * them. Requests that arrive before gdb exists are remembered and planted when the program is loaded
 * (then told to the client with breakpoint events). DAP ids are this book's own, gdb's numbers stay inside.
 */
final class Breakpoints {
    /** One client breakpoint. */
    static final class Planted {
        final int id;
        final boolean function;
        final String location;
        final Optional<String> condition;
        final Optional<String> hitCondition;
        final int requestedLine;
        Integer gdbNumber;
        boolean verified;
        int line;
        String path;
        String message;

        Planted(int id, boolean function, String location, Optional<String> condition, Optional<String> hitCondition,
                int requestedLine, String path) {
            this.id = id;
            this.function = function;
            this.location = location;
            this.condition = condition;
            this.hitCondition = hitCondition;
            this.requestedLine = requestedLine;
            this.line = requestedLine;
            this.path = path;
        }
    }

    private final DapSession session;
    private final Map<String, List<Planted>> bySource = new LinkedHashMap<>();
    private List<Planted> functions = List.of();
    private final Map<Integer, Planted> byGdbNumber = new HashMap<>();
    private int nextId = 1;

    Breakpoints(DapSession session) {
        this.session = session;
    }

    /** setBreakpoints: replaces every breakpoint of {@code path}. */
    List<Breakpoint> setSource(String path, List<int[]> lines, List<Optional<String>> conditions,
                               List<Optional<String>> hitConditions, GdbDebugger gdb) {
        remove(bySource.getOrDefault(path, List.of()), gdb);
        List<Planted> planted = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            int line = lines.get(i)[0];
            planted.add(new Planted(nextId++, false, path + ":" + line, conditions.get(i), hitConditions.get(i), line, path));
        }
        bySource.put(path, planted);
        planted.forEach(p -> plant(p, gdb));
        return planted.stream().map(this::toDap).toList();
    }

    /** setFunctionBreakpoints: replaces every function breakpoint. */
    List<Breakpoint> setFunctions(List<String> names, List<Optional<String>> conditions,
                                  List<Optional<String>> hitConditions, GdbDebugger gdb) {
        remove(functions, gdb);
        List<Planted> planted = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            planted.add(new Planted(nextId++, true, names.get(i), conditions.get(i), hitConditions.get(i), 0, null));
        }
        functions = planted;
        planted.forEach(p -> plant(p, gdb));
        return planted.stream().map(this::toDap).toList();
    }

    /** The program is loaded: plants what was asked before and tells the client how it went. */
    void plantPending(GdbDebugger gdb) {
        List<Planted> all = new ArrayList<>();
        bySource.values().forEach(all::addAll);
        all.addAll(functions);
        for (Planted planted : all) {
            if (planted.gdbNumber == null) {
                plant(planted, gdb);
                org.eclipse.lsp4j.debug.BreakpointEventArguments event = new org.eclipse.lsp4j.debug.BreakpointEventArguments();
                event.setReason("changed");
                event.setBreakpoint(toDap(planted));
                session.event("breakpoint", event);
            }
        }
    }

    private void plant(Planted planted, GdbDebugger gdb) {
        if (gdb == null) {
            planted.message = "pending: the program is not loaded yet";
            return;
        }
        OptionalInt ignore = OptionalInt.empty();
        if (planted.hitCondition.isPresent()) {
            String text = planted.hitCondition.get().strip().replaceFirst("^>=\\s*", "");
            try {
                int hits = Integer.parseInt(text);
                ignore = OptionalInt.of(Math.max(0, hits - 1));
            } catch (NumberFormatException e) {
                planted.verified = false;
                planted.message = "hit condition must be a number of hits, not \"" + planted.hitCondition.get() + "\"";
                return;
            }
        }
        try {
            GdbBreakpoint breakpoint = gdb.insertBreakpoint(planted.location, planted.condition, ignore);
            breakpoint = afterParameterStores(breakpoint, planted, ignore, gdb);
            planted.gdbNumber = breakpoint.number();
            byGdbNumber.put(breakpoint.number(), planted);
            update(planted, breakpoint);
        } catch (GdbCommandException e) {
            planted.verified = false;
            planted.message = e.gdbMessage();
        }
    }

    /**
     * {@code breakpoint}, or, where it is at the call clang makes before it stores a function's parameters
     * (gdb's stop for {@code break f} in a clang -O0 function with OpenMP directives, where the parameters
     * read garbage), one in its place after those stores: by ompd-core's {@link ClangOpenMpPrologue}. The
     * new one's location is the function plus an offset, which gdb sets again when a PIE program is loaded.
     * A function's breakpoint then stops at its first statement, also where that is on a line above the
     * directive whose line clang gave the call (gdb's stop showed the directive's line before that statement
     * ran); a source line's moves only as far as its own line, or from a line without code of its own (the
     * function's opening line). A breakpoint with several locations (or none yet) stays as gdb put it.
     */
    private GdbBreakpoint afterParameterStores(GdbBreakpoint breakpoint, Planted planted, OptionalInt ignore,
                                               GdbDebugger gdb) {
        if (breakpoint.address().isEmpty() || breakpoint.function().isEmpty()) {
            return breakpoint;
        }
        long address = breakpoint.address().getAsLong();
        GdbDebugger.LineInstructions line = gdb.lineInstructions(address);
        OptionalLong after = ClangOpenMpPrologue.afterParameterStores(line.instructions(), line.end());
        if (after.isEmpty() || line.functionOffset() < 0) {
            return breakpoint;
        }
        String location = "*'" + breakpoint.function().get() + "'+" + (line.functionOffset() + after.getAsLong() - address);
        GdbBreakpoint moved;
        try {
            moved = gdb.insertBreakpoint(location, planted.condition, ignore);
        } catch (GdbCommandException e) {
            session.log("breakpoint " + planted.location + " stays before the parameters' stores: " + e.gdbMessage());
            return breakpoint;
        }
        if (!planted.function && breakpoint.line() == planted.requestedLine && moved.line() != breakpoint.line()) {
            // the line asked for is the directive's, and the stores end where a statement above it starts (that
            // statement runs first): the stop stays on the line asked for, as gdb put it
            gdb.deleteBreakpoints(List.of(moved.number()));
            return breakpoint;
        }
        gdb.deleteBreakpoints(List.of(breakpoint.number()));
        return moved;
    }

    private static void update(Planted planted, GdbBreakpoint breakpoint) {
        planted.verified = !breakpoint.pending();
        planted.message = breakpoint.pending() ? "pending: no code at this location is loaded yet" : null;
        if (breakpoint.line() > 0) {
            planted.line = breakpoint.line();
        }
        breakpoint.file().ifPresent(file -> planted.path = file);
    }

    private void remove(List<Planted> planted, GdbDebugger gdb) {
        List<Integer> numbers = new ArrayList<>();
        for (Planted p : planted) {
            if (p.gdbNumber != null) {
                numbers.add(p.gdbNumber);
                byGdbNumber.remove(p.gdbNumber);
            }
        }
        if (gdb != null && !numbers.isEmpty()) {
            try {
                gdb.deleteBreakpoints(numbers);
            } catch (GdbCommandException e) {
                session.log("deleting breakpoints " + numbers + ": " + e.gdbMessage());
            }
        }
    }

    /** gdb changed a breakpoint (a pending one got its location): the DAP breakpoint to report. */
    Optional<Breakpoint> modified(MiValue bkpt) {
        try {
            GdbBreakpoint breakpoint = GdbBreakpoint.parse(bkpt);
            Planted planted = byGdbNumber.get(breakpoint.number());
            if (planted == null) {
                return Optional.empty();
            }
            boolean wasVerified = planted.verified;
            int oldLine = planted.line;
            update(planted, breakpoint);
            return wasVerified == planted.verified && oldLine == planted.line ? Optional.empty() : Optional.of(toDap(planted));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** How a stop at gdb breakpoint {@code number} is told: which DAP breakpoint, source or function. */
    Debuggee.StopReport stopFor(int gdbNumber, int threadId) {
        Planted planted = byGdbNumber.get(gdbNumber);
        if (planted == null) {
            return new Debuggee.StopReport("breakpoint", "gdb breakpoint " + gdbNumber, threadId, List.of());
        }
        return new Debuggee.StopReport(planted.function ? "function breakpoint" : "breakpoint", null, threadId,
                List.of(planted.id));
    }

    private Breakpoint toDap(Planted planted) {
        Breakpoint breakpoint = new Breakpoint();
        breakpoint.setId(planted.id);
        breakpoint.setVerified(planted.verified);
        breakpoint.setMessage(planted.message);
        if (planted.line > 0) {
            breakpoint.setLine(session.linesStartAt1() ? planted.line : planted.line - 1);
        }
        if (planted.path != null) {
            Source source = new Source();
            source.setPath(planted.path);
            source.setName(Path.of(planted.path).getFileName().toString());
            breakpoint.setSource(source);
        }
        return breakpoint;
    }
}
