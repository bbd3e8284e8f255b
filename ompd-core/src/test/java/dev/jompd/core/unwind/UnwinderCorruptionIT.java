package dev.jompd.core.unwind;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.SectionHeader;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.unwind.NativeStack.Reason;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Damaged stacks and damaged unwind data on a real core (nested 2 3): every walk ends, never with an
 * exception, and a cut-short stack says why. The damage comes from a decorated address space (stack
 * words, registers, unreadable memory) and from a copy of libomp whose {@code .eh_frame} is mutated.
 */
@Timeout(300)
class UnwinderCorruptionIT {
    private static StoppedFixture stopped;

    @BeforeAll
    static void makeCore() {
        stopped = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3"));
    }

    private static CoreFileAddressSpace open(List<Path> solibSearchPath) {
        return CoreFileAddressSpace.builder(stopped.core()).withExecutable(stopped.executable())
                .withSolibSearchPath(solibSearchPath).open();
    }

    /** Every stack ended by the walk itself: no internal failure, bounded, and a reason when cut short. */
    private static void assertWellFormed(List<NativeStack> stacks, int maxFrames) {
        for (NativeStack stack : stacks) {
            assertThat(stack.frames().size()).isLessThanOrEqualTo(maxFrames);
            stack.truncation().ifPresent(truncation ->
                    assertThat(truncation.detail()).as("thread %d", stack.lwp()).doesNotStartWith("unwinding failed"));
        }
    }

    @Test
    void garbageReturnAddressCutsTheStackWithAReason() {
        try (CoreFileAddressSpace real = open(List.of()); DebugInfoCache cache = new DebugInfoCache()) {
            CorruptingAddressSpace space = new CorruptingAddressSpace(real);
            TargetThread thread = real.threads().getLast();
            NativeStack healthy;
            try (Unwinder unwinder = new Unwinder(real, cache)) {
                healthy = unwinder.unwind(thread);
            }
            assertThat(healthy.truncation()).isEmpty();
            // The return address of the third physical frame sits just below the fourth's CFA.
            List<NativeFrame> physical = healthy.frames().stream().filter(frame -> !frame.inlined()).toList();
            long slot = physical.get(2).cfa().orElseThrow() - 8;
            space.overwriteWord(slot, 0xdead_beefL);
            try (Unwinder unwinder = new Unwinder(space, cache, new Unwinder.Options(64, false))) {
                NativeStack damaged = unwinder.unwind(thread);
                assertThat(damaged.truncation()).hasValueSatisfying(t -> assertThat(t.reason()).isEqualTo(Reason.NO_UNWIND_INFO));
                assertThat(damaged.frames().getLast().pc()).isEqualTo(0xdead_beefL);
            }
        }
    }

    @Test
    void unreadableStackCutsTheStackWithAReason() {
        try (CoreFileAddressSpace real = open(List.of()); DebugInfoCache cache = new DebugInfoCache()) {
            CorruptingAddressSpace space = new CorruptingAddressSpace(real);
            TargetThread thread = real.threads().getLast();
            long stackPointer = thread.register("rsp").orElseThrow();
            for (long word = stackPointer; word < stackPointer + 4096; word += 8) {
                space.makeUnreadable(word);
            }
            try (Unwinder unwinder = new Unwinder(space, cache)) {
                NativeStack damaged = unwinder.unwind(thread);
                assertThat(damaged.truncation()).hasValueSatisfying(t -> {
                    assertThat(t.reason()).isEqualTo(Reason.UNREADABLE_MEMORY);
                    assertThat(t.detail()).contains("0x");
                });
                assertThat(damaged.frames()).isNotEmpty();
            }
        }
    }

    @Test
    void savedFramePointerPointingBackDownIsCaughtAsACfaThatDoesNotGrow() {
        try (CoreFileAddressSpace real = open(List.of()); DebugInfoCache cache = new DebugInfoCache()) {
            CorruptingAddressSpace space = new CorruptingAddressSpace(real);
            TargetThread thread = real.threads().getLast();
            NativeStack healthy;
            try (Unwinder unwinder = new Unwinder(real, cache)) {
                healthy = unwinder.unwind(thread);
            }
            // fx_gate_wait and its caller (-O0 fixture code) keep rbp frames: CFA = rbp + 16, and the
            // caller's rbp is saved at CFA - 16. Point it below the stack pointer.
            NativeFrame gateWait = healthy.frames().stream()
                    .filter(frame -> frame.function().filter("fx_gate_wait"::equals).isPresent()).findFirst().orElseThrow();
            space.overwriteWord(gateWait.cfa().orElseThrow() - 16, thread.register("rsp").orElseThrow());
            try (Unwinder unwinder = new Unwinder(space, cache)) {
                NativeStack damaged = unwinder.unwind(thread);
                assertThat(damaged.truncation()).hasValueSatisfying(t -> {
                    assertThat(t.reason()).isEqualTo(Reason.CFA_NOT_INCREASING);
                    assertThat(t.detail()).contains("is not above");
                });
                assertThat(damaged.frames().size()).isLessThan(healthy.frames().size());
            }
        }
    }

    @Test
    void missingRegistersSayWhy() {
        try (CoreFileAddressSpace real = open(List.of()); DebugInfoCache cache = new DebugInfoCache();
             Unwinder unwinder = new Unwinder(real, cache)) {
            NativeStack stack = unwinder.unwind(TargetThread.fromRegisters(1, java.util.Map.of("rax", 1L)));
            assertThat(stack.frames()).isEmpty();
            assertThat(stack.truncation()).hasValueSatisfying(t -> assertThat(t.reason()).isEqualTo(Reason.NO_REGISTERS));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomlyDamagedStacksEndBoundedWithoutExceptions(long seed) {
        Random random = new Random(seed);
        try (CoreFileAddressSpace real = open(List.of()); DebugInfoCache cache = new DebugInfoCache()) {
            CorruptingAddressSpace space = new CorruptingAddressSpace(real);
            for (TargetThread thread : real.threads()) {
                long stackPointer = thread.register("rsp").orElseThrow();
                for (int i = 0; i < 24; i++) {
                    long word = stackPointer + 8L * random.nextInt(512);
                    long value = switch (random.nextInt(4)) {
                        case 0 -> random.nextLong();
                        case 1 -> stackPointer + 8L * random.nextInt(64) - 256; // back into the stack
                        case 2 -> thread.register("rip").orElseThrow() + random.nextInt(64) - 32;
                        default -> 0;
                    };
                    space.overwriteWord(word, value);
                }
            }
            try (Unwinder unwinder = new Unwinder(space, cache, new Unwinder.Options(128, true))) {
                assertWellFormed(unwinder.unwindAll(), 128);
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15, 16})
    void mutatedEhFrameOfTheRuntimeEndsEveryWalk(long seed) throws IOException {
        Path directory = Files.createTempDirectory("jompd-mutated-eh-frame");
        try {
            Path library = directory.resolve("libomp.so");
            Files.copy(Runtimes.libraryDirectory(Runtimes.DEFAULT_VERSION).resolve("libomp.so"), library,
                    StandardCopyOption.REPLACE_EXISTING);
            SectionHeader ehFrame;
            SectionHeader header;
            try (ElfFile elf = ElfFile.open(library)) {
                ehFrame = elf.section(".eh_frame").orElseThrow();
                header = elf.section(".eh_frame_hdr").orElseThrow();
            }
            Random random = new Random(seed);
            try (RandomAccessFile file = new RandomAccessFile(library.toFile(), "rw")) {
                for (int i = 0; i < 400; i++) {
                    file.seek(ehFrame.offset() + random.nextInt((int) ehFrame.size()));
                    file.write(random.nextInt(256));
                }
                if (seed % 2 == 0) { // and a table that points anywhere
                    for (int i = 0; i < 40; i++) {
                        file.seek(header.offset() + 12 + random.nextInt((int) header.size() - 12));
                        file.write(random.nextInt(256));
                    }
                }
            }
            try (CoreFileAddressSpace space = open(List.of(directory)); DebugInfoCache cache = new DebugInfoCache();
                 Unwinder unwinder = new Unwinder(space, cache)) {
                assertThat(space.modules()).anySatisfy(module -> assertThat(module.file()).isEqualTo(library));
                List<NativeStack> stacks = unwinder.unwindAll();
                assertWellFormed(stacks, Unwinder.Options.DEFAULT.maxFrames());
                assertThat(stacks).allSatisfy(stack -> assertThat(stack.frames()).isNotEmpty());
            }
        } finally {
            try (var files = Files.walk(directory)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
