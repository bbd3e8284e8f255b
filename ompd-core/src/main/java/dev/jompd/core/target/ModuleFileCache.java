package dev.jompd.core.target;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.InMemoryElf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Module files opened once for every target that maps them — the ranks of one job run the same executable and
 * libraries: ELF files by their identity on disk (device and inode, size, modification time), with their parsed
 * symbol tables, and what is derived from a file (a symbolizer's function table, a module's separate debug file); and
 * the layouts of the modules' headers in the targets' memory ({@link #layoutsInMemory()}).
 * A file replaced on disk is another file. Thread-safe. Closing it unmaps every file it opened: it outlives the
 * targets that use it (whoever made it closes it, after them).
 */
public final class ModuleFileCache implements AutoCloseable {
    private final Map<Identity, Optional<ElfFile>> files = new ConcurrentHashMap<>();
    private final Map<Derived, Object> derived = new ConcurrentHashMap<>();
    private final InMemoryElf.Layouts layoutsInMemory = new InMemoryElf.Layouts();
    /** The identity each file was opened under (by the file object itself). */
    private final Map<ElfFile, Identity> openedAs = new ConcurrentHashMap<>();

    /** A file on disk as the kernel knows it. */
    private record Identity(Object fileKey, long size, long modified) {
        // equals and hashCode written out: a record's generated ones are bootstrapped at first use (method handles
        // spun at run time, which the ahead-of-time cache does not hold)
        @Override
        public boolean equals(Object other) {
            return other instanceof Identity id && size == id.size && modified == id.modified && fileKey.equals(id.fileKey);
        }

        @Override
        public int hashCode() {
            return (fileKey.hashCode() * 31 + Long.hashCode(size)) * 31 + Long.hashCode(modified);
        }
    }

    private record Derived(Identity file, String kind) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Derived d && file.equals(d.file) && kind.equals(d.kind);
        }

        @Override
        public int hashCode() {
            return file.hashCode() * 31 + kind.hashCode();
        }
    }

    /**
     * The ELF file at {@code path}, shared by every caller: never close it (this cache does). Empty when the file
     * cannot be read or is not a well-formed ELF file.
     */
    public Optional<ElfFile> open(Path path) {
        Optional<Identity> identity = identity(path);
        if (identity.isEmpty()) {
            return Optional.empty();
        }
        Optional<ElfFile> known = files.get(identity.get()); // without the bin's lock: every rank asks for every file
        if (known != null) {
            return known;
        }
        return files.computeIfAbsent(identity.get(), opened -> {
            try {
                ElfFile file = ElfFile.open(path);
                openedAs.put(file, opened);
                return Optional.of(file);
            } catch (IOException | ElfFormatException | SecurityException e) {
                return Optional.empty();
            }
        });
    }

    /**
     * What {@code derive} makes of the file at {@code path}, made once per file and {@code kind} while this cache
     * lives (made each time when the file cannot be looked at). {@code derive} must not use this method itself.
     */
    public <T> T derived(Path path, String kind, Supplier<T> derive) {
        Optional<Identity> identity = identity(path);
        if (identity.isEmpty()) {
            return derive.get();
        }
        return derivedOnce(new Derived(identity.get(), kind), derive);
    }

    /**
     * What {@code derive} makes of {@code file}, one this cache opened: made once per file and {@code kind} while this
     * cache lives, without looking at the disk again (the file is the one it was opened as, whatever its path names
     * now). For a file this cache did not open, {@link #derived(Path, String, Supplier)} of its path.
     */
    public <T> T derived(ElfFile file, String kind, Supplier<T> derive) {
        Identity identity = openedAs.get(file);
        if (identity == null) {
            return derived(file.path(), kind, derive);
        }
        return derivedOnce(new Derived(identity, kind), derive);
    }

    @SuppressWarnings("unchecked")
    private <T> T derivedOnce(Derived key, Supplier<T> derive) {
        Object known = derived.get(key); // without the bin's lock: every rank asks for every file
        if (known != null) {
            return (T) known;
        }
        return (T) derived.computeIfAbsent(key, unused -> Objects.requireNonNull(derive.get()));
    }

    /**
     * The modules' ELF headers as the targets' memory holds them, remembered by their bytes: each target's own first
     * page of a module is still read and compared (this remembers no file on disk).
     */
    public InMemoryElf.Layouts layoutsInMemory() {
        return layoutsInMemory;
    }

    private static Optional<Identity> identity(Path path) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
            if (!attributes.isRegularFile() || attributes.fileKey() == null) {
                return Optional.empty();
            }
            return Optional.of(new Identity(attributes.fileKey(), attributes.size(), attributes.lastModifiedTime().toMillis()));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        files.values().forEach(file -> file.ifPresent(ElfFile::close));
        files.clear();
        derived.clear();
        openedAs.clear();
    }
}
