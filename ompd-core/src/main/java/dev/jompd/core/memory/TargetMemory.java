package dev.jompd.core.memory;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetArchitecture;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * Typed, cached reads of one stopped target: everything above the backends reads through this. Reads
 * go to the backend in aligned blocks, so walking a struct field by field costs one backend read; a
 * block that cannot be read whole (the end of a mapping) falls back to the exact range. The cache
 * belongs to one stop: {@link #invalidate()} is the only place it is cleared.
 */
public final class TargetMemory {
    /** Block size of the cache: one page, the granularity mappings come in. */
    static final int BLOCK_SIZE = 4096;
    /** Bound on cached blocks (64 MiB): a pathological walk cannot exhaust the heap. */
    private static final int MAX_CACHED_BLOCKS = 16_384;

    private final AddressSpace target;
    private final TargetArchitecture architecture;
    private final Map<Long, byte[]> blocks = new HashMap<>();
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
        int copied = 0;
        while (copied < length) {
            long at = address + copied;
            long blockStart = at & -BLOCK_SIZE;
            int inBlock = (int) (at - blockStart);
            int chunk = Math.min(length - copied, BLOCK_SIZE - inBlock);
            byte[] block = block(blockStart);
            if (block != null) {
                System.arraycopy(block, inBlock, result, copied, chunk);
            } else {
                // The whole block is not readable; the requested part may still be.
                readThrough(at, result, copied, chunk);
            }
            copied += chunk;
        }
        return result;
    }

    private byte[] block(long blockStart) {
        byte[] cached = blocks.get(blockStart);
        if (cached != null) {
            return cached;
        }
        if (blocks.containsKey(blockStart)) {
            return null; // known to be unreadable as a whole
        }
        byte[] block = new byte[BLOCK_SIZE];
        try {
            readThrough(blockStart, block, 0, BLOCK_SIZE);
        } catch (MemoryReadException partial) {
            block = null;
        }
        if (blocks.size() >= MAX_CACHED_BLOCKS) {
            blocks.clear();
        }
        blocks.put(blockStart, block);
        return block;
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
     * A NUL-terminated string of at most {@code maxLength} bytes (UTF-8); longer strings are cut
     * there. Reads chunk by chunk so a string at the end of a mapping is still readable.
     */
    public String readCString(long address, int maxLength) {
        var bytes = new java.io.ByteArrayOutputStream();
        long at = address;
        while (bytes.size() < maxLength) {
            int chunk = (int) Math.min(maxLength - bytes.size(), BLOCK_SIZE - (at & (BLOCK_SIZE - 1)));
            byte[] part = read(at, chunk);
            for (byte b : part) {
                if (b == 0) {
                    return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
                }
                bytes.write(b);
            }
            at += chunk;
        }
        return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** How many reads and bytes reached the backend since this memory was created. */
    public synchronized ReadStatistics statistics() {
        return new ReadStatistics(backendReads, backendBytes);
    }

    /** Counters of backend traffic. */
    public record ReadStatistics(long reads, long bytes) {}
}
