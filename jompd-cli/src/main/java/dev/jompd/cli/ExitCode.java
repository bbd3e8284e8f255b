package dev.jompd.cli;

/** The command line's exit codes (documented in {@code jompd --help} and the README). */
final class ExitCode {
    static final int OK = 0;
    static final int INTERNAL_ERROR = 1;
    static final int USAGE = 2;
    static final int BAD_INPUT = 3;
    static final int NOT_OPENMP = 4;
    static final int UNSUPPORTED_RUNTIME = 5;

    private ExitCode() {}
}
