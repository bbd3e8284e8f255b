package dev.jompd.core.memory;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetArchitecture;

import java.nio.ByteBuffer;

/**
 * Typed, cached reads of one stopped target: everything above the backends reads through this. Reads
 * go to the backend in aligned blocks ({@link BlockCache}), so walking a struct field by field costs one
 * backend read. The cache belongs to one stop: {@link #invalidate()} is the only place it is cleared.
 */
public final class TargetMemory {
    /** Block size of the cache: one page, the granularity mappings come in. */
    static final int BLOCK_SIZE = 4096;
    /** Bound on cached blocks (64 MiB): a pathological walk cannot exhaust the heap. */
    private static final int MAX_CACHED_BLOCKS = 16_384;

    private final AddressSpace target;
    private final TargetArchitecture architecture;
    private final BlockCache blocks = new BlockCache(BLOCK_SIZE, MAX_CACHED_BLOCKS, this::readThrough);
    private long backendReads;
    private long backendBytes;

    public TargetMemory(AddressSpace target) {
        this.target = target;
        this.architecture = target.architecture();
    }

    public AddressSpace target() {
        return target;
    }

    public TargetArchitecture architecture() {
        return architecture;
    }

    /** Drops every cached byte: the target resumed, or a new stop began. */
    public synchronized void invalidate() {
        blocks.clear();
    }

    /** Reads exactly {@code length} bytes at {@code address}. */
    public synchronized byte[] read(long address, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        byte[] result = new byte[length];
        if (length == 0) {
            return result;
        }
        if (Long.compareUnsigned(address, -1L - (length - 1)) > 0) {
            throw new MemoryReadException(target.name(), address, length, "range wraps around the address space");
        }
        blocks.read(address, result, 0, length);
        return result;
    }

    private void readThrough(long address, byte[] into, int offset, int length) {
        backendReads++;
        backendBytes += length;
        target.read(address, into, offset, length);
    }

    /** An unsigned integer of {@code size} bytes (1, 2, 4 or 8), zero-extended. */
    public long readUnsigned(long address, int size) {
        ByteBuffer buffer = ByteBuffer.wrap(read(address, size)).order(architecture.byteOrder());
        return switch (size) {
            case 1 -> buffer.get() & 0xffL;
            case 2 -> buffer.getShort() & 0xffffL;
            case 4 -> buffer.getInt() & 0xffff_ffffL;
            case 8 -> buffer.getLong();
            default -> throw new IllegalArgumentException("no integer of " + size + " bytes");
        };
    }

    /** A signed integer of {@code size} bytes (1, 2, 4 or 8), sign-extended. */
    public long readSigned(long address, int size) {
        ByteBuffer buffer = ByteBuffer.wrap(read(address, size)).order(architecture.byteOrder());
        return switch (size) {
            case 1 -> buffer.get();
            case 2 -> buffer.getShort();
            case 4 -> buffer.getInt();
            case 8 -> buffer.getLong();
            default -> throw new IllegalArgumentException("no integer of " + size + " bytes");
        };
    }

    public long readPointer(long address) {
        return readUnsigned(address, architecture.pointerSize());
    }

    /**
     * A NUL-terminated string of at most {@code maxLength} bytes (UTF-8), through the cache; longer strings are
     * cut there ({@link AddressSpace#readCString(long, int)}).
     */
    public String readCString(long address, int maxLength) {
        return AddressSpace.readCString((at, into, offset, length) -> System.arraycopy(read(at, length), 0, into, offset, length),
                address, maxLength);
    }

    /** How many reads and bytes reached the backend since this memory was created. */
    public synchronized ReadStatistics statistics() {
        return new ReadStatistics(backendReads, backendBytes);
    }

    /** Counters of backend traffic. */
    public record ReadStatistics(long reads, long bytes) {}
}
