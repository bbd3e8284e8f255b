package dev.jompd.core.recorder;

import dev.jompd.core.target.TargetException;

/** The recorder's descriptor or records in the target are not what its self-description promises. */
public class RecorderFormatException extends TargetException {
    private final long address;

    public RecorderFormatException(String message, long address) {
        super(message);
        this.address = address;
    }

    public RecorderFormatException(String message, long address, Throwable cause) {
        super(message, cause);
        this.address = address;
    }

    /** Where the offending data was read. */
    public long address() {
        return address;
    }
}
