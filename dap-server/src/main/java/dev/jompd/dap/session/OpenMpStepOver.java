package dev.jompd.dap.session;

import dev.jompd.core.ompd.RuntimeEntryPoints;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.gdb.GdbException;
import dev.jompd.dap.gdb.GdbFrame;
import dev.jompd.dap.mi.MiValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One DAP next (Step Over a line) that may leave a region's or a task's code, between its stops: like gdb's
 * {@code next}, and where that ends on the directive's line (the outlined function's end) or in the runtime,
 * on by ompd-core's {@link RuntimeEntryPoints#leaveMove}: past the directive's line, out of the runtime to the
 * function that started the region or ran the task; a worker, with none of the program's code below, ends in
 * the runtime. Without the runtime loaded, a plain next.
 *
 * <p>Driven on the session's worker thread: {@link #start} at the request, {@link #movesOn} at each stop.
 */
final class OpenMpStepOver implements OpenMpStep {
    private static final int MAX_MOVES = 200;
    /** How deep a stopped thread's stack is looked through for the program's code below the runtime. */
    private static final int STACK_LOOKED_AT = 64;
    private final GdbDebugger debugger;
    private final Consumer<String> log;
    private final int thread;
    private final List<long[]> runtime;
    /**
     * The runtime's and the C library's code (a worker's stack ends in libc's start_thread): not the program's.
     * Asked for once, at the first stop in the runtime.
     */
    private List<long[]> notProgram;
    /** Where the step started: its frame, and its line. */
    private final GdbFrame startFrame;
    private final RuntimeEntryPoints.SourceLine startLine;
    /** Its stops from the start on, for ompd-core's rule: made at the first stop that needs it (null before). */
    private List<RuntimeEntryPoints.CodeStop> walk;
    private int moves;
    /** Whether the last move was a finish: gdb's stop after a finish out of libomp's assembly has no reason. */
    private boolean finishing;

    private OpenMpStepOver(GdbDebugger debugger, Consumer<String> log, int thread, List<long[]> runtime,
                           GdbFrame start) {
        this.debugger = debugger;
        this.log = log;
        this.thread = thread;
        this.runtime = runtime;
        this.startFrame = start;
        this.startLine = OpenMpStepIn.sourceLine(start);
    }

    /** Steps {@code thread} over its line: the step in progress, or empty when it is a plain next (no runtime, no frame). */
    static Optional<OpenMpStepOver> start(GdbDebugger debugger, Consumer<String> log, int thread) {
        List<long[]> runtime = debugger.libraryRanges(RuntimeEntryPoints::isRuntimeLibrary);
        List<GdbFrame> top = runtime.isEmpty() ? List.of() : debugger.frames(thread, 0, 0);
        Optional<OpenMpStepOver> step = top.isEmpty() || OpenMpStepIn.inRuntime(runtime, top.getFirst()) ? Optional.empty()
                : Optional.of(new OpenMpStepOver(debugger, log, thread, runtime, top.getFirst()));
        debugger.next(thread, false);
        return step;
    }

    @Override
    public boolean movesOn(String reason, MiValue.Tuple results) {
        int stopped = results.string("thread-id").map(Integer::parseInt).orElse(-1);
        boolean stepStop = reason.equals("end-stepping-range") || reason.equals("function-finished")
                || (finishing && reason.isEmpty());
        finishing = false;
        if (++moves > MAX_MOVES || stopped != thread || !stepStop) {
            return false; // another thread's stop, a breakpoint, a signal, an exit, a pause: theirs to tell
        }
        try {
            Optional<GdbFrame> frame = results.get("frame").map(GdbFrame::parse);
            if (frame.isEmpty()) {
                return false;
            }
            boolean inRuntime = OpenMpStepIn.inRuntime(runtime, frame.get());
            if (!inRuntime && !RuntimeEntryPoints.isAbove(OpenMpStepIn.sourceLine(frame.get()), startLine)) {
                return false; // on, not back to a line above: arrived (leaveMove's answer), no function entry asked for
            }
            if (walk == null) {
                walk = new ArrayList<>(List.of(OpenMpStepIn.codeStop(debugger, startFrame)));
            }
            boolean programBelow = inRuntime && debugger.frames(thread, 1, STACK_LOOKED_AT).stream()
                    .anyMatch(below -> !OpenMpStepIn.inRuntime(notProgram(), below));
            walk.add(inRuntime ? new RuntimeEntryPoints.CodeStop(new RuntimeEntryPoints.SourceLine("", 0),
                    new RuntimeEntryPoints.SourceLine("", 0)) : OpenMpStepIn.codeStop(debugger, frame.get()));
            return switch (RuntimeEntryPoints.leaveMove(walk, inRuntime, programBelow)) {
                case ARRIVED -> false;
                case NEXT -> move(() -> debugger.next(thread, false));
                case FINISH -> {
                    finishing = true;
                    yield move(() -> debugger.finish(thread));
                }
            };
        } catch (GdbException e) {
            log.accept("next out of OpenMP code stopped: " + e.getMessage());
            return false;
        }
    }

    private List<long[]> notProgram() {
        if (notProgram == null) {
            notProgram = new ArrayList<>(runtime);
            notProgram.addAll(debugger.libraryRanges(OpenMpStepOver::isCLibrary));
        }
        return notProgram;
    }

    /** Whether the shared library at {@code path} is the C library (or its dynamic loader). */
    private static boolean isCLibrary(String path) {
        String name = java.nio.file.Path.of(path).getFileName().toString();
        return name.startsWith("libc.so") || name.startsWith("libpthread.so") || name.startsWith("ld-linux");
    }

    private static boolean move(Runnable command) {
        command.run(); // still STEPPING: no "continued" event, the client waits for its step's stop
        return true;
    }
}
