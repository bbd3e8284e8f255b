package dev.jompd.dap.mi;

/** An MI record lacks a field the caller needs, or has one of the wrong kind. */
public class MiFormatException extends RuntimeException {
    public MiFormatException(String message) {
        super(message);
    }
}
