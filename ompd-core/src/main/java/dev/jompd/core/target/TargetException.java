package dev.jompd.core.target;

/** Any failure of a backend: unreadable memory, a malformed file, a process that went away. */
public class TargetException extends RuntimeException {
    public TargetException(String message) { super(message); }

    public TargetException(String message, Throwable cause) { super(message, cause); }
}
