package dev.jompd.dap.gdb;

/** gdb could not be started at all (no such file, not executable): the user must point at a gdb. */
public final class GdbStartException extends GdbException {
    public GdbStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
