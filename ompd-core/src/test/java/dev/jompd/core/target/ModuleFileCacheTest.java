package dev.jompd.core.target;

import dev.jompd.core.elf.ElfFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The module files the ranks of a job share: one per file on disk, whatever path names it, and a new one once it changes. */
class ModuleFileCacheTest {
    @TempDir
    Path dir;

    private Path copy(String program, String name) throws IOException {
        return Files.copy(Path.of(program), dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void oneFileOnDiskIsOpenedAndIndexedOnceWhateverPathNamesIt() throws IOException {
        Path file = copy("/bin/true", "true");
        Path link = Files.createSymbolicLink(dir.resolve("link"), file);
        try (ModuleFileCache cache = new ModuleFileCache()) {
            Optional<ElfFile> first = cache.open(file);
            assertThat(first).isPresent();
            assertThat(cache.open(link)).containsSame(first.get());
            assertThat(cache.open(file).orElseThrow().dynamicSymbolTable()).isSameAs(first.get().dynamicSymbolTable());
        }
    }

    @Test
    void aFileReplacedOnDiskIsAnotherFile() throws IOException {
        Path file = copy("/bin/true", "module");
        try (ModuleFileCache cache = new ModuleFileCache()) {
            ElfFile before = cache.open(file).orElseThrow();
            AtomicInteger derivations = new AtomicInteger();
            assertThat(cache.derived(file, "size", () -> derivations.incrementAndGet())).isEqualTo(1);
            assertThat(cache.derived(file, "size", () -> derivations.incrementAndGet())).isEqualTo(1);
            assertThat(cache.derived(file, "other", () -> derivations.incrementAndGet())).isEqualTo(2);

            copy("/bin/false", "module"); // another program at the same path (another inode and time)
            Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 5_000));
            ElfFile after = cache.open(file).orElseThrow();
            assertThat(after).isNotSameAs(before);
            assertThat(after.buildId()).isEqualTo(ModuleFiles.buildIdOf(ElfFile.open(Path.of("/bin/false"))));
            assertThat(cache.derived(file, "size", () -> derivations.incrementAndGet())).isEqualTo(3);
        }
    }

    @Test
    void whatIsDerivedFromAnOpenedFileStaysWithThatFileWhenItsPathNamesAnotherOne() throws IOException {
        Path file = copy("/bin/true", "module");
        try (ModuleFileCache cache = new ModuleFileCache()) {
            ElfFile before = cache.open(file).orElseThrow();
            AtomicInteger derivations = new AtomicInteger();
            assertThat(cache.derived(before, "kind", () -> derivations.incrementAndGet())).isEqualTo(1);
            assertThat(cache.derived(file, "kind", () -> derivations.incrementAndGet())).isEqualTo(1); // the same file
            assertThat(cache.derived(before, "kind", () -> derivations.incrementAndGet())).isEqualTo(1);

            copy("/bin/false", "module");
            Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 5_000));
            assertThat(cache.derived(before, "kind", () -> derivations.incrementAndGet())).isEqualTo(1);
            ElfFile after = cache.open(file).orElseThrow();
            assertThat(cache.derived(after, "kind", () -> derivations.incrementAndGet())).isEqualTo(2);
            assertThat(cache.derived(file, "kind", () -> derivations.incrementAndGet())).isEqualTo(2);
            try (ElfFile notTheCaches = ElfFile.open(Path.of("/bin/true"))) {
                // a file the cache did not open: by what its path names
                assertThat(cache.derived(notTheCaches, "kind", () -> derivations.incrementAndGet())).isEqualTo(3);
                assertThat(cache.derived(notTheCaches, "kind", () -> derivations.incrementAndGet())).isEqualTo(3);
            }
        }
    }

    @Test
    void whatIsNoElfFileOpensAsNothing() throws IOException {
        Path text = Files.writeString(dir.resolve("notes.txt"), "not an ELF file");
        try (ModuleFileCache cache = new ModuleFileCache()) {
            assertThat(cache.open(text)).isEmpty();
            assertThat(cache.open(dir.resolve("missing"))).isEmpty();
            assertThat(cache.open(dir)).isEmpty();
            AtomicInteger derivations = new AtomicInteger();
            // a file that cannot be looked at is derived each time, never remembered under a wrong identity
            cache.derived(dir.resolve("missing"), "x", derivations::incrementAndGet);
            cache.derived(dir.resolve("missing"), "x", derivations::incrementAndGet);
            assertThat(derivations).hasValue(2);
        }
    }
}
