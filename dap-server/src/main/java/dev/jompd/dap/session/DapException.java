package dev.jompd.dap.session;

import java.util.Objects;

/**
 * A request cannot be served: the message is the error response's text, the {@link ErrorId} its stable
 * id and whether the user is interrupted with it.
 */
public class DapException extends RuntimeException {
    private final ErrorId errorId;

    public DapException(ErrorId errorId, String message) {
        super(message);
        this.errorId = Objects.requireNonNull(errorId);
    }

    public DapException(ErrorId errorId, String message, Throwable cause) {
        super(message, cause);
        this.errorId = Objects.requireNonNull(errorId);
    }

    public ErrorId errorId() {
        return errorId;
    }
}
