package dev.jompd.dap.session;

/** A request cannot be served: the message is shown to the user as the error response's text. */
public class DapException extends RuntimeException {
    public DapException(String message) {
        super(message);
    }

    public DapException(String message, Throwable cause) {
        super(message, cause);
    }
}
