package dev.jompd.core.target;

/** A read the backend could not satisfy: carries the address, the length and the backend's name. */
public class MemoryReadException extends TargetException {
    private final long address;
    private final long length;

    public MemoryReadException(String backend, long address, long length, String reason) {
        super("%s: cannot read %d bytes at 0x%x: %s".formatted(backend, length, address, reason));
        this.address = address;
        this.length = length;
    }

    public long address() { return address; }

    public long length() { return length; }
}
