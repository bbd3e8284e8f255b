package dev.jompd.core.target;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A stopped target's memory, symbols and threads: the one thing a backend (core file, live process,
 * gdb) implements. A backend is a dumb byte reader and knows nothing of OpenMP; typed reads, caching
 * and pointer handling live above it ({@code dev.jompd.core.memory}).
 */
public interface AddressSpace extends AutoCloseable {

    /** A short name for messages, such as {@code core:/tmp/core.123} or {@code pid:4711}. */
    String name();

    /** Pointer size, integer sizes and byte order of the target. */
    TargetArchitecture architecture();

    /**
     * Reads exactly {@code length} bytes at {@code address} into {@code buffer[offset..]}.
     *
     * @throws MemoryReadException when any byte of the range cannot be read; never fills with zeros
     */
    void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException;

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
    default Optional<java.nio.file.Path> moduleFile(LoadedModule module) {
        return java.nio.file.Files.isRegularFile(module.path()) ? Optional.of(module.path()) : Optional.empty();
    }

    /** The target's OS threads, in the order the backend knows them (the first is the main thread). */
    List<TargetThread> threads();

    /**
     * Optional: the address of a thread-local symbol in the given thread. Backends that cannot answer
     * (a core file without libthread_db) return empty; the runtime model never depends on this.
     */
    default OptionalLong threadLocalAddress(TargetThread thread, TargetSymbol symbol) {
        return OptionalLong.empty();
    }

    @Override
    default void close() {}
}
