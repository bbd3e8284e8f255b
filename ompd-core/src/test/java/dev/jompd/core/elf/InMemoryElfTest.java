package dev.jompd.core.elf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The one reader of a module's headers in target memory, on a synthetic library placed at a known address. */
class InMemoryElfTest {
    private static final String BUILD_ID = "0123456789abcdef0123456789abcdef01234567";
    private static final long BASE = 0x7f00_1234_0000L;

    /** Memory holding {@code image} at {@link #BASE} and nothing else. */
    private static InMemoryElf.Memory memoryWith(byte[] image) {
        return (address, length) -> {
            long offset = address - BASE;
            if (offset < 0 || offset + length > image.length) {
                return Optional.empty();
            }
            return Optional.of(Arrays.copyOfRange(image, (int) offset, (int) offset + length));
        };
    }

    private static byte[] library() {
        return SyntheticElf.sharedObject(BUILD_ID, new byte[0], List.of(), true);
    }

    @Test
    void aLibraryInMemorySaysWhereItWasLoadedAndWhichBuildItIs() {
        Optional<InMemoryElf.Layout> layout = InMemoryElf.read(memoryWith(library()), BASE, "test");

        assertThat(layout).isPresent();
        // The synthetic library's lowest PT_LOAD is at virtual address 0: the bias is where offset 0 is mapped.
        assertThat(layout.get().loadBias()).isEqualTo(BASE);
        assertThat(layout.get().buildId()).contains(BUILD_ID);
        assertThat(layout.get().dynamicSectionAddress()).isEmpty(); // it has no PT_DYNAMIC
    }

    @TempDir
    Path directory;

    private ElfFile onDisk(byte[] image) throws Exception {
        Path file = directory.resolve("lib.so");
        Files.write(file, image);
        return ElfFile.open(file);
    }

    @Test
    void theFileOnDiskPlacesTheModuleTheSameWayButCannotSayWhichBuildRan() throws Exception {
        try (ElfFile file = onDisk(library())) {
            Optional<InMemoryElf.Layout> placed = InMemoryElf.placed(file.header(), file.programHeaders(), BASE);
            assertThat(placed).map(InMemoryElf.Layout::loadBias).contains(BASE);
            assertThat(placed.get().buildId()).isEmpty();
        }
    }

    @Test
    void noElfMagicMeansNoModule() {
        byte[] image = library();
        image[1] = 'X';
        assertThat(InMemoryElf.read(memoryWith(image), BASE, "test")).isEmpty();
    }

    @Test
    void unreadableProgramHeadersMeanNoModule() {
        byte[] onlyTheElfHeader = Arrays.copyOf(library(), ElfHeader.SIZE);
        assertThat(InMemoryElf.read(memoryWith(onlyTheElfHeader), BASE, "test")).isEmpty();
        assertThat(InMemoryElf.read((address, length) -> Optional.empty(), BASE, "test")).isEmpty();
    }

    @Test
    void anAbsurdProgramHeaderCountIsNotRead() {
        byte[] image = library();
        image[56] = (byte) 0xff; // e_phnum = 0xffff
        image[57] = (byte) 0xff;
        assertThat(InMemoryElf.read(memoryWith(image), BASE, "test")).isEmpty();
    }

    /** What the plain reader says of memory holding {@code image} at {@code base}: the truth a remembered layout must equal. */
    private static Optional<InMemoryElf.Layout> readAt(byte[] image, long base) {
        return InMemoryElf.read((address, length) -> {
            long offset = address - base;
            if (offset < 0 || offset + length > image.length) {
                return Optional.empty();
            }
            return Optional.of(Arrays.copyOfRange(image, (int) offset, (int) offset + length));
        }, base, "test");
    }

    @Test
    void anotherProcessWithTheSameFirstPageHasTheSameLayoutWhereverTheModuleLies() {
        byte[] image = library();
        byte[] page = Arrays.copyOf(image, 4096);
        InMemoryElf.Layouts layouts = new InMemoryElf.Layouts();
        long otherBase = BASE + 0x5_0000_0000L;
        assertThat(layouts.read("lib.so inode 1", page, memoryWith(image), BASE, "test")).isEqualTo(readAt(image, BASE));
        // the second process's memory is not read again: its first page is all it takes
        InMemoryElf.Memory unread = (address, length) -> {
            throw new AssertionError("read 0x" + Long.toHexString(address));
        };
        Optional<InMemoryElf.Layout> again = layouts.read("lib.so inode 1", page.clone(), unread, otherBase, "test");
        assertThat(again).isEqualTo(readAt(image, otherBase));
        assertThat(again.orElseThrow().loadBias()).isEqualTo(otherBase);
        assertThat(again.get().buildId()).contains(BUILD_ID);
    }

    @Test
    void anotherPageUnderTheSameNameIsReadAsItIs() {
        byte[] image = library();
        String otherBuild = "fedcba9876543210fedcba9876543210fedcba98";
        byte[] rebuilt = SyntheticElf.sharedObject(otherBuild, new byte[0], List.of(), true);
        InMemoryElf.Layouts layouts = new InMemoryElf.Layouts();
        layouts.read("lib.so inode 1", Arrays.copyOf(image, 4096), memoryWith(image), BASE, "test");
        Optional<InMemoryElf.Layout> layout = layouts.read("lib.so inode 1", Arrays.copyOf(rebuilt, 4096), memoryWith(rebuilt), BASE, "test");
        assertThat(layout.orElseThrow().buildId()).contains(otherBuild);
        byte[] noElf = Arrays.copyOf(image, 4096);
        noElf[1] = 'X';
        assertThat(layouts.read("lib.so inode 1", noElf, memoryWith(noElf), BASE, "test")).isEmpty();
        assertThat(layouts.read("lib.so inode 1", noElf.clone(), memoryWith(noElf), BASE, "test")).isEmpty();
    }

    @Test
    void aLayoutReadPartlyBeyondTheFirstPageIsNotRememberedByIt() {
        byte[] image = library();
        byte[] onlyTheElfHeader = Arrays.copyOf(image, ElfHeader.SIZE); // a page too short to hold the program headers
        InMemoryElf.Layouts layouts = new InMemoryElf.Layouts();
        assertThat(layouts.read("lib.so inode 1", onlyTheElfHeader, memoryWith(image), BASE, "test")).isEqualTo(readAt(image, BASE));
        // the same first bytes, but the program headers beyond them now place the module elsewhere: read again
        byte[] otherProgramHeaders = image.clone();
        otherProgramHeaders[ElfHeader.SIZE + 16 + 1] = 0x10; // the PT_LOAD's p_vaddr: 0x1000 instead of 0
        Optional<InMemoryElf.Layout> moved = layouts.read("lib.so inode 1", onlyTheElfHeader.clone(),
                memoryWith(otherProgramHeaders), BASE, "test");
        assertThat(moved).isEqualTo(readAt(otherProgramHeaders, BASE));
        assertThat(moved.orElseThrow().loadBias()).isEqualTo(BASE - 0x1000);
    }

    @Test
    void aDamagedBuildIdNoteLeavesTheLayoutWithoutABuildId() throws Exception {
        byte[] image = library();
        long noteOffset;
        try (ElfFile file = onDisk(library())) {
            noteOffset = file.programHeaders().stream().filter(ph -> ph.type() == ProgramHeader.PT_NOTE)
                    .findFirst().orElseThrow().offset();
        }
        image[(int) noteOffset] = (byte) 0xff; // n_namesz far beyond the note segment
        image[(int) noteOffset + 1] = (byte) 0xff;

        Optional<InMemoryElf.Layout> layout = InMemoryElf.read(memoryWith(image), BASE, "test");
        assertThat(layout).map(InMemoryElf.Layout::loadBias).contains(BASE);
        assertThat(layout.get().buildId()).isEmpty();
    }
}
