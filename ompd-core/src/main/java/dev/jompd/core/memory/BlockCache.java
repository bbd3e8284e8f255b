package dev.jompd.core.memory;

import dev.jompd.core.target.MemoryReadException;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Aligned blocks of a stopped target's memory, kept for one stop: a struct walked field by field costs one read
 * of the source per block. A block that cannot be read whole (the end of a mapping) is remembered as such, and
 * the part asked for is read exactly. Bounded: past {@code maxBlocks} the cache starts again. Not thread-safe:
 * its owner synchronizes.
 */
public final class BlockCache {
    /** Where the bytes come from (a backend, or a debugger asked over a channel). */
    @FunctionalInterface
    public interface Source {
        void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException;
    }

    private final int blockSize;
    private final int maxBlocks;
    private final Source source;
    /** Blocks by start address; a null value: known to be unreadable as a whole. */
    private final Map<Long, byte[]> blocks = new HashMap<>();

    public BlockCache(int blockSize, int maxBlocks, Source source) {
        if (Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("block size " + blockSize + " is not a power of two");
        }
        this.blockSize = blockSize;
        this.maxBlocks = maxBlocks;
        this.source = source;
    }

    /** Reads exactly {@code length} bytes at {@code address} into {@code buffer[offset..]}. */
    public void read(long address, byte[] buffer, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        int done = 0;
        while (done < length) {
            long at = address + done;
            long blockStart = at & -blockSize;
            int inBlock = (int) (at - blockStart);
            int chunk = Math.min(length - done, blockSize - inBlock);
            byte[] block = block(blockStart);
            if (block != null) {
                System.arraycopy(block, inBlock, buffer, offset + done, chunk);
            } else {
                // The whole block is not readable; the part asked for may be.
                source.read(at, buffer, offset + done, chunk);
            }
            done += chunk;
        }
    }

    private byte[] block(long blockStart) {
        byte[] cached = blocks.get(blockStart);
        if (cached != null || blocks.containsKey(blockStart)) {
            return cached;
        }
        byte[] block = new byte[blockSize];
        try {
            source.read(blockStart, block, 0, blockSize);
        } catch (MemoryReadException partial) {
            block = null;
        }
        if (blocks.size() >= maxBlocks) {
            blocks.clear();
        }
        blocks.put(blockStart, block);
        return block;
    }

    /** Drops every block: the target ran. */
    public void clear() {
        blocks.clear();
    }
}
