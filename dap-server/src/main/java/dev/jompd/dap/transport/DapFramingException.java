package dev.jompd.dap.transport;

/** The byte stream breaks DAP's framing (headers, Content-Length): the connection cannot continue. */
public final class DapFramingException extends RuntimeException {
    public DapFramingException(String message) {
        super(message);
    }
}
