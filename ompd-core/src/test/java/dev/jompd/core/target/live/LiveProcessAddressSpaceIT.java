package dev.jompd.core.target.live;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.ompd.ThreadIdKind;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The live backend on real OpenMP fixture programs held at their marker: attach, compare with what
 * the programs recorded about themselves and with gdb, run the OMPD layer, detach, and check the
 * program then finishes exactly as it would have.
 */
class LiveProcessAddressSpaceIT {
    @TempDir
    static Path directory;

    @BeforeAll
    static void requirePtrace() {
        PtraceSupport.assumePermitted(directory);
    }

    private static HeldFixture start(Fixture fixture, String... arguments) {
        FixtureRun run = FixtureRun.of(fixture, arguments);
        return HeldFixture.start(run, directory.resolve(run.label() + "-" + System.nanoTime()));
    }

    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of(Fixture.PARALLEL, new String[] {"4"}),
                Arguments.of(Fixture.NESTED, new String[] {"4", "4"}),
                Arguments.of(Fixture.PARALLEL, new String[] {"256"}));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("shapes")
    void attachStopsEveryThreadAndDetachLetsTheProgramFinish(Fixture fixture, String[] arguments) throws IOException {
        try (HeldFixture held = start(fixture, arguments)) {
            Facts facts = held.facts();
            long pid = held.pid();
            long opening = System.nanoTime();
            try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(pid)) {
                long opened = System.nanoTime() - opening;
                System.out.printf("[jompd] attach %s %s: %d threads stopped in %.1f ms, opened (with modules) in %.1f ms%n",
                        fixture, String.join(" ", arguments), space.threads().size(),
                        space.stopDuration().toNanos() / 1e6, opened / 1e6);
                assertThat(space.mode()).isEqualTo(LiveProcessAddressSpace.Mode.ATTACHED);
                assertThat(space.name()).isEqualTo("pid:" + pid);

                // Every thread of the process, and nothing else, is held in a ptrace stop.
                List<Integer> tasks = ProcFs.threadIds((int) pid);
                assertThat(space.threads()).extracting(TargetThread::lwp)
                        .containsExactlyInAnyOrderElementsOf(tasks.stream().map(Long::valueOf).toList());
                for (int tid : tasks) {
                    assertThat(ProcFs.threadState((int) pid, tid)).as("thread %d", tid).contains('t');
                    int tracerThread = ProcFs.tracerOf((int) pid, tid).orElseThrow();
                    assertThat(ProcFs.threadGroupOf(tracerThread)).as("the tracer of %d", tid).isEqualTo(ProcessHandle.current().pid());
                }
                assertThat(space.threads().getFirst().lwp()).as("the main thread first").isEqualTo(pid);
                assertThat(space.threads().getFirst().registers().keySet())
                        .containsExactlyInAnyOrderElementsOf(LiveProcessAddressSpace.REGISTER_NAMES);

                // The fixture's own record of its OpenMP threads: every LWP present, fs_base is pthread_self().
                Map<Long, TargetThread> byLwp = space.threads().stream()
                        .collect(Collectors.toMap(TargetThread::lwp, Function.identity()));
                assertThat(byLwp.keySet()).containsAll(facts.threads().stream().map(Facts.ThreadFacts::lwp).toList());
                for (Facts.ThreadFacts thread : facts.threads()) {
                    assertThat(byLwp.get(thread.lwp()).threadPointer()).as(thread.toString()).hasValue(thread.pthread());
                }

                // A global read through a symbol: the gate's rendezvous counter (a static, so from .symtab).
                TargetSymbol arrived = space.lookupSymbol("fx_gate_arrived").orElseThrow();
                assertThat(arrived.module()).isEqualTo(held.executable().getFileName().toString());
                assertThat(readLong(space, arrived.address())).isEqualTo(facts.threadCount() - 1);

                // jompd's OMPD layer on top of it.
                AddressSpaceHandle process = Ompd.processInitialize(space);
                assertThat(Ompd.threads(process)).hasSizeGreaterThanOrEqualTo(facts.threadCount());
                for (Facts.ThreadFacts thread : facts.threads()) {
                    ThreadHandle handle = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp());
                    assertThat(handle.pthreadId()).isEqualTo(thread.pthread());
                    assertThat(handle.threadNum()).as(thread.toString()).isEqualTo((long) thread.threadNum());
                    assertThat(handle.currentParallel().teamSize()).as(thread.toString()).isEqualTo(thread.teamSize());
                    assertThat(handle.currentParallel().level()).as(thread.toString()).isEqualTo(thread.level());
                }
            }
            // Detached: nobody traces it, nothing is stopped, and it goes on exactly as before.
            for (int tid : ProcFs.threadIds((int) pid)) {
                assertThat(ProcFs.tracerOf((int) pid, tid)).as("thread %d", tid).hasValue(0);
                assertThat(ProcFs.threadState((int) pid, tid)).as("thread %d", tid).isNotEqualTo(Optional.of('t'));
            }
            HeldFixture.Finished finished = held.release();
            assertThat(finished.output()).contains("JOMPD_RESULT ok");
            assertThat(finished.exitCode()).isZero();
        }
    }

    @Test
    void attachingAgainFromAnyThreadGivesTheSameThreadsAndTheProgramStillFinishes() throws Exception {
        try (HeldFixture held = start(Fixture.PARALLEL, "8")) {
            List<TargetThread> first;
            try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(held.pid())) {
                first = space.threads();
            }
            for (int round = 0; round < 5; round++) {
                try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(held.pid())) {
                    assertThat(space.threads()).extracting(TargetThread::lwp)
                            .containsExactlyElementsOf(first.stream().map(TargetThread::lwp).toList());
                    assertThat(space.threads()).extracting(TargetThread::threadPointer)
                            .containsExactlyElementsOf(first.stream().map(TargetThread::threadPointer).toList());
                }
            }
            // Opened on a virtual thread, read and closed on another thread: ptrace still runs on the tracer thread.
            var opened = new java.util.concurrent.atomic.AtomicReference<LiveProcessAddressSpace>();
            Thread.ofVirtual().start(() -> opened.set(LiveProcessAddressSpace.attach(held.pid()))).join();
            LiveProcessAddressSpace space = opened.get();
            assertThat(space.threads()).hasSameSizeAs(first);
            Thread.ofPlatform().start(space::close).join();
            assertThat(ProcFs.tracerOf((int) held.pid(), (int) held.pid())).hasValue(0);

            HeldFixture.Finished finished = held.release();
            assertThat(finished.output()).contains("JOMPD_RESULT ok");
            assertThat(finished.exitCode()).isZero();
        }
    }

    @Test
    void aProcessStoppedBySigstopStaysStoppedAfterDetach() throws Exception {
        try (DetachedProcess sleeper = DetachedProcess.start(List.of("/bin/sh", "-c", "echo JOMPD_SLEEPER; exec sleep 60"),
                Map.of(), directory, directory.resolve("stopped-stderr.txt"))) {
            sleeper.awaitLine("JOMPD_SLEEPER", Duration.ofSeconds(30));
            int pid = (int) sleeper.pid();
            Commands.run(List.of("kill", "-STOP", Integer.toString(pid)), Map.of(), directory, Duration.ofSeconds(10));
            awaitState(pid, 'T');
            try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(pid)) {
                assertThat(space.threads()).hasSize(1);
                assertThat(ProcFs.threadState(pid, pid)).contains('t');
            }
            // Detaching passes the thread back through the running state into its group stop again:
            // wait (bounded) for the stop rather than sampling once. A lost stop would end in 'S'.
            awaitState(pid, 'T');
            Commands.run(List.of("kill", "-CONT", Integer.toString(pid)), Map.of(), directory, Duration.ofSeconds(10));
            awaitState(pid, 'S');
        }
    }

    /** Waits (bounded) for the kernel to put a thread into {@code state} after a signal. */
    private static void awaitState(int pid, char state) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!ProcFs.threadState(pid, pid).equals(Optional.of(state))) {
            assertThat(System.nanoTime() - deadline).as("process %d never reached state %s", pid, state).isNegative();
            Thread.sleep(2);
        }
    }

    @Test
    void modulesAndSymbolsAgreeWithTheMapsAndTheElfFiles() throws IOException {
        try (HeldFixture held = start(Fixture.PARALLEL, "2");
             LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(held.pid())) {
            assertThat(space.executable()).map(LoadedModule::path).contains(held.executable());
            assertThat(space.modules().getFirst().path()).isEqualTo(held.executable());
            List<String> names = space.modules().stream().map(module -> module.path().getFileName().toString()).toList();
            assertThat(names).anyMatch(name -> name.startsWith("libomp.so"));
            assertThat(names).anyMatch(name -> name.startsWith("libc.so"));
            // libomp's OMPD breadcrumbs are local symbols: found only in its .symtab.
            TargetSymbol breadcrumb = space.lookupSymbol("ompd_access__kmp_base_info_t__th_team", "libomp").orElseThrow();
            assertThat(breadcrumb.module()).startsWith("libomp.so");
            // An exported function's address holds its code: compare with the bytes of the file.
            LoadedModule libc = space.modules().stream()
                    .filter(module -> module.path().getFileName().toString().startsWith("libc.so")).findFirst().orElseThrow();
            TargetSymbol printf = space.lookupSymbol("printf", "libc.so").orElseThrow();
            assertThat(libc.buildId()).isPresent();
            try (var elf = dev.jompd.core.elf.ElfFile.open(libc.path())) {
                assertThat(elf.buildId()).isEqualTo(libc.buildId());
                var symbol = elf.dynamicSymbolTable().lookup("printf").orElseThrow();
                assertThat(printf.address()).isEqualTo(libc.loadBias() + symbol.value());
                var text = elf.section(".text").orElseThrow();
                long fileOffset = symbol.value() - text.address() + text.offset();
                byte[] expected = new byte[32];
                elf.bytes().copyTo(fileOffset, expected, 0, expected.length);
                byte[] actual = new byte[32];
                space.read(printf.address(), actual, 0, actual.length);
                assertThat(actual).isEqualTo(expected);
            }
            assertThat(space.lookupSymbol("no_such_symbol_anywhere")).isEmpty();
        }
    }

    @Test
    void unreadableMemoryThrowsWithAddressLengthAndBackendNeverZeros() throws IOException {
        try (HeldFixture held = start(Fixture.PARALLEL, "2");
             LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(held.pid())) {
            MemoryReadException nullPage = catchThrowableOfType(MemoryReadException.class,
                    () -> space.read(0x10, new byte[8], 0, 8));
            assertThat(nullPage.address()).isEqualTo(0x10);
            assertThat(nullPage.length()).isEqualTo(8);
            assertThat(nullPage).hasMessageContaining("pid:" + held.pid()).hasMessageContaining("0x10");

            // A range running off the end of a mapping into a hole: the readable part is not enough.
            List<ProcFs.Mapping> maps = ProcFs.mappings((int) held.pid());
            ProcFs.Mapping beforeHole = null;
            for (int i = 0; i + 1 < maps.size(); i++) {
                if (maps.get(i).permissions().startsWith("r") && maps.get(i).end() != maps.get(i + 1).start()) {
                    beforeHole = maps.get(i);
                    break;
                }
            }
            assertThat(beforeHole).isNotNull();
            long address = beforeHole.end() - 8;
            MemoryReadException straddling = catchThrowableOfType(MemoryReadException.class,
                    () -> space.read(address, new byte[16], 0, 16));
            assertThat(straddling.address()).isEqualTo(address);
            assertThat(straddling).hasMessageContaining("0x%x is not readable".formatted(beforeHole.end()));
            byte[] lastBytes = new byte[8];
            space.read(address, lastBytes, 0, 8); // the mapped part alone reads fine
        }
    }

    @Test
    void readsEqualProcMemAndAreFast() throws IOException {
        try (HeldFixture held = start(Fixture.PARALLEL, "4");
             LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(held.pid())) {
            // The largest readable file mapping (resident code: no page faults in the target), read 8 times
            // in 4 KiB blocks (TargetMemory's block size) and in 64 KiB blocks.
            ProcFs.Mapping largest = ProcFs.mappings((int) held.pid()).stream()
                    .filter(mapping -> mapping.permissions().startsWith("r") && mapping.fileBacked())
                    .max((a, b) -> Long.compare(a.end() - a.start(), b.end() - b.start())).orElseThrow();
            long length = Math.min(largest.end() - largest.start(), 64L << 20) & -(64 * 1024);
            for (int blockSize : new int[] {4096, 64 * 1024}) {
                byte[] block = new byte[blockSize];
                int passes = 8;
                long started = System.nanoTime();
                long checksum = 0;
                for (int pass = 0; pass < passes; pass++) {
                    for (long offset = 0; offset + blockSize <= length; offset += blockSize) {
                        space.read(largest.start() + offset, block, 0, blockSize);
                        checksum += block[0];
                    }
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                long total = passes * length;
                System.out.printf("[jompd] read %d KiB of %s %d times in %d KiB blocks: %.0f MiB/s, %.1f µs per block (checksum %d)%n",
                        length >> 10, largest.path(), passes, blockSize >> 10, total / seconds / (1 << 20),
                        seconds * 1e6 / (total / blockSize), checksum);
            }
            // The same bytes as /proc/PID/mem gives.
            byte[] ours = new byte[(int) Math.min(length, 1 << 20)];
            space.read(largest.start(), ours, 0, ours.length);
            byte[] theirs = new byte[ours.length];
            try (FileChannel mem = FileChannel.open(Path.of("/proc", Long.toString(held.pid()), "mem"), StandardOpenOption.READ)) {
                ByteBuffer buffer = ByteBuffer.wrap(theirs);
                while (buffer.hasRemaining()) {
                    mem.read(buffer, largest.start() + buffer.position());
                }
            }
            assertThat(ours).isEqualTo(theirs);
        }
    }

    @Test
    void readsAfterCloseFailAndCloseIsIdempotent() {
        try (HeldFixture held = start(Fixture.PARALLEL, "2")) {
            LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(held.pid());
            long address = space.lookupSymbol("fx_gate_arrived").orElseThrow().address();
            space.close();
            space.close();
            assertThatThrownBy(() -> space.read(address, new byte[8], 0, 8))
                    .isInstanceOf(MemoryReadException.class).hasMessageContaining("detached");
            HeldFixture.Finished finished = held.release();
            assertThat(finished.output()).contains("JOMPD_RESULT ok");
        }
    }

    @Test
    void aProcessKilledUnderUsFailsReadsClearlyAndCloseStillWorks() throws InterruptedException {
        try (HeldFixture held = start(Fixture.PARALLEL, "4")) {
            LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(held.pid());
            long address = space.lookupSymbol("fx_gate_arrived").orElseThrow().address();
            ProcessHandle.of(held.pid()).orElseThrow().destroyForcibly(); // SIGKILL: the one thing a stop cannot hold
            awaitDeath((int) held.pid());
            assertThatThrownBy(() -> space.read(address, new byte[8], 0, 8))
                    .isInstanceOf(MemoryReadException.class)
                    .hasMessageContaining("process %d has exited".formatted(held.pid()));
            space.close();
        }
    }

    /** Waits (bounded) until the kernel has torn the killed process down to a zombie or removed it. */
    private static void awaitDeath(int pid) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        // Killed threads stay zombies until their tracer (we) reaps them, when the space closes.
        while (ProcFs.threadIds(pid).stream().anyMatch(tid -> ProcFs.threadState(pid, tid)
                .filter(state -> state != 'Z' && state != 'X').isPresent())) {
            assertThat(System.nanoTime() - deadline).as("process %d still alive after SIGKILL", pid).isNegative();
            Thread.sleep(5);
        }
    }

    @Test
    void aPidThatDoesNotExistIsNamedAsSuch() throws IOException {
        long pidMax = Long.parseLong(ProcFs.read(Path.of("/proc/sys/kernel/pid_max")).orElseThrow().strip());
        long unused = pidMax - 1;
        while (Files.exists(Path.of("/proc", Long.toString(unused)))) {
            unused--;
        }
        long pid = unused;
        AttachException attach = catchThrowableOfType(AttachException.class, () -> LiveProcessAddressSpace.attach(pid));
        assertThat(attach.reason()).isEqualTo(AttachException.Reason.NO_SUCH_PROCESS);
        assertThat(attach).hasMessageContaining("no process with id " + pid);
        AttachException readOnly = catchThrowableOfType(AttachException.class, () -> LiveProcessAddressSpace.readOnly(pid));
        assertThat(readOnly.reason()).isEqualTo(AttachException.Reason.NO_SUCH_PROCESS);
        assertThat(catchThrowableOfType(AttachException.class, () -> LiveProcessAddressSpace.attach(-5)).reason())
                .isEqualTo(AttachException.Reason.NO_SUCH_PROCESS);
    }

    @Test
    void thisJvmsOwnChildIsRefusedWithTheReason() throws IOException, InterruptedException {
        Process child = new ProcessBuilder("sleep", "60").start();
        try {
            AttachException e = catchThrowableOfType(AttachException.class, () -> LiveProcessAddressSpace.attach(child.pid()));
            assertThat(e.reason()).isEqualTo(AttachException.Reason.CHILD_OF_THIS_JVM);
            assertThat(e).hasMessageContaining("child of this JVM").hasMessageContaining("reaper");
            assertThat(child.isAlive()).isTrue();
            assertThat(catchThrowableOfType(AttachException.class,
                    () -> LiveProcessAddressSpace.attach(ProcessHandle.current().pid())).reason())
                    .isEqualTo(AttachException.Reason.SELF);
        } finally {
            child.destroyForcibly();
            child.waitFor();
        }
    }

    @Test
    void aProcessGdbTracesIsRefusedNamingGdb() {
        PtraceSupport.assumeGdb();
        try (HeldFixture held = start(Fixture.PARALLEL, "2");
             GdbHolder gdb = GdbHolder.attach(held.pid(), List.of())) {
            AttachException e = catchThrowableOfType(AttachException.class, () -> LiveProcessAddressSpace.attach(held.pid()));
            assertThat(e.reason()).isEqualTo(AttachException.Reason.ALREADY_TRACED);
            assertThat(e.tracerPid()).hasValue(gdb.pid());
            assertThat(e.tracerName()).contains("gdb");
            assertThat(e).hasMessageContaining("already traced by process %d (gdb)".formatted(gdb.pid()));
            gdb.release();
            HeldFixture.Finished finished = held.release();
            assertThat(finished.output()).contains("JOMPD_RESULT ok");
            assertThat(finished.exitCode()).isZero();
        }
    }

    @Test
    void readOnlyModeReadsAProcessGdbHoldsStopped() {
        PtraceSupport.assumeGdb();
        try (HeldFixture held = start(Fixture.NESTED, "2", "3")) {
            Facts facts = held.facts();
            try (GdbHolder gdb = GdbHolder.attach(held.pid(), List.of(
                    "python print('JOMPD_VALUE value', int(gdb.parse_and_eval('fx_gate_arrived')))",
                    "python print('JOMPD_VALUE address', int(gdb.parse_and_eval('&fx_gate_arrived')))"))) {
                long gdbValue = gdbValue(gdb.output(), "value");
                long gdbAddress = gdbValue(gdb.output(), "address");
                try (LiveProcessAddressSpace space = LiveProcessAddressSpace.readOnly(held.pid())) {
                    assertThat(space.mode()).isEqualTo(LiveProcessAddressSpace.Mode.READ_ONLY);
                    assertThat(space.threadPointerProblem()).isEmpty();
                    assertThat(space.threads()).extracting(TargetThread::lwp).containsExactlyInAnyOrderElementsOf(
                            ProcFs.threadIds((int) held.pid()).stream().map(Long::valueOf).toList());
                    assertThat(space.threads().getFirst().lwp()).isEqualTo(held.pid());
                    Map<Long, TargetThread> byLwp = space.threads().stream()
                            .collect(Collectors.toMap(TargetThread::lwp, Function.identity()));
                    for (Facts.ThreadFacts thread : facts.threads()) {
                        assertThat(byLwp.get(thread.lwp()).threadPointer()).as(thread.toString()).hasValue(thread.pthread());
                    }
                    // Every thread is a pthread here, so glibc's lists name them all; rsp/rip come from /proc.
                    assertThat(space.threads()).allSatisfy(thread -> {
                        assertThat(thread.threadPointer()).isPresent();
                        assertThat(thread.register("rsp")).isPresent();
                        assertThat(thread.register("rip")).isPresent();
                    });

                    TargetSymbol arrived = space.lookupSymbol("fx_gate_arrived").orElseThrow();
                    assertThat(arrived.address()).isEqualTo(gdbAddress);
                    assertThat(readLong(space, arrived.address())).isEqualTo(gdbValue).isEqualTo(facts.threadCount() - 1);

                    AddressSpaceHandle process = Ompd.processInitialize(space);
                    for (Facts.ThreadFacts thread : facts.threads()) {
                        ThreadHandle handle = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp());
                        assertThat(handle.currentParallel().teamSize()).as(thread.toString()).isEqualTo(thread.teamSize());
                    }
                }
                // A debugger front end names the threads itself (LWP, pthread_t as the thread pointer), as gdb does to jompd
                List<TargetThread> fromFrontEnd = facts.threads().stream()
                        .map(thread -> TargetThread.identity(thread.lwp(), thread.pthread())).toList();
                AtomicReference<List<TargetThread>> named = new AtomicReference<>(fromFrontEnd);
                try (LiveProcessAddressSpace space = LiveProcessAddressSpace.builder(held.pid()).withThreadsFrom(named::get)
                        .openReadOnly()) {
                    assertThat(space.threads()).isEqualTo(fromFrontEnd);
                    AddressSpaceHandle process = Ompd.processInitialize(space);
                    for (Facts.ThreadFacts thread : facts.threads()) {
                        ThreadHandle handle = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp());
                        assertThat(handle.threadNum()).as(thread.toString()).isEqualTo((long) thread.threadNum());
                    }
                    named.set(fromFrontEnd.subList(0, 1)); // the next stop's list is the front end's again
                    assertThat(space.threads()).containsExactly(fromFrontEnd.getFirst());
                }
                // Reading did not disturb gdb's hold.
                assertThat(ProcFs.threadGroupOf(ProcFs.tracerOf((int) held.pid(), (int) held.pid()).orElseThrow())).isEqualTo(gdb.pid());
                assertThat(ProcFs.threadState((int) held.pid(), (int) held.pid())).contains('t');
            }
            HeldFixture.Finished finished = held.release();
            assertThat(finished.output()).contains("JOMPD_RESULT ok");
            assertThat(finished.exitCode()).isZero();
        }
    }

    @Test
    void readOnlyModeRefusesARunningProcess() {
        try (DetachedProcess sleeper = DetachedProcess.start(List.of("/bin/sh", "-c", "echo JOMPD_SLEEPER; exec sleep 60"),
                Map.of(), directory, directory.resolve("sleeper-stderr.txt"))) {
            sleeper.awaitLine("JOMPD_SLEEPER", Duration.ofSeconds(30));
            AttachException e = catchThrowableOfType(AttachException.class, () -> LiveProcessAddressSpace.readOnly(sleeper.pid()));
            assertThat(e.reason()).isEqualTo(AttachException.Reason.NOT_STOPPED);
            assertThat(e).hasMessageContaining("is running");
        }
    }

    /**
     * One scenario, every backend: jompd's whole picture of the process (ProcessSnapshot) is the same
     * when attached, when read-only under gdb, and from a core gdb wrote of the same stop.
     */
    @Test
    void snapshotIsTheSameAttachedReadOnlyAndFromACore() {
        PtraceSupport.assumeGdb();
        try (HeldFixture held = start(Fixture.NESTED, "2", "2")) {
            ProcessSnapshot attached;
            try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(held.pid())) {
                attached = ProcessSnapshot.take(Ompd.processInitialize(space));
            }
            assertThat(attached.problems()).isEmpty();
            assertThat(attached.threads()).hasSize(held.facts().threadCount());
            ProcessSnapshot readOnly;
            Path core = directory.resolve("snapshot-" + held.pid() + ".core");
            try (GdbHolder gdb = GdbHolder.attach(held.pid(), List.of("gcore " + core))) {
                try (LiveProcessAddressSpace space = LiveProcessAddressSpace.readOnly(held.pid())) {
                    readOnly = ProcessSnapshot.take(Ompd.processInitialize(space));
                }
            }
            ProcessSnapshot fromCore;
            try (CoreFileAddressSpace space = CoreFileAddressSpace.open(core)) {
                fromCore = ProcessSnapshot.take(Ompd.processInitialize(space));
            }
            assertThat(readOnly).isEqualTo(attached);
            assertThat(fromCore).isEqualTo(attached);
            HeldFixture.Finished finished = held.release();
            assertThat(finished.output()).contains("JOMPD_RESULT ok");
            assertThat(finished.exitCode()).isZero();
        }
    }

    private static long readLong(LiveProcessAddressSpace space, long address) {
        byte[] bytes = new byte[8];
        space.read(address, bytes, 0, 8);
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** A line "JOMPD_VALUE name 42" that gdb's Python printed. */
    private static long gdbValue(String output, String name) {
        String prefix = "JOMPD_VALUE " + name + " ";
        return output.lines().filter(line -> line.startsWith(prefix)).findFirst()
                .map(line -> Long.parseLong(line.substring(prefix.length()).strip()))
                .orElseThrow(() -> new AssertionError("gdb printed no " + prefix + "in:\n" + output));
    }
}
