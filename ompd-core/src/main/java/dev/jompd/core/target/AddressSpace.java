package dev.jompd.core.target;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A stopped target's memory, symbols and threads: the one thing a backend (core file, live process,
 * gdb) implements. A backend is a dumb byte reader and knows nothing of OpenMP; typed reads, caching
 * and pointer handling live above it ({@code dev.jompd.core.memory}).
 */
public interface AddressSpace extends AutoCloseable {

    /** A short name for messages, such as {@code core:/tmp/core.123} or {@code pid:4711}. */
    String name();

    /**
     * The target in a user's words, for a sentence about it: {@code process 4711}, {@code the core file
     * /tmp/core.123}. {@link #name()} where a backend has nothing plainer.
     */
    default String described() {
        return name();
    }

    /** Pointer size, integer sizes and byte order of the target. */
    TargetArchitecture architecture();

    /**
     * Reads exactly {@code length} bytes at {@code address} into {@code buffer[offset..]}.
     *
     * @throws MemoryReadException when any byte of the range cannot be read; never fills with zeros
     */
    void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException;

    /** An unsigned 32-bit word in the target's byte order. */
    default long readU32(long address) {
        return Integer.toUnsignedLong(word(address, 4).getInt());
    }

    /** A 64-bit word in the target's byte order. */
    default long readU64(long address) {
        return word(address, 8).getLong();
    }

    /** A pointer of the target's size, zero-extended. */
    default long readPointer(long address) {
        return architecture().pointerSize() == 4 ? readU32(address) : readU64(address);
    }

    private ByteBuffer word(long address, int size) {
        byte[] bytes = new byte[size];
        read(address, bytes, 0, size);
        return ByteBuffer.wrap(bytes).order(architecture().byteOrder());
    }

    /**
     * The NUL-terminated string at {@code address}, cut at {@code maxLength} bytes (UTF-8). Read in small pieces
     * that never cross a page, so a string ending just before an unreadable page is still read.
     *
     * @throws MemoryReadException when a byte before the NUL (or the cut) cannot be read
     */
    default String readCString(long address, int maxLength) {
        return readCString(this::read, address, maxLength);
    }

    /** Where {@link #readCString(long, int)} reads from: {@link #read}'s shape (also a cache above a backend). */
    @FunctionalInterface
    interface ByteRanges {
        void read(long address, byte[] buffer, int offset, int length);
    }

    /** {@link #readCString(long, int)} over any byte ranges. */
    static String readCString(ByteRanges memory, long address, int maxLength) {
        final int page = 4096;
        final int piece = 256;
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        byte[] chunk = new byte[piece];
        long at = address;
        while (text.size() < maxLength) {
            int length = (int) Math.min(Math.min(piece, maxLength - text.size()), page - (at & (page - 1)));
            memory.read(at, chunk, 0, length);
            for (int i = 0; i < length; i++) {
                if (chunk[i] == 0) {
                    text.write(chunk, 0, i);
                    return text.toString(StandardCharsets.UTF_8);
                }
            }
            text.write(chunk, 0, length);
            at += length;
        }
        return text.toString(StandardCharsets.UTF_8);
    }

    /** Looks a symbol up in every loaded module, the executable first, then libraries in load order. */
    Optional<TargetSymbol> lookupSymbol(String name);

    /**
     * Looks a symbol up in the loaded module whose file name contains {@code moduleNameFragment}
     * (for example {@code "libomp"}).
     */
    Optional<TargetSymbol> lookupSymbol(String name, String moduleNameFragment);

    /** The modules (executable and shared libraries) mapped into the target. */
    List<LoadedModule> modules();

    /**
     * The file on disk this backend reads for {@code module} (a core opened with a solib search path reads
     * another copy than the path the target had); empty when it has none.
     */
    default Optional<Path> moduleFile(LoadedModule module) {
        return Files.isRegularFile(module.path()) ? Optional.of(module.path()) : Optional.empty();
    }

    /** The target's OS threads, in the order the backend knows them (the first is the main thread). */
    List<TargetThread> threads();

    /**
     * The target ran (or is about to): drop whatever this backend keeps for one stop (cached memory, the
     * thread list). Called by {@code AddressSpaceHandle.resumed()}, the one place a stop ends; a backend
     * that keeps nothing per stop does nothing.
     */
    default void resumed() {}

    @Override
    default void close() {}
}
