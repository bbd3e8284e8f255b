package dev.jompd.core.target.core;

import dev.jompd.core.target.BuildIdMismatchException;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.elf.SyntheticElf;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.elf.ProgramHeader;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The core backend on small cores written by {@link SyntheticElf}; real cores are in CoreFileAddressSpaceIT. */
class CoreFileAddressSpaceTest {
    private static final String BUILD_ID = "00112233445566778899aabbccddeeff01234567";
    private static final String OTHER_BUILD_ID = "ffeeddccbbaa99887766554433221100fedcba98";
    private static final long MODULE_BASE = 0x400000;
    private static final long ANSWER = 0x1122334455667788L;
    private static final long DATA_BASE = 0x7000_0000L;

    @TempDir
    Path directory;
    private Path library;
    private Path dataFile;
    private long libraryMappingEnd;

    private static List<SyntheticElf.Symbol> symbols() {
        return List.of(
                SyntheticElf.Symbol.object("answer", SyntheticElf.DATA_OFFSET),
                new SyntheticElf.Symbol("hidden_static", SyntheticElf.DATA_OFFSET + 8, 8, ElfSymbol.STT_OBJECT,
                        ElfSymbol.STB_LOCAL, SyntheticElf.DATA_SECTION, false),
                new SyntheticElf.Symbol("tls_variable", 8, 8, ElfSymbol.STT_TLS, ElfSymbol.STB_GLOBAL,
                        SyntheticElf.TBSS_SECTION, true));
    }

    private static byte[] library(String buildId, boolean withStaticSymbols) {
        byte[] data = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(ANSWER).putLong(42).array();
        return SyntheticElf.sharedObject(buildId, data, symbols(), withStaticSymbols);
    }

    @BeforeEach
    void writeMappedFiles() throws IOException {
        byte[] libraryBytes = library(BUILD_ID, true);
        library = Files.write(directory.resolve("libsynth.so"), libraryBytes);
        libraryMappingEnd = MODULE_BASE + ((libraryBytes.length + 4095) & -4096);
        byte[] pages = new byte[3 * 4096];
        for (int page = 0; page < 3; page++) {
            Arrays.fill(pages, page * 4096, (page + 1) * 4096, (byte) (page + 1));
        }
        dataFile = Files.write(directory.resolve("data.bin"), pages);
    }

    /** A core like the kernel writes: the library's first bytes in the core, the rest only on disk. */
    private SyntheticElf.Core typicalCore(String libraryPath) {
        byte[] headers = Arrays.copyOf(library(BUILD_ID, true), SyntheticElf.HEADERS_SIZE);
        byte[] first = new byte[0x1000];
        byte[] second = new byte[0x1000];
        Arrays.fill(first, (byte) 0xaa);
        Arrays.fill(second, (byte) 0xbb);
        SyntheticElf.Core core = new SyntheticElf.Core()
                .thread(100, 0x7f00_0000_1000L)
                .thread(101, 0x7f00_0000_2000L)
                .segment(0x10000, first)
                .segment(0x11000, second)
                .mapping(MODULE_BASE, libraryMappingEnd, 0, libraryPath)
                .mapping(DATA_BASE, DATA_BASE + 0x1000, 1, dataFile.toString());
        core.segments.add(new SyntheticElf.Segment(MODULE_BASE, headers, libraryMappingEnd - MODULE_BASE));
        core.auxiliaryVector.put(CoreNotes.AT_ENTRY, MODULE_BASE + 0x40);
        return core;
    }

    private Path write(SyntheticElf.Core core) throws IOException {
        return Files.write(Files.createTempFile(directory, "core", ""), core.build());
    }

    private CoreFileAddressSpace open(SyntheticElf.Core core) throws IOException {
        return CoreFileAddressSpace.builder(write(core)).withDebugFileDirectories(List.of()).open();
    }

    private static long readLong(CoreFileAddressSpace space, long address) {
        byte[] bytes = new byte[8];
        space.read(address, bytes, 0, 8);
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    @Test
    void threadsComeFromPrstatusNotesInOrder() throws IOException {
        try (CoreFileAddressSpace space = open(typicalCore(library.toString()))) {
            assertThat(space.threads()).extracting(TargetThread::lwp).containsExactly(100L, 101L);
            TargetThread first = space.threads().getFirst();
            assertThat(first.register("fs_base")).hasValue(0x7f00_0000_1000L);
            assertThat(first.threadPointer()).hasValue(0x7f00_0000_1000L);
            assertThat(first.register("rip")).hasValue(0x401000L + 100);
            assertThat(first.registers()).containsOnlyKeys(SyntheticElf.REGISTER_NAMES);
            assertThat(space.programName()).contains("synthetic");
            assertThat(space.processId()).hasValue(4711);
        }
    }

    @Test
    void readsSpanningTwoAdjacentSegments() throws IOException {
        try (CoreFileAddressSpace space = open(typicalCore(library.toString()))) {
            byte[] bytes = new byte[16];
            space.read(0x10ff8, bytes, 0, 16);
            assertThat(bytes).containsExactly(
                    0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb);
            byte[] offsetIntoBuffer = new byte[20];
            space.read(0x11ffc, offsetIntoBuffer, 10, 4);
            assertThat(offsetIntoBuffer[10]).isEqualTo((byte) 0xbb);
            assertThat(offsetIntoBuffer[9]).isZero();
        }
    }

    @Test
    void bytesBeyondTheSegmentsFileSizeComeFromTheMappedFile() throws IOException {
        try (CoreFileAddressSpace space = open(typicalCore(library.toString()))) {
            assertThat(readLong(space, MODULE_BASE + SyntheticElf.DATA_OFFSET)).isEqualTo(ANSWER);
            // Half in the core's segment, half on disk.
            byte[] spanning = new byte[16];
            space.read(MODULE_BASE + SyntheticElf.HEADERS_SIZE - 8, spanning, 0, 16);
            byte[] expected = Arrays.copyOfRange(library(BUILD_ID, true), SyntheticElf.HEADERS_SIZE - 8, SyntheticElf.HEADERS_SIZE + 8);
            assertThat(spanning).isEqualTo(expected);
        }
    }

    @Test
    void theCoresBytesWinOverTheFiles() throws IOException {
        SyntheticElf.Core core = typicalCore(library.toString());
        core.segment(MODULE_BASE + SyntheticElf.DATA_OFFSET, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(7).array());
        try (CoreFileAddressSpace space = open(core)) {
            assertThat(readLong(space, MODULE_BASE + SyntheticElf.DATA_OFFSET)).isEqualTo(7);
            assertThat(readLong(space, MODULE_BASE + SyntheticElf.DATA_OFFSET + 8)).as("next bytes: disk again").isEqualTo(42);
        }
    }

    @Test
    void fileOffsetsAreInUnitsOfTheRecordedPageSize() throws IOException {
        // The kernel records page size 4096 and offsets in pages, gdb page size 1 and offsets in bytes.
        SyntheticElf.Core kernelStyle = typicalCore(library.toString());
        SyntheticElf.Core gdbStyle = typicalCore(library.toString());
        gdbStyle.pageSize = 1;
        gdbStyle.mappings.replaceAll(mapping -> new SyntheticElf.Mapping(mapping.start(), mapping.end(),
                mapping.pageOffset() * 4096, mapping.path()));
        for (SyntheticElf.Core core : List.of(kernelStyle, gdbStyle)) {
            try (CoreFileAddressSpace space = open(core)) {
                byte[] bytes = new byte[4];
                space.read(DATA_BASE + 0xffc, bytes, 0, 4);
                assertThat(bytes).as("page size %d", core.pageSize).containsOnly(2);
            }
        }
    }

    @Test
    void modulesGetTheirLoadBiasAndBuildIdFromTheCoresMemory() throws IOException {
        try (CoreFileAddressSpace space = open(typicalCore(library.toString()))) {
            assertThat(space.modules()).singleElement().isEqualTo(
                    new LoadedModule(library, MODULE_BASE, java.util.Optional.of(BUILD_ID)));
            assertThat(space.executable()).map(LoadedModule::path).contains(library);
        }
    }

    @Test
    void symbolsAreRelocatedByTheLoadBiasExceptThreadLocalOnes() throws IOException {
        try (CoreFileAddressSpace space = open(typicalCore(library.toString()))) {
            assertThat(space.lookupSymbol("answer")).contains(
                    new TargetSymbol("answer", MODULE_BASE + SyntheticElf.DATA_OFFSET, 8, "libsynth.so", false));
            assertThat(space.lookupSymbol("answer", "synth")).isEqualTo(space.lookupSymbol("answer"));
            assertThat(space.lookupSymbol("answer", "libomp")).isEmpty();
            assertThat(space.lookupSymbol("hidden_static")).map(TargetSymbol::address)
                    .contains(MODULE_BASE + SyntheticElf.DATA_OFFSET + 8);
            assertThat(space.lookupSymbol("tls_variable")).contains(
                    new TargetSymbol("tls_variable", 8, 8, "libsynth.so", true));
            assertThat(space.lookupSymbol("no_such_symbol")).isEmpty();
        }
    }

    @Test
    void unreadableAddressThrowsWithAddressLengthAndBackend() throws IOException {
        try (CoreFileAddressSpace space = open(typicalCore(library.toString()))) {
            assertThatThrownBy(() -> space.read(0x5000, new byte[8], 0, 8))
                    .isInstanceOfSatisfying(MemoryReadException.class, e -> {
                        assertThat(e.address()).isEqualTo(0x5000);
                        assertThat(e.length()).isEqualTo(8);
                        assertThat(e.getMessage()).startsWith(space.name()).contains("0x5000");
                    });
            // Starts readable, runs off the end of the second segment into nothing.
            assertThatThrownBy(() -> space.read(0x11ff0, new byte[32], 0, 32))
                    .isInstanceOfSatisfying(MemoryReadException.class, e -> assertThat(e.getMessage()).contains("0x12000"));
            assertThatThrownBy(() -> space.read(-8, new byte[16], 0, 16))
                    .isInstanceOf(MemoryReadException.class);
        }
    }

    @Test
    void aMappedFileBeyondItsEndOrMissingIsAReadErrorNamingIt() throws IOException {
        SyntheticElf.Core core = typicalCore(library.toString())
                .mapping(0x9000_0000L, 0x9000_2000L, 2, dataFile.toString())
                .mapping(0xa000_0000L, 0xa000_1000L, 0, directory.resolve("vanished.bin").toString());
        try (CoreFileAddressSpace space = open(core)) {
            space.read(0x9000_0000L, new byte[8], 0, 8);
            assertThatThrownBy(() -> space.read(0x9000_1000L, new byte[8], 0, 8))
                    .isInstanceOf(MemoryReadException.class).hasMessageContaining("beyond its end").hasMessageContaining("data.bin");
            assertThatThrownBy(() -> space.read(0xa000_0000L, new byte[8], 0, 8))
                    .isInstanceOf(MemoryReadException.class).hasMessageContaining("vanished.bin");
        }
    }

    @Test
    void aLibraryWithAnotherBuildIdOnDiskIsRefused() throws IOException {
        Files.write(library, library(OTHER_BUILD_ID, true));
        try (CoreFileAddressSpace space = open(typicalCore(library.toString()))) {
            assertThatThrownBy(() -> space.lookupSymbol("answer"))
                    .isInstanceOfSatisfying(BuildIdMismatchException.class, e -> {
                        assertThat(e.getMessage()).startsWith("core was made with a different libsynth.so")
                                .contains(BUILD_ID, OTHER_BUILD_ID, library.toString());
                        assertThat(e.targetBuildId()).isEqualTo(BUILD_ID);
                        assertThat(e.fileBuildId()).contains(OTHER_BUILD_ID);
                    });
            assertThatThrownBy(() -> readLong(space, MODULE_BASE + SyntheticElf.DATA_OFFSET))
                    .isInstanceOf(MemoryReadException.class).hasMessageContaining("different libsynth.so");
            assertThat(space.modules().getFirst().buildId()).as("the core's id is still reported").contains(BUILD_ID);
        }
    }

    @Test
    void solibSearchPathIsSearchedBeforeTheRecordedPath() throws IOException {
        SyntheticElf.Core core = typicalCore("/nonexistent/elsewhere/libsynth.so");
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(write(core))
                .withSolibSearchPath(List.of(directory.resolve("empty"), directory)).open()) {
            assertThat(space.lookupSymbol("answer")).map(TargetSymbol::address).contains(MODULE_BASE + SyntheticElf.DATA_OFFSET);
            assertThat(readLong(space, MODULE_BASE + SyntheticElf.DATA_OFFSET)).isEqualTo(ANSWER);
            assertThat(space.modules().getFirst().path()).hasToString("/nonexistent/elsewhere/libsynth.so");
        }
        try (CoreFileAddressSpace space = open(core)) {
            assertThat(space.lookupSymbol("answer")).as("without the search path the file is not found").isEmpty();
        }
    }

    @Test
    void anExplicitExecutableReplacesTheRecordedOne() throws IOException {
        Path copy = Files.copy(library, directory.resolve("copy-of-libsynth"));
        SyntheticElf.Core core = typicalCore("/nonexistent/libsynth.so");
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(write(core)).withExecutable(copy).open()) {
            assertThat(space.lookupSymbol("answer")).map(TargetSymbol::address).contains(MODULE_BASE + SyntheticElf.DATA_OFFSET);
        }
        Path other = Files.write(directory.resolve("other-executable"), library(OTHER_BUILD_ID, true));
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(write(core)).withExecutable(other).open()) {
            assertThatThrownBy(() -> space.lookupSymbol("answer")).isInstanceOf(BuildIdMismatchException.class)
                    .hasMessageContaining(other.toString());
        }
    }

    @Test
    void aMissingExplicitExecutableFailsAtOpen() throws IOException {
        Path core = write(typicalCore(library.toString()));
        assertThatThrownBy(() -> CoreFileAddressSpace.builder(core).withExecutable(directory.resolve("absent")).open())
                .isInstanceOf(TargetException.class).hasMessageContaining("absent");
        assertThatThrownBy(() -> CoreFileAddressSpace.open(directory.resolve("no-core")))
                .isInstanceOf(TargetException.class).hasMessageContaining("no-core")
                .hasCauseInstanceOf(IOException.class);
    }

    @Test
    void aThreeGigabyteCoreOpensWithoutBeingRead() throws IOException {
        // A sparse file: a small core whose last segment's bytes sit just below 3 GiB.
        long farOffset = 3L << 30;
        byte[] pattern = new byte[4096];
        Arrays.fill(pattern, (byte) 0x5a);
        SyntheticElf.Core core = new SyntheticElf.Core().thread(1, 0x1000).segment(0x20000, pattern);
        byte[] bytes = core.build();
        ByteBuffer header = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        header.putLong(64 + ProgramHeader.SIZE + 8, farOffset - pattern.length); // p_offset of the PT_LOAD
        Path big = directory.resolve("big-core");
        try (RandomAccessFile file = new RandomAccessFile(big.toFile(), "rw")) {
            file.write(bytes);
            file.seek(farOffset - pattern.length);
            file.write(pattern);
        }
        assertThat(Files.size(big)).isEqualTo(farOffset);
        long start = System.nanoTime();
        try (CoreFileAddressSpace space = CoreFileAddressSpace.open(big)) {
            byte[] read = new byte[16];
            space.read(0x20ff0, read, 0, 16);
            long elapsed = System.nanoTime() - start;
            System.out.printf("3 GiB core: opened and read in %.2f ms%n", elapsed / 1e6);
            assertThat(read).containsOnly(0x5a);
            assertThat(elapsed).isLessThan(2_000_000_000L);
        }
    }

    @Test
    void separateDebugFilesAreFoundByBuildId() throws IOException {
        Files.write(library, library(BUILD_ID, false)); // stripped: hidden_static only in the debug file
        Path debugDirectory = directory.resolve("debug");
        Path debugFile = debugDirectory.resolve(".build-id/00/112233445566778899aabbccddeeff01234567.debug");
        Files.createDirectories(debugFile.getParent());
        Files.write(debugFile, library(BUILD_ID, true));
        Path core = write(typicalCore(library.toString()));
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(core).withDebugFileDirectories(List.of()).open()) {
            assertThat(space.lookupSymbol("answer")).as("from .dynsym").isPresent();
            assertThat(space.lookupSymbol("hidden_static")).isEmpty();
        }
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(core).withDebugFileDirectories(List.of(debugDirectory)).open()) {
            assertThat(space.lookupSymbol("hidden_static")).map(TargetSymbol::address)
                    .contains(MODULE_BASE + SyntheticElf.DATA_OFFSET + 8);
        }
    }

    @Test
    void aTruncatedCoreKeepsWhatItHas() throws IOException {
        byte[] whole = typicalCore(library.toString()).build();
        // Cut in the middle of the second 0x1000-byte segment (segment data follows the notes in order).
        int secondSegmentEnd = whole.length - SyntheticElf.HEADERS_SIZE;
        Path truncated = Files.write(directory.resolve("truncated-core"), Arrays.copyOf(whole, secondSegmentEnd - 0x800));
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(truncated).withDebugFileDirectories(List.of()).open()) {
            assertThat(space.threads()).hasSize(2);
            space.read(0x10000, new byte[16], 0, 16);
            space.read(0x11000, new byte[16], 0, 16);
            assertThatThrownBy(() -> space.read(0x11900, new byte[8], 0, 8))
                    .isInstanceOf(MemoryReadException.class).hasMessageContaining("truncated");
        }
    }

    @Test
    void whatIsNotAnX8664CoreIsAFormatError() throws IOException {
        assertThatThrownBy(() -> CoreFileAddressSpace.open(library))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("not a core file");
        byte[] armCore = typicalCore(library.toString()).build();
        armCore[18] = (byte) 183; // EM_AARCH64
        Path arm = Files.write(directory.resolve("arm-core"), armCore);
        assertThatThrownBy(() -> CoreFileAddressSpace.open(arm))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("not an x86-64 core");
    }

    @Test
    void damagedNotesAreFormatErrors() throws IOException {
        SyntheticElf.Core core = typicalCore(library.toString());
        byte[] bytes = core.build();
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long noteOffset = buffer.getLong(64 + 8);
        // The first note is the first thread's NT_PRSTATUS: claim a 100-byte descriptor, too small.
        ByteBuffer shortStatus = ByteBuffer.wrap(bytes.clone()).order(ByteOrder.LITTLE_ENDIAN);
        shortStatus.putInt((int) noteOffset + 4, 100);
        assertThatThrownBy(() -> CoreFileAddressSpace.open(Files.write(directory.resolve("c1"), shortStatus.array())))
                .isInstanceOf(ElfFormatException.class);
        // An NT_FILE claiming 2^60 mappings.
        Path hugeCount = Files.write(directory.resolve("c2"), patchFileNoteCount(bytes.clone(), 1L << 60));
        assertThatThrownBy(() -> CoreFileAddressSpace.open(hugeCount))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("NT_FILE claims");
    }

    private static byte[] patchFileNoteCount(byte[] core, long count) {
        // Find the NT_FILE note by its type and owner.
        ByteBuffer buffer = ByteBuffer.wrap(core).order(ByteOrder.LITTLE_ENDIAN);
        for (int offset = 0; offset + 20 < core.length; offset += 4) {
            if (buffer.getInt(offset + 8) == 0x46494c45 && buffer.getInt(offset) == 5 && core[offset + 12] == 'C') {
                buffer.putLong(offset + 20, count);
                return core;
            }
        }
        throw new IllegalStateException("no NT_FILE note");
    }

    @Test
    void randomReadsTakeMicrosecondsEach() throws IOException {
        Path core = write(typicalCore(library.toString()));
        long openStart = System.nanoTime();
        CoreFileAddressSpace space = CoreFileAddressSpace.builder(core).withDebugFileDirectories(List.of()).open();
        long openNanos = System.nanoTime() - openStart;
        try (space) {
            SplittableRandom random = new SplittableRandom(1);
            // Core segments, a core segment continued from disk, and a mapped file only on disk.
            long[] bases = {0x10000, 0x11000, MODULE_BASE, DATA_BASE};
            int[] spans = {0x1000, 0x1000, SyntheticElf.HEADERS_SIZE + SyntheticElf.DATA_SIZE, 0x1000};
            byte[] buffer = new byte[8];
            long sum = 0;
            int reads = 100_000;
            long readStart = System.nanoTime();
            for (int i = 0; i < reads; i++) {
                int which = random.nextInt(bases.length);
                space.read(bases[which] + random.nextInt(spans[which] - 8), buffer, 0, 8);
                sum += buffer[0];
            }
            long readNanos = System.nanoTime() - readStart;
            System.out.printf("synthetic core: open %.2f ms, %d random 8-byte reads %.2f ms (checksum %d)%n",
                    openNanos / 1e6, reads, readNanos / 1e6, sum);
            assertThat(readNanos).as("10^5 reads").isLessThan(2_000_000_000L);
        }
    }
}
