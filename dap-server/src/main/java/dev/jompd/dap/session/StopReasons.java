package dev.jompd.dap.session;

import dev.jompd.dap.mi.MiValue;

import java.util.List;

/**
 * gdb's {@code *stopped} reasons as DAP stopped events: a breakpoint (the client's, by its id), the entry
 * of a stopOnEntry launch, a step's end, a pause, a signal, a data breakpoint. Keeps the one fact the
 * mapping needs across stops: whether the launch's temporary breakpoint at main is still to come.
 */
final class StopReasons {
    /** The client's breakpoint that gdb breakpoint {@code number} stands for, as a stop of {@code threadId}. */
    @FunctionalInterface
    interface BreakpointStops {
        Debuggee.StopReport stopFor(int gdbNumber, int threadId);
    }

    private final BreakpointStops breakpoints;
    /** A launch with stopOnEntry whose temporary breakpoint at main has not been hit yet. */
    private boolean entryPending;

    StopReasons(BreakpointStops breakpoints) {
        this.breakpoints = breakpoints;
    }

    /** The program is run now; with stopOnEntry its first stop at a temporary breakpoint is the entry. */
    void running(boolean stopOnEntry) {
        entryPending = stopOnEntry;
    }

    /** The stop gdb reported with {@code reason} and {@code results}, told as what the client expects. */
    Debuggee.StopReport describe(String reason, MiValue.Tuple results, int threadId, boolean pauseRequested) {
        return switch (reason) {
            case "breakpoint-hit" -> {
                int number = results.string("bkptno").map(Integer::parseInt).orElse(-1);
                if (entryPending && results.string("disp").map("del"::equals).orElse(false)) {
                    entryPending = false;
                    yield new Debuggee.StopReport("entry", "Stopped at main", threadId, List.of());
                }
                yield breakpoints.stopFor(number, threadId);
            }
            case "end-stepping-range", "function-finished", "location-reached" ->
                    new Debuggee.StopReport("step", null, threadId, List.of());
            case "signal-received" -> {
                String signal = results.string("signal-name").orElse("?");
                if (pauseRequested && (signal.equals("SIGINT") || signal.equals("0") || signal.equals("SIGSTOP"))) {
                    yield new Debuggee.StopReport("pause", null, threadId, List.of());
                }
                yield new Debuggee.StopReport("exception", "Signal " + signal + results.string("signal-meaning")
                        .map(meaning -> ", " + meaning).orElse(""), threadId, List.of());
            }
            case "watchpoint-trigger", "read-watchpoint-trigger", "access-watchpoint-trigger" ->
                    new Debuggee.StopReport("data breakpoint", null, threadId, List.of());
            case "" -> new Debuggee.StopReport(pauseRequested ? "pause" : "entry", null, threadId, List.of());
            default -> new Debuggee.StopReport("pause", reason, threadId, List.of());
        };
    }

    /** gdb prints exit codes in octal ("01", "0377"). */
    static int exitCode(String text) {
        try {
            return text.startsWith("0") && text.length() > 1 ? Integer.parseInt(text.substring(1), 8) : Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
