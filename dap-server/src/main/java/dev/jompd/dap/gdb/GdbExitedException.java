package dev.jompd.dap.gdb;

/** gdb is gone (exited, crashed or killed) and cannot answer. */
public final class GdbExitedException extends GdbException {
    public GdbExitedException(String message) {
        super(message);
    }
}
