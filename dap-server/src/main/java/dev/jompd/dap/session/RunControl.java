package dev.jompd.dap.session;

/**
 * The program's run state and the one place it changes. Read from other threads (the gdb reader asks
 * whether the program runs), changed on the session's worker.
 */
final class RunControl {
    private volatile RunState state = RunState.NOT_STARTED;

    RunState state() {
        return state;
    }

    /** Moves to {@code next}; returns the state left. Throws when the run-state table does not allow it. */
    RunState moveTo(RunState next) {
        RunState from = state;
        if (!from.next().contains(next)) {
            throw new RunState.IllegalTransitionException(from, next);
        }
        state = next;
        return from;
    }

    boolean is(RunState wanted) {
        return state == wanted;
    }

    boolean isRunning() {
        return state.isRunning();
    }

    boolean isOver() {
        return state.isOver();
    }

    /** Fails with the id that says why, unless the program is stopped. */
    void requireStopped(String what) {
        switch (state) {
            case STOPPED -> { }
            case RUNNING, STEPPING, PAUSING -> throw new DapException(ErrorId.NOT_STOPPED,
                    what + ": the program is running (pause it first)");
            case NOT_STARTED -> throw new DapException(ErrorId.NOT_STOPPED, what + ": the program has not started yet");
            case EXITED, DISCONNECTING, TERMINATED -> throw new DapException(ErrorId.PROGRAM_EXITED,
                    what + ": the program has exited");
        }
    }
}
