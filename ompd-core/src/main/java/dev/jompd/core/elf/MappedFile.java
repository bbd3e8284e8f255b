package dev.jompd.core.elf;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A read-only file mapped into memory. Mapping instead of reading is what lets a multi-gigabyte core
 * be opened in milliseconds: pages are only brought in when touched. The mapping lives in its own
 * shared arena, so it may be read from any thread and is unmapped by {@link #close()}.
 */
public final class MappedFile implements AutoCloseable {
    private final Path path;
    private final Arena arena;
    private final ByteView bytes;

    private MappedFile(Path path, Arena arena, MemorySegment segment) {
        this.path = path;
        this.arena = arena;
        this.bytes = ByteView.of(segment, path.toString());
    }

    /**
     * Maps {@code path} read-only.
     *
     * @throws IOException when the file cannot be opened or mapped, or is not a regular file (devices,
     *                     fifos and /proc files are refused: mapping or reading them could block or
     *                     have side effects)
     */
    public static MappedFile open(Path path) throws IOException {
        if (!Files.isRegularFile(path)) {
            throw new IOException(path + ": not a regular file");
        }
        Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            MemorySegment segment = size == 0
                    ? MemorySegment.ofArray(new byte[0])
                    : channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            return new MappedFile(path, arena, segment);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Whether {@code error} is the JVM's report of a fault while reading mapped memory (SIGBUS: a mapped file
     * was cut short after it was mapped). Interpreted code gets it at the access; compiled code at its next
     * safepoint poll, possibly a few calls further out: so a command's last resort recognizes it too.
     */
    public static boolean isFault(Throwable error) {
        return error instanceof InternalError && error.getMessage() != null
                && error.getMessage().startsWith("a fault occurred in ") && error.getMessage().contains("unsafe memory access");
    }

    /** The error a read of {@code source} that faulted is reported as. */
    public static ElfFormatException changedWhileRead(String source) {
        return new ElfFormatException(source, "the file changed while being read: it is shorter than when it was opened"
                + " (truncated?)");
    }

    public Path path() { return path; }

    public long size() { return bytes.size(); }

    /** The whole file; valid until {@link #close()}. */
    public ByteView bytes() { return bytes; }

    /** Unmaps the file. Idempotent; views obtained earlier must not be used afterwards. */
    @Override
    public synchronized void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
