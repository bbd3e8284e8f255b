package dev.jompd.core.target.core;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ProgramHeader;
import dev.jompd.core.target.MemoryReadException;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A core's view of the target's memory: the core's PT_LOAD segments on top, the files the target had
 * mapped (NT_FILE) underneath. Cores leave out what can be found on disk (the kernel omits read-only
 * file-backed mappings except their first page, gdb omits some too), and a segment's bytes beyond its
 * {@code p_filesz} are not in the core either; such bytes are read from the mapped file. Bytes found in
 * neither raise {@link MemoryReadException}; a segment that runs past the end of a truncated core keeps
 * the part the core holds.
 *
 * <p>Thread-safe: a mapped file's bytes, once found, are kept (racing threads store the same view).
 */
final class SplicedMemory {

    /** The bytes of the file behind a mapping, checked (a module's build-id), or why not. */
    @FunctionalInterface
    interface MappedFiles {
        /**
         * @param address the read that needs the file, for the message
         * @throws MemoryReadException when the file is gone, unreadable or another build than the target's
         */
        ByteView bytesOf(FileMapping mapping, long address, int length);
    }

    private final String name;
    private final ByteView core;
    private final AddressRanges coreSegments;
    /** By segment id: where the segment's bytes start in the core file. */
    private final long[] coreSegmentFileOffsets;
    /** Whether some segment's bytes run past the end of the core (a truncated dump). */
    private final boolean coreTruncated;
    private final List<FileMapping> mappings;
    private final AddressRanges mappingRanges;
    /** By mapping id: the mapped file's bytes once found and checked, so later reads skip the checks. */
    private final ByteView[] resolvedMappingBytes;
    private final MappedFiles files;

    /**
     * @param name  the backend's name, for messages
     * @param core  the core file's bytes
     * @param loads the core's PT_LOAD program headers
     * @param files where the bytes of mapped files come from
     */
    SplicedMemory(String name, ByteView core, List<ProgramHeader> loads, List<FileMapping> mappings, MappedFiles files) {
        this.name = name;
        this.core = core;
        this.mappings = List.copyOf(mappings);
        this.files = Objects.requireNonNull(files);
        List<AddressRanges.Range> segmentRanges = new ArrayList<>();
        this.coreSegmentFileOffsets = new long[loads.size()];
        boolean truncated = false;
        for (int id = 0; id < loads.size(); id++) {
            ProgramHeader load = loads.get(id);
            long present = load.fileSize();
            // A truncated core still has its earlier segments; keep what is there.
            if (load.offset() < 0 || load.offset() > core.size()) {
                present = 0;
            } else if (present < 0 || present > core.size() - load.offset()) {
                present = core.size() - load.offset();
            }
            truncated |= present != load.fileSize();
            long end = load.virtualAddress() + present;
            if (Long.compareUnsigned(end, load.virtualAddress()) < 0) {
                end = -1L; // the segment runs to the top of the address space
            }
            coreSegmentFileOffsets[id] = load.offset();
            segmentRanges.add(new AddressRanges.Range(load.virtualAddress(), end, id));
        }
        this.coreSegments = AddressRanges.of(segmentRanges);
        this.coreTruncated = truncated;
        List<AddressRanges.Range> ranges = new ArrayList<>();
        for (int id = 0; id < this.mappings.size(); id++) {
            FileMapping mapping = this.mappings.get(id);
            ranges.add(new AddressRanges.Range(mapping.start(), mapping.end(), id));
        }
        this.mappingRanges = AddressRanges.of(ranges);
        this.resolvedMappingBytes = new ByteView[this.mappings.size()];
    }

    /** The file mapping holding {@code address}, if any. */
    Optional<FileMapping> mappingAt(long address) {
        int position = mappingRanges.find(address);
        return position < 0 ? Optional.empty() : Optional.of(mappings.get(mappingRanges.id(position)));
    }

    /**
     * Reads exactly {@code length} bytes at {@code address}, from the core where it has them, else from
     * the mapped files.
     *
     * @throws MemoryReadException when some byte is in neither
     */
    void read(long address, byte[] buffer, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        long cursor = address;
        int done = 0;
        while (done < length) {
            int remaining = length - done;
            int position = coreSegments.find(cursor);
            int chunk = position >= 0
                    ? readFromCore(position, cursor, buffer, offset + done, remaining)
                    : readFromMappedFile(cursor, buffer, offset + done, remaining, address, length);
            done += chunk;
            cursor += chunk;
            if (done < length && cursor == 0) {
                throw new MemoryReadException(name, address, length, "the range wraps around the end of the address space");
            }
        }
    }

    /** Reads only what the core itself holds (no mapped files): what the target's memory really said. */
    Optional<byte[]> readCoreOnly(long address, long length) {
        if (length < 0 || length > Integer.MAX_VALUE - 16) {
            return Optional.empty();
        }
        byte[] bytes = new byte[(int) length];
        long cursor = address;
        int done = 0;
        while (done < length) {
            int position = coreSegments.find(cursor);
            if (position < 0) {
                return Optional.empty();
            }
            int chunk = readFromCore(position, cursor, bytes, done, bytes.length - done);
            done += chunk;
            cursor += chunk;
            if (done < length && cursor == 0) {
                return Optional.empty();
            }
        }
        return Optional.of(bytes);
    }

    private int readFromCore(int position, long cursor, byte[] buffer, int bufferOffset, int remaining) {
        long available = coreSegments.end(position) - cursor;
        int chunk = Long.compareUnsigned(available, remaining) < 0 ? (int) available : remaining;
        long fileOffset = coreSegmentFileOffsets[coreSegments.id(position)] + (cursor - coreSegments.start(position));
        core.copyTo(fileOffset, buffer, bufferOffset, chunk);
        return chunk;
    }

    private int readFromMappedFile(long cursor, byte[] buffer, int bufferOffset, int remaining,
                                   long address, int length) {
        int position = mappingRanges.find(cursor);
        if (position < 0) {
            throw new MemoryReadException(name, address, length, "0x%x is neither in the core nor in a file the target had mapped%s"
                    .formatted(cursor, coreTruncated ? " (the core file is truncated)" : ""));
        }
        int mappingId = mappingRanges.id(position);
        FileMapping mapping = mappings.get(mappingId);
        long limit = mappingRanges.end(position);
        long nextCoreSegment = coreSegments.nextStartAfter(cursor);
        if (nextCoreSegment != 0 && Long.compareUnsigned(nextCoreSegment, limit) < 0) {
            limit = nextCoreSegment; // the core's copy of the next bytes is the newer one
        }
        long available = limit - cursor;
        int chunk = Long.compareUnsigned(available, remaining) < 0 ? (int) available : remaining;
        ByteView fileBytes = resolvedMappingBytes[mappingId];
        if (fileBytes == null) {
            fileBytes = files.bytesOf(mapping, address, length);
            resolvedMappingBytes[mappingId] = fileBytes; // racing threads store the same view
        }
        long fileOffset = mapping.fileOffset() + (cursor - mapping.start());
        if (!fileBytes.contains(fileOffset, chunk)) {
            throw new MemoryReadException(name, address, length, "0x%x is not in the core and maps offset 0x%x of %s, beyond its end (%d bytes)"
                    .formatted(cursor, fileOffset, fileBytes.source(), fileBytes.size()));
        }
        fileBytes.copyTo(fileOffset, buffer, bufferOffset, chunk);
        return chunk;
    }
}
