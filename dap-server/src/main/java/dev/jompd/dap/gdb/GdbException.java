package dev.jompd.dap.gdb;

/** gdb could not do what was asked: the base of gdb's own errors, timeouts and exits. */
public class GdbException extends RuntimeException {
    public GdbException(String message) {
        super(message);
    }

    public GdbException(String message, Throwable cause) {
        super(message, cause);
    }
}
