package dev.jompd.dap.session;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.ClangOpenMpPrologue;
import dev.jompd.core.ompd.RuntimeEntryPoints;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.gdb.GdbException;
import dev.jompd.dap.gdb.GdbFrame;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.mi.MiValue;
import dev.jompd.dap.openmp.OpenMpTarget;
import dev.jompd.dap.openmp.OpenMpView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * One DAP stepIn that goes into the OpenMP code its line starts (the gdb bridge's {@code ompd step}),
 * between its stops: what it has set, where it started, how far it went. From a {@code #pragma omp
 * parallel} line to the first line of the region's code this thread runs, from a task this thread runs at
 * once or at a taskwait to the task's code; calls into the runtime are stepped out of ({@code -exec-finish})
 * while the line is not done. Thread-specific helper breakpoints where the runtime starts a region's or a
 * task's code, and at each the code's entry point; from there steps on to the code's first line (past the
 * lines of the directive: its {@code {}, its clauses' code, and out of the functions that code calls): all
 * three from ompd-core's {@link RuntimeEntryPoints}, which the gdb bridge uses too. Without the runtime
 * loaded, a plain step.
 *
 * <p>Driven on the session's worker thread: {@link #start} at the request, {@link #movesOn} at each stop.
 */
final class OpenMpStepIn implements OpenMpStep {
    private static final int MAX_MOVES = 200;
    private final GdbDebugger debugger;
    /** The program's OpenMP target (null when there is none: tasks are then stepped over). */
    private final OpenMpTarget openmp;
    private final Consumer<String> log;
    private final int thread;
    private final List<long[]> runtime;
    private final String line;
    /** The helper breakpoints by gdb number: the function each is on. */
    private final Map<Integer, String> helpers;
    private OptionalInt codeEntry = OptionalInt.empty();
    /** From the code's entry on: its stops (null before). */
    private List<RuntimeEntryPoints.CodeStop> walk;
    private int moves;

    private OpenMpStepIn(GdbDebugger debugger, OpenMpTarget openmp, Consumer<String> log, int thread,
                         List<long[]> runtime, String line, Map<Integer, String> helpers) {
        this.debugger = debugger;
        this.openmp = openmp;
        this.log = log;
        this.thread = thread;
        this.runtime = runtime;
        this.line = line;
        this.helpers = helpers;
    }

    /**
     * Steps {@code thread} into its line: the step in progress, or empty when it is a plain step (no
     * runtime loaded, no frame).
     */
    static Optional<OpenMpStepIn> start(GdbDebugger debugger, OpenMpTarget openmp, Consumer<String> log, int thread) {
        List<long[]> runtime = debugger.libraryRanges(RuntimeEntryPoints::isRuntimeLibrary);
        List<GdbFrame> top = runtime.isEmpty() ? List.of() : debugger.frames(thread, 0, 0);
        if (top.isEmpty()) {
            debugger.step(thread, false);
            return Optional.empty();
        }
        Map<Integer, String> helpers = new HashMap<>();
        for (String function : RuntimeEntryPoints.breakpoints()) {
            debugger.insertThreadBreakpoint(function, thread, false).ifPresent(number -> helpers.put(number, function));
        }
        OpenMpStepIn step = new OpenMpStepIn(debugger, openmp, log, thread, runtime, lineOf(top.getFirst()), helpers);
        try {
            debugger.step(thread, false);
        } catch (GdbException e) {
            step.end();
            throw e;
        }
        return Optional.of(step);
    }

    /**
     * Decides at a stop: moves on (true: another gdb command is running) or ends the step (false: the
     * stop is the client's, told as usual; the helpers are gone).
     */
    @Override
    public boolean movesOn(String reason, MiValue.Tuple results) {
        int stopped = results.string("thread-id").map(Integer::parseInt).orElse(-1);
        boolean stepStop = reason.equals("end-stepping-range") || reason.equals("function-finished")
                || reason.equals("location-reached");
        if (++moves > MAX_MOVES || stopped != thread || !(stepStop || reason.equals("breakpoint-hit"))) {
            return end(); // another thread's stop, a signal, an exit, a pause: theirs to tell
        }
        try {
            if (reason.equals("breakpoint-hit")) {
                int number = results.string("bkptno").map(Integer::parseInt).orElse(-1);
                String helper = helpers.get(number);
                if (helper != null) {
                    OptionalLong entry = codeEntryAt(helper);
                    removeHelpers();
                    if (entry.isPresent()) {
                        codeEntry = debugger.insertThreadBreakpoint("*0x" + Long.toHexString(entry.getAsLong()), thread, true);
                        if (codeEntry.isPresent()) { // never a continue without the stop at its end
                            return move(debugger::continueAll);
                        }
                    }
                } else if (is(codeEntry, number)) {
                    codeEntry = OptionalInt.empty(); // temporary: gone
                    Optional<GdbFrame> entry = frame(results);
                    if (entry.isEmpty()) {
                        return end();
                    }
                    walk = new ArrayList<>(List.of(codeStop(entry.get())));
                    return move(() -> debugger.step(thread, false)); // on to the code's first line
                } else {
                    return end(); // the user's breakpoint
                }
            }
            Optional<GdbFrame> frame = frame(results);
            if (frame.isEmpty()) {
                return end();
            }
            if (inRuntime(frame.get())) {
                return move(() -> debugger.finish(thread));
            }
            if (walk != null) { // from the code's entry on: to its first line, by ompd-core's rule
                walk.add(codeStop(frame.get()));
                return switch (RuntimeEntryPoints.codeMove(walk)) {
                    case ARRIVED -> end();
                    case STEP -> move(() -> debugger.step(thread, false));
                    case FINISH -> move(() -> debugger.finish(thread)); // out of what the directive's code calls
                };
            }
            if (!line.isEmpty() && lineOf(frame.get()).equals(line)) {
                return move(() -> debugger.step(thread, false)); // the line is not done yet
            }
            OptionalLong stored = frame.get().address().isPresent() ? afterParameterStores(frame.get().address().getAsLong())
                    : OptionalLong.empty();
            if (stored.isPresent()) { // stepped into a clang function with OpenMP directives: on to its parameters' values
                return move(() -> debugger.runTo(thread, stored.getAsLong()));
            }
            return end();
        } catch (GdbException e) {
            log.accept("stepIn into OpenMP code stopped: " + e.getMessage());
            return end();
        }
    }

    /**
     * Where the parameters of the function a step stopped in at {@code address} hold their values, when gdb's
     * stop (after the prologue, as for {@code break}) is before clang stores them: ompd-core's
     * {@link ClangOpenMpPrologue}, as the session's breakpoints do.
     */
    private OptionalLong afterParameterStores(long address) {
        GdbDebugger.LineInstructions line = debugger.lineInstructions(address);
        return ClangOpenMpPrologue.afterParameterStores(line.instructions(), line.end());
    }

    /** Ends the step: its helper breakpoints go. */
    boolean end() {
        removeHelpers();
        codeEntry.ifPresent(number -> debugger.deleteBreakpoints(List.of(number)));
        codeEntry = OptionalInt.empty();
        return false;
    }

    private boolean move(Runnable command) {
        command.run(); // still STEPPING: no "continued" event, the client waits for its step's stop
        return true;
    }

    private void removeHelpers() {
        List<Integer> numbers = new ArrayList<>(helpers.keySet());
        helpers.clear();
        debugger.deleteBreakpoints(numbers);
    }

    /**
     * At helper {@code function}: the entry point of the code it starts, by ompd-core's rule (the region's
     * from the thread's registers, the task's from OMPD), or empty when it cannot be read.
     */
    private OptionalLong codeEntryAt(String function) {
        if (RuntimeEntryPoints.isTaskStart(function)) {
            return inThisStop(view -> {
                List<GdbThread> list = debugger.threads();
                OptionalLong lwp = list.stream().filter(t -> t.id() == thread).findFirst().map(GdbThread::lwp)
                        .orElse(OptionalLong.empty());
                if (lwp.isEmpty()) {
                    return OptionalLong.empty();
                }
                return view.open(list).thread(lwp.getAsLong())
                        .map(t -> OptionalLong.of(RuntimeEntryPoints.taskEntry(t))).orElse(OptionalLong.empty());
            });
        }
        return inThisStop(view -> {
            Map<String, Long> registers = debugger.registers(thread, RuntimeEntryPoints.REGISTERS_READ);
            RuntimeEntryPoints.RegisterReader reader = name -> {
                Long value = registers.get(name);
                if (value == null) {
                    throw new GdbException("gdb did not read register " + name);
                }
                return value;
            };
            return OptionalLong.of(RuntimeEntryPoints.regionEntry(function, reader, view::process));
        });
    }

    /** The OpenMP process of the stop at a helper, opened only if asked for (a GNU entry point needs none). */
    private final class StopView {
        private OpenMpView view;

        OpenMpView open(List<GdbThread> threads) {
            if (openmp == null) {
                throw new OpenMpTarget.UnavailableException("no OpenMP target", null);
            }
            if (view == null) {
                view = openmp.view(() -> threads);
            }
            return view;
        }

        AddressSpaceHandle process() {
            return open(debugger.threads()).process();
        }

        void close() {
            if (view != null) {
                openmp.resumed(); // this stop ends here: nothing read in it may outlive it
            }
        }
    }

    private interface Reading {
        OptionalLong read(StopView view);
    }

    private OptionalLong inThisStop(Reading reading) {
        StopView view = new StopView();
        try {
            return reading.read(view);
        } catch (RuntimeException e) {
            log.accept("stepIn into OpenMP code: no entry point at the runtime's start of the code: " + e.getMessage());
            return OptionalLong.empty();
        } finally {
            view.close();
        }
    }

    private static boolean is(OptionalInt breakpoint, int number) {
        return breakpoint.isPresent() && breakpoint.getAsInt() == number;
    }

    private static Optional<GdbFrame> frame(MiValue.Tuple results) {
        return results.get("frame").map(GdbFrame::parse);
    }

    private RuntimeEntryPoints.CodeStop codeStop(GdbFrame frame) {
        return codeStop(debugger, frame);
    }

    /** Where {@code frame} is, and where its function's first instruction is (no line: 0). */
    static RuntimeEntryPoints.CodeStop codeStop(GdbDebugger debugger, GdbFrame frame) {
        RuntimeEntryPoints.SourceLine none = new RuntimeEntryPoints.SourceLine("", 0);
        RuntimeEntryPoints.SourceLine entry = frame.address().isPresent()
                ? debugger.functionEntry(frame.address().getAsLong()).orElse(none) : none;
        return new RuntimeEntryPoints.CodeStop(sourceLine(frame), entry);
    }

    /** Where {@code frame} is (no line: 0). */
    static RuntimeEntryPoints.SourceLine sourceLine(GdbFrame frame) {
        return frame.line() > 0 ? new RuntimeEntryPoints.SourceLine(frame.fullname().or(frame::file).orElse("?"), frame.line())
                : new RuntimeEntryPoints.SourceLine("", 0);
    }

    static String lineOf(GdbFrame frame) {
        return frame.line() > 0 ? frame.fullname().or(frame::file).orElse("?") + ":" + frame.line() : "";
    }

    private boolean inRuntime(GdbFrame frame) {
        return inRuntime(runtime, frame);
    }

    /** Whether {@code frame} is in the runtime's code ({@code runtime}: its address ranges) or has no line. */
    static boolean inRuntime(List<long[]> runtime, GdbFrame frame) {
        if (frame.line() <= 0) {
            return true; // no source: the runtime, libc
        }
        long address = frame.address().orElse(0);
        return runtime.stream().anyMatch(range -> Long.compareUnsigned(address, range[0]) >= 0
                && Long.compareUnsigned(address, range[1]) < 0);
    }
}
