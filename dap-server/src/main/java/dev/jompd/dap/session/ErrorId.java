package dev.jompd.dap.session;

/**
 * Every error a DAP response can carry, with a number that stays the same from release to release
 * (clients and tests may match on it) and whether the user must act on it. VS Code shows a
 * notification for an error response whose {@code showUser} is true, so only failures that stop the
 * user's session from starting say so; a failed hover, watch or console evaluation, a request out of
 * order or a stale handle is answered quietly and VS Code shows the message where it was asked.
 */
public enum ErrorId {
    // the protocol: the client sent something this server cannot serve
    MALFORMED_MESSAGE(1001, false, "a message that is no DAP request"),
    UNKNOWN_COMMAND(1002, false, "a command this server does not offer"),
    INVALID_ARGUMENTS(1003, false, "a request's arguments are missing or of the wrong type"),
    OUT_OF_ORDER(1004, false, "a request the session's phase does not allow (initialize first, launch first, already launched, ended)"),
    // the program's run state
    NOT_STOPPED(1101, false, "the request needs a stopped program (it runs or has not started)"),
    PROGRAM_EXITED(1102, false, "the program has exited"),
    NO_RUN_CONTROL(1103, false, "a core file cannot run, step or pause"),
    STALE_HANDLE(1104, false, "a frame, variables reference or thread unknown or from an earlier stop"),
    // what the user asked gdb or jompd
    EVALUATION_FAILED(1201, false, "an expression or console command gdb could not evaluate (hover, watch, REPL)"),
    OPENMP_UNAVAILABLE(1202, false, "no OpenMP picture at this stop (libomp not loaded or not initialised)"),
    GDB_COMMAND_FAILED(1203, false, "gdb refused a command"),
    GDB_NOT_RESPONDING(1204, false, "gdb did not answer in time and is killed (told as output)"),
    GDB_EXITED(1205, false, "gdb exited during the session (told as output)"),
    SOURCE_UNAVAILABLE(1206, false, "a frame's source file is not on this machine or cannot be read"),
    // starting: the user must change the configuration or the machine
    LAUNCH_FAILED(1301, true, "launch or attach could not be set up (configuration, gdb failing at start)"),
    GDB_MISSING(1302, true, "gdb cannot be started (not installed, not at miDebuggerPath)"),
    PROGRAM_CANNOT_START(1303, true, "gdb cannot load the program, attach to the process or open the core"),
    // a bug in this server
    INTERNAL_ERROR(1901, false, "a bug in the server: the session goes on");

    private final int id;
    private final boolean showUser;
    private final String meaning;

    ErrorId(int id, boolean showUser, String meaning) {
        this.id = id;
        this.showUser = showUser;
        this.meaning = meaning;
    }

    /** The number sent as the DAP error message's {@code id}. */
    public int id() {
        return id;
    }

    /** Whether the client should interrupt the user with it (DAP's {@code showUser}). */
    public boolean showUser() {
        return showUser;
    }

    /** What the id stands for (the README's table). */
    public String meaning() {
        return meaning;
    }
}
