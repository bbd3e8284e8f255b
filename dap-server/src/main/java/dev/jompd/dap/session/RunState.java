package dev.jompd.dap.session;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where the program under debug is, as this session knows it. Every change goes through
 * {@link RunControl#moveTo}, which allows only the transitions listed here: anything else is a bug and
 * fails loudly instead of leaving the session believing two things at once.
 */
enum RunState {
    /** gdb is up and the program loaded (launch before configurationDone, attach before its stop). */
    NOT_STARTED,
    /** Running: continued by the client, started by launch, or resumed by a gdb command in the console. */
    RUNNING,
    /** Running a client's next, stepIn or stepOut until its stop (an OpenMP stepIn may take several gdb moves). */
    STEPPING,
    /** Running, and interrupted by the client's pause (or by terminate/disconnect): the next stop is a pause. */
    PAUSING,
    /** Stopped: threads, frames, variables and the OpenMP picture can be read. */
    STOPPED,
    /** The program has exited; gdb may still be there. */
    EXITED,
    /** Disconnect is killing or detaching the program: what gdb reports from now on is no news to the client. */
    DISCONNECTING,
    /** No program any more: killed, detached, or gdb gone. */
    TERMINATED;

    /** The states this one may move to. */
    Set<RunState> next() {
        return switch (this) {
            case NOT_STARTED -> EnumSet.of(RUNNING, STOPPED, EXITED, DISCONNECTING, TERMINATED);
            case RUNNING, STEPPING -> EnumSet.of(STOPPED, PAUSING, EXITED, DISCONNECTING, TERMINATED);
            case PAUSING -> EnumSet.of(STOPPED, EXITED, DISCONNECTING, TERMINATED);
            // STOPPED -> STOPPED: gdb reported a second stop without resuming (the warm-up's rehearsed stops too)
            case STOPPED -> EnumSet.of(RUNNING, STEPPING, STOPPED, EXITED, DISCONNECTING, TERMINATED);
            case EXITED -> EnumSet.of(DISCONNECTING, TERMINATED);
            case DISCONNECTING -> EnumSet.of(TERMINATED);
            case TERMINATED -> EnumSet.noneOf(RunState.class);
        };
    }

    /** The program runs: its threads and memory cannot be read now. */
    boolean isRunning() {
        return this == RUNNING || this == STEPPING || this == PAUSING;
    }

    /** The program is gone or going: nothing runs, stops or exits any more. */
    boolean isOver() {
        return this == EXITED || this == DISCONNECTING || this == TERMINATED;
    }

    /** An illegal transition: a bug in the session, never the user's doing. */
    static final class IllegalTransitionException extends IllegalStateException {
        private final RunState from;
        private final RunState to;

        IllegalTransitionException(RunState from, RunState to) {
            super("run state cannot move from " + from + " to " + to + " (allowed: " + from.next() + ")");
            this.from = from;
            this.to = to;
        }

        RunState from() {
            return from;
        }

        RunState to() {
            return to;
        }
    }
}
