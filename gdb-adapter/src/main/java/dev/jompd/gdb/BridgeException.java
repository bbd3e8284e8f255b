package dev.jompd.gdb;

/** A command cannot be answered for a reason the user can act on; the message says what to do. */
public final class BridgeException extends RuntimeException {
    public BridgeException(String message) {
        super(message);
    }
}
