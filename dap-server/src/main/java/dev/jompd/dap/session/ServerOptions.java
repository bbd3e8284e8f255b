package dev.jompd.dap.session;

import java.io.PrintStream;

/**
 * Settings of the whole server.
 *
 * @param gdbPath   gdb to run when a launch configuration names none ({@code miDebuggerPath})
 * @param log       where diagnostics go (stderr; never stdout, which may be the DAP stream)
 * @param verbose   log every message
 */
public record ServerOptions(String gdbPath, PrintStream log, boolean verbose) {
    public static ServerOptions defaults() {
        return new ServerOptions("gdb", System.err, false);
    }
}
