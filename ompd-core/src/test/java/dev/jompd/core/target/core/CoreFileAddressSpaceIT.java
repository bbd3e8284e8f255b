package dev.jompd.core.target.core;

import dev.jompd.core.target.BuildIdMismatchException;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ProgramHeader;
import dev.jompd.core.elf.SectionHeader;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/** The core backend on real cores of a compiled multi-threaded program, written by the kernel and by gdb. */
class CoreFileAddressSpaceIT {
    @TempDir
    static Path directory;
    static CoreFixture fixture;

    @BeforeAll
    static void buildFixture() {
        fixture = CoreFixture.build(directory);
    }

    private static CoreFileAddressSpace open(CoreFixture.Kind kind) {
        return CoreFileAddressSpace.open(fixture.core(kind));
    }

    private static long[] readLongs(CoreFileAddressSpace space, long address, int count) {
        byte[] bytes = new byte[8 * count];
        space.read(address, bytes, 0, bytes.length);
        long[] values = new long[count];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(values);
        return values;
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void threadsAreTheProgramsThreadsWithTheStoppedOneFirst(CoreFixture.Kind kind) {
        CoreFixture.Printed printed = fixture.printed(kind);
        try (CoreFileAddressSpace space = open(kind)) {
            assertThat(space.threads()).extracting(TargetThread::lwp)
                    .containsExactlyInAnyOrderElementsOf(printed.all().stream().map(CoreFixture.PrintedThread::lwp).toList());
            assertThat(space.threads().getFirst().lwp()).as("main thread stopped in stop_here").isEqualTo(printed.main().lwp());
            assertThat(space.processId()).hasValue(printed.main().lwp());
            assertThat(space.programName()).contains("threads_fixture".substring(0, 15));
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void fsBaseOfEveryThreadIsItsPthreadSelf(CoreFixture.Kind kind) {
        Map<Long, Long> printedSelves = fixture.printed(kind).all().stream()
                .collect(Collectors.toMap(CoreFixture.PrintedThread::lwp, CoreFixture.PrintedThread::pthreadSelf));
        try (CoreFileAddressSpace space = open(kind)) {
            for (TargetThread thread : space.threads()) {
                assertThat(thread.threadPointer()).as("thread %d", thread.lwp()).hasValue(printedSelves.get(thread.lwp()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void globalsReadThroughSymbolsHoldWhatTheThreadsStored(CoreFixture.Kind kind) {
        List<CoreFixture.PrintedThread> workers = fixture.printed(kind).workers();
        try (CoreFileAddressSpace space = open(kind)) {
            TargetSymbol values = space.lookupSymbol("thread_values").orElseThrow();
            assertThat(values.module()).isEqualTo("threads_fixture");
            assertThat(values.size()).isEqualTo(64 * 8);
            assertThat(readLongs(space, values.address(), workers.size())).containsExactly(1000, 1001, 1002);
            long[] lwps = readLongs(space, space.lookupSymbol("thread_lwps").orElseThrow().address(), workers.size());
            assertThat(lwps).containsExactly(workers.stream().mapToLong(CoreFixture.PrintedThread::lwp).toArray());
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void symbolAddressesAgreeWithGdb(CoreFixture.Kind kind) {
        try (CoreFileAddressSpace space = open(kind)) {
            for (String name : List.of("thread_values", "fixture_greeting", "stop_here", "printf", "main_arena")) {
                Optional<Long> gdb = fixture.gdbAddress(kind, "&" + name);
                if (gdb.isEmpty()) {
                    System.out.println("gdb knows no " + name + " here (no debug file?); not compared");
                    continue;
                }
                assertThat(space.lookupSymbol(name)).as(name).map(TargetSymbol::address).contains(gdb.get());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void threadLocalSymbolsReportTheirTlsOffset(CoreFixture.Kind kind) throws IOException {
        try (CoreFileAddressSpace space = open(kind); ElfFile program = ElfFile.open(fixture.program)) {
            TargetSymbol counter = space.lookupSymbol("per_thread_counter").orElseThrow();
            assertThat(counter.threadLocal()).isTrue();
            assertThat(counter.address()).isEqualTo(program.symbolTable().lookup("per_thread_counter").orElseThrow().value());
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void readOnlyDataOfTheExecutableIsRead(CoreFixture.Kind kind) {
        try (CoreFileAddressSpace space = open(kind)) {
            long greeting = space.lookupSymbol("fixture_greeting").orElseThrow().address();
            byte[] bytes = new byte[27];
            space.read(greeting, bytes, 0, bytes.length);
            assertThat(new String(bytes, StandardCharsets.US_ASCII)).isEqualTo("jompd core fixture greeting");
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void libcRodataMissingFromTheCoreIsReadFromTheFileOnDisk(CoreFixture.Kind kind) throws IOException {
        try (CoreFileAddressSpace space = open(kind); ElfFile core = ElfFile.open(fixture.core(kind))) {
            LoadedModule libc = space.modules().stream()
                    .filter(module -> module.path().getFileName().toString().startsWith("libc.so")).findFirst().orElseThrow();
            try (ElfFile libcFile = ElfFile.open(libc.path())) {
                SectionHeader rodata = libcFile.section(".rodata").orElseThrow();
                long address = libc.loadBias() + rodata.address() + 0x100;
                boolean inCore = core.programHeaders(ProgramHeader.PT_LOAD).stream().anyMatch(load ->
                        Long.compareUnsigned(address, load.virtualAddress()) >= 0
                                && Long.compareUnsigned(address, load.virtualAddress() + load.fileSize()) < 0);
                if (kind == CoreFixture.Kind.KERNEL) {
                    assertThat(inCore).as("the kernel leaves read-only file mappings out of the core").isFalse();
                }
                byte[] fromSpace = new byte[256];
                space.read(address, fromSpace, 0, fromSpace.length);
                byte[] fromFile = new byte[256];
                libcFile.bytes().copyTo(rodata.offset() + 0x100, fromFile, 0, fromFile.length);
                assertThat(fromSpace).isEqualTo(fromFile);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void anUnmappedAddressFailsNamingTheAddress(CoreFixture.Kind kind) {
        try (CoreFileAddressSpace space = open(kind)) {
            assertThatThrownBy(() -> space.read(0x10, new byte[8], 0, 8))
                    .isInstanceOfSatisfying(MemoryReadException.class, e -> {
                        assertThat(e.address()).isEqualTo(0x10);
                        assertThat(e.length()).isEqualTo(8);
                        assertThat(e.getMessage()).contains("0x10", space.name());
                    });
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void anExecutableWithAnotherBuildIdIsDetected(CoreFixture.Kind kind) throws IOException {
        String realId;
        String variantId;
        try (ElfFile real = ElfFile.open(fixture.program); ElfFile variant = ElfFile.open(fixture.variantProgram)) {
            realId = real.buildId().orElseThrow();
            variantId = variant.buildId().orElseThrow();
        }
        assumeThat(variantId).as("gcc gave the variant its own build-id").isNotEqualTo(realId);
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(fixture.core(kind))
                .withExecutable(fixture.variantProgram).open()) {
            assertThat(space.executable()).map(LoadedModule::buildId).contains(Optional.of(realId));
            assertThatThrownBy(() -> space.lookupSymbol("thread_values"))
                    .isInstanceOf(BuildIdMismatchException.class)
                    .hasMessageStartingWith("core was made with a different threads_fixture")
                    .hasMessageContaining(realId).hasMessageContaining(variantId)
                    .hasMessageContaining(fixture.variantProgram.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void solibSearchPathIsUsedAndCheckedByBuildId(CoreFixture.Kind kind) throws IOException {
        Path libcPath;
        try (CoreFileAddressSpace space = open(kind)) {
            libcPath = space.modules().stream().map(LoadedModule::path)
                    .filter(path -> path.getFileName().toString().startsWith("libc.so")).findFirst().orElseThrow();
        }
        Path goodDirectory = Files.createDirectories(directory.resolve("good-libs-" + kind));
        Files.copy(libcPath, goodDirectory.resolve(libcPath.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path badDirectory = Files.createDirectories(directory.resolve("bad-libs-" + kind));
        Files.copy(fixture.variantProgram, badDirectory.resolve(libcPath.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Optional<Long> gdbPrintf = fixture.gdbAddress(kind, "&printf");
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(fixture.core(kind))
                .withSolibSearchPath(List.of(goodDirectory)).open()) {
            assertThat(space.lookupSymbol("printf", "libc")).map(TargetSymbol::address).isEqualTo(gdbPrintf);
        }
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(fixture.core(kind))
                .withSolibSearchPath(List.of(badDirectory)).open()) {
            assertThatThrownBy(() -> space.lookupSymbol("printf", "libc"))
                    .isInstanceOf(BuildIdMismatchException.class)
                    .hasMessageStartingWith("core was made with a different " + libcPath.getFileName());
        }
    }

    @ParameterizedTest
    @EnumSource(CoreFixture.Kind.class)
    void modulesStartWithTheExecutableAndCarryTheCoresBuildIds(CoreFixture.Kind kind) throws IOException {
        try (CoreFileAddressSpace space = open(kind)) {
            List<LoadedModule> modules = space.modules();
            assertThat(modules.getFirst().path()).isEqualTo(fixture.program.toRealPath());
            assertThat(modules).extracting(module -> module.path().getFileName().toString())
                    .anyMatch(name -> name.startsWith("libc.so")).anyMatch(name -> name.startsWith("ld-linux"));
            for (LoadedModule module : modules) {
                try (ElfFile file = ElfFile.open(module.path())) {
                    assertThat(module.buildId()).as(module.path().toString()).isEqualTo(file.buildId());
                }
            }
        }
    }

    @Test
    void openingACoreAndReadingIsFast() {
        Path core = fixture.anyCore();
        long openStart = System.nanoTime();
        CoreFileAddressSpace space = CoreFileAddressSpace.open(core);
        long openNanos = System.nanoTime() - openStart;
        try (space) {
            long[] bases = {
                    space.lookupSymbol("thread_values").orElseThrow().address(),
                    space.lookupSymbol("fixture_greeting").orElseThrow().address(),
                    space.lookupSymbol("printf").orElseThrow().address(),
                    space.threads().getFirst().register("rsp").orElseThrow()};
            SplittableRandom random = new SplittableRandom(7);
            byte[] buffer = new byte[8];
            long checksum = 0;
            int reads = 100_000;
            long readStart = System.nanoTime();
            for (int i = 0; i < reads; i++) {
                space.read(bases[random.nextInt(bases.length)] + random.nextInt(256), buffer, 0, 8);
                checksum += buffer[3];
            }
            long readNanos = System.nanoTime() - readStart;
            System.out.printf("real core (%d bytes): open %.2f ms, %d random 8-byte reads %.2f ms (checksum %d)%n",
                    core.toFile().length(), openNanos / 1e6, reads, readNanos / 1e6, checksum);
            assertThat(openNanos).as("opening").isLessThan(2_000_000_000L);
            assertThat(readNanos).as("10^5 reads").isLessThan(2_000_000_000L);
        }
    }
}
