package dev.jompd.dap.mi;

import java.util.OptionalLong;

/**
 * One line of GDB/MI output (GDB manual, "GDB/MI Output Syntax"): a result record ({@code ^done}), an
 * async record ({@code *stopped}, {@code +download}, {@code =thread-created}), a stream record
 * ({@code ~"text"}, {@code @"text"}, {@code &"text"}), the prompt {@code (gdb)}, or a line that is not MI
 * at all (a program writing to gdb's terminal).
 */
public sealed interface MiRecord {

    /** {@code [token]^class[,results]}: the answer to the command carrying the same token. */
    record ResultRecord(OptionalLong token, String resultClass, MiValue.Tuple results) implements MiRecord {
        public boolean isError() {
            return resultClass.equals("error");
        }
    }

    /** The three kinds of async output. */
    enum AsyncKind {
        /** {@code *}: execution state changed (running, stopped). */
        EXEC,
        /** {@code +}: progress of a slow operation. */
        STATUS,
        /** {@code =}: something happened (threads, libraries, breakpoints). */
        NOTIFY
    }

    /** {@code [token](*|+|=)class[,results]}. */
    record AsyncRecord(OptionalLong token, AsyncKind kind, String asyncClass, MiValue.Tuple results)
            implements MiRecord {}

    /** The three kinds of stream output. */
    enum StreamKind {
        /** {@code ~}: the CLI's console output. */
        CONSOLE,
        /** {@code @}: the program's output (remote targets). */
        TARGET,
        /** {@code &}: gdb's own log and error messages. */
        LOG
    }

    /** {@code (~|@|&)"c-string"}. */
    record StreamRecord(StreamKind kind, String text) implements MiRecord {}

    /** {@code (gdb)}: the end of one burst of output. */
    record Prompt() implements MiRecord {}

    /** A line that does not start like MI output: printed by someone else into gdb's stream. */
    record Unrecognized(String line) implements MiRecord {}
}
