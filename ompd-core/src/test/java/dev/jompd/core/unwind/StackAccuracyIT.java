package dev.jompd.core.unwind;

import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.FixtureBuilder.Optimization;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Prerequisite;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every thread's native stack, frame by frame (function, source file, line), against gdb's own
 * unwinder on the same core or the same held process: C, C++ and Fortran fixtures, built -O0 with frame
 * pointers and -O2, and on a stripped copy of the runtime.
 */
class StackAccuracyIT {
    private static final DebugInfoCache CACHE = new DebugInfoCache();

    @AfterAll
    static void closeCache() {
        CACHE.close();
    }

    static Stream<Arguments> fixtures() {
        // C++ too: gdb's names of C++ frames (the compiler's outlined functions with their parameter types,
        // clang's .omp_task_entry. thunk by its linkage name) are what the unwinder must say.
        List<FixtureRun> runs = List.of(FixtureRun.of(Fixture.NESTED, "2", "3"), FixtureRun.of(Fixture.TASKS, "10", "4"),
                FixtureRun.of(Fixture.WAITS), FixtureRun.of(Fixture.CXX_TASKS), FixtureRun.of(Fixture.NESTED_FORTRAN, "2", "2"));
        return Stream.concat(
                runs.stream().flatMap(run -> Stream.of(Optimization.NONE, Optimization.O2).map(o -> Arguments.of(run, o))),
                Stream.of(Arguments.of(runs.getFirst(), Optimization.O2_DWARF4), Arguments.of(runs.getLast(), Optimization.O2_DWARF4)));
    }

    @ParameterizedTest(name = "core of {0} built {1}")
    @MethodSource("fixtures")
    void coreStacksMatchGdbFrameByFrame(FixtureRun run, Optimization optimization) {
        Path executable = FixtureBuilder.executable(run.fixture(), run.runtimeVersion(), optimization);
        StoppedFixture stopped = Fixtures.makeCore(run, executable,
                Fixtures.workDirectory("stacks-" + run.label() + "-" + optimization));
        assertMatchesGdbOnCore(stopped);
    }

    /** Every other fixture, on a core, as the kit builds it (their default argv; nested needs sizes). */
    static Stream<FixtureRun> everyOtherFixture() {
        return Stream.of(Fixture.values())
                .filter(fixture -> fixture != Fixture.NESTED && fixture != Fixture.TASKS && fixture != Fixture.WAITS
                        && fixture != Fixture.CXX_TASKS && fixture != Fixture.NESTED_FORTRAN)
                .map(fixture -> FixtureRun.of(fixture));
    }

    @ParameterizedTest(name = "core of {0}")
    @MethodSource("everyOtherFixture")
    void everyOtherFixturesStacksMatchGdb(FixtureRun run) {
        assertMatchesGdbOnCore(Fixtures.makeCore(run, FixtureBuilder.executable(run.fixture()),
                Fixtures.workDirectory("stacks-" + run.label())));
    }

    /**
     * Programs built without debug information: their frames have only the symbol tables' names, which gdb's
     * backtrace prints as the minimal symbol's print name: a C symbol as it is, a C++ one demangled in full
     * (return type of a template, parameters, clone suffix: {@code int sim::wait_at_gate[abi:fx]<8u>(char const*)},
     * {@code sim::Grid<double>::relax() [clone .omp_outlined]}). The runtime keeps its debug information.
     */
    static Stream<FixtureRun> withoutDebugInformation() {
        return Stream.of(FixtureRun.of(Fixture.CXX_NAMES), FixtureRun.of(Fixture.CXX_TASKS), FixtureRun.of(Fixture.NESTED, "2", "3"));
    }

    @ParameterizedTest(name = "core of {0} built without debug information")
    @MethodSource("withoutDebugInformation")
    void stacksWithoutDebugInformationMatchGdb(FixtureRun run) {
        Path executable = FixtureBuilder.executable(run.fixture(), run.runtimeVersion(), Optimization.NO_DEBUG_INFO);
        StoppedFixture stopped = Fixtures.makeCore(run, executable,
                Fixtures.workDirectory("stacks-" + run.label() + "-" + Optimization.NO_DEBUG_INFO));
        assertMatchesGdbOnCore(stopped);
    }

    @ParameterizedTest(name = "live {0} built {1}")
    @MethodSource("fixtures")
    void liveStacksMatchGdbFrameByFrame(FixtureRun run, Optimization optimization) {
        Path executable = FixtureBuilder.executable(run.fixture(), run.runtimeVersion(), optimization);
        try (LiveFixture held = Fixtures.live(run, executable)) {
            Map<Long, List<GdbBacktrace.Frame>> truth = GdbBacktrace.ofProcess(held.pid());
            Prerequisite.require(!truth.isEmpty(), "gdb cannot attach to the held fixture (ptrace not permitted)");
            List<NativeStack> stacks;
            try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(held.pid());
                 Unwinder unwinder = new Unwinder(space, CACHE)) {
                stacks = unwinder.unwindAll();
            }
            assertThat(StackComparison.differences(truth, stacks, true)).isEmpty();
            long unmoved = stacks.stream().filter(stack -> !stack.frames().isEmpty()
                    && truth.getOrDefault(stack.lwp(), List.of()).stream().findFirst()
                    .filter(frame -> frame.pc() == stack.frames().getFirst().pc()).isPresent()).count();
            assertThat(unmoved).as("threads that stood still between gdb's look and jompd's")
                    .isGreaterThanOrEqualTo(stacks.size() / 2);
            assertThat(held.release()).contains("JOMPD_RESULT");
        }
    }

    @Test
    void stacksThroughAStrippedRuntimeMatchGdb() throws IOException, InterruptedException {
        Path directory = Fixtures.workDirectory("stripped-runtime");
        Path library = directory.resolve("libomp.so");
        Files.copy(Runtimes.libraryDirectory(Runtimes.DEFAULT_VERSION).resolve("libomp.so"), library,
                StandardCopyOption.REPLACE_EXISTING);
        Commands.Result strip = Commands.run(List.of("strip", "--strip-all", library.toString()), Map.of(), directory,
                Duration.ofMinutes(1));
        assertThat(strip.exitCode()).as(strip.output()).isZero();
        FixtureRun run = FixtureRun.of(Fixture.NESTED, "2", "3").withEnvironment("LD_LIBRARY_PATH", directory.toString());
        StoppedFixture stopped = Fixtures.makeCore(run, FixtureBuilder.executable(Fixture.NESTED),
                directory.resolve("core-" + System.nanoTime()));
        assertThat(stopped.facts().get("runtime_library")).startsWith(directory.toString());
        assertMatchesGdbOnCore(stopped);
    }

    /**
     * A thread caught on pthread_cond_wait's way in: its unlock of the mutex wakes a thread waiting for it
     * ({@code __lll_lock_wake}), so the caller frames return into the middle of glibc's inlined
     * {@code __pthread_cond_wait_common}, where the line table's rows of two files meet at one address (gdb keeps
     * pthread_cond_wait.c:419 there, not pthread_cond_common.c:186). gdb stops the program there and writes the core.
     */
    @Test
    void stackCaughtOnCondWaitsWayInMatchesGdb() throws IOException {
        Path directory = Fixtures.workDirectory("cond-wait-way-in");
        Path source = Files.writeString(directory.resolve("cond_wait.c"), """
                #include <pthread.h>
                #include <unistd.h>
                static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
                static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
                volatile int entering_wait;
                static void *contender(void *unused) {
                  (void) unused;
                  pthread_mutex_lock(&mutex);
                  pthread_cond_signal(&ready);
                  pthread_mutex_unlock(&mutex);
                  return 0;
                }
                int main(void) {
                  pthread_t thread;
                  pthread_mutex_lock(&mutex);
                  pthread_create(&thread, 0, contender, 0);
                  /* until the contender sleeps on the mutex: glibc marks it contended (2) */
                  while (__atomic_load_n(&mutex.__data.__lock, __ATOMIC_ACQUIRE) != 2)
                    usleep(1000);
                  entering_wait = 1;
                  pthread_cond_wait(&ready, &mutex);
                  pthread_mutex_unlock(&mutex);
                  return pthread_join(thread, 0);
                }
                """);
        Path executable = directory.resolve("cond_wait");
        Commands.Result compiled = Commands.run(List.of("clang-19", "-g", "-O0", "-pthread", "-o", executable.toString(),
                source.toString()), Map.of(), directory, Duration.ofMinutes(2));
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        Path core = directory.resolve("core");
        Files.deleteIfExists(core);
        Commands.Result run = Commands.run(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off",
                "-ex", "set breakpoint pending on", "-ex", "break __lll_lock_wake if entering_wait", "-ex", "run",
                "-ex", "gcore " + core, "-ex", "kill", executable.toString()), Map.of(), directory, Duration.ofMinutes(2));
        assertThat(core).as(run.output()).isRegularFile();

        Map<Long, List<GdbBacktrace.Frame>> truth = GdbBacktrace.ofCore(executable, core);
        assertThat(truth.values()).as("gdb's stacks: one thread in glibc's inlined wait").anySatisfy(frames ->
                assertThat(frames).extracting(GdbBacktrace.Frame::function, GdbBacktrace.Frame::kind)
                        .contains(org.assertj.core.groups.Tuple.tuple("__pthread_cond_wait_common", "inline")));
        List<NativeStack> stacks;
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(core).withExecutable(executable).open();
             Unwinder unwinder = new Unwinder(space, CACHE)) {
            stacks = unwinder.unwindAll();
        }
        assertThat(StackComparison.differences(truth, stacks)).isEmpty();
    }

    /**
     * Symbol names gdb's backtrace prints changed, frame by frame against gdb on one core: a C program without
     * debug information whose functions call each other down to abort(), each named by an assembler label. C++
     * names (a template function with an ABI tag, a clone, libstdc++'s std substitutions, one c++filt cannot
     * read), compilers' helper names gdb's Ada decoder rewrites ({@code .omp_task_entry.}, gcc's
     * {@code main._omp_fn.0}, {@code f.cold}, GNAT's own encodings) and names it leaves, and a function whose
     * symbol is stripped, which gdb shows as {@code ??}.
     */
    @Test
    void symbolOnlyFramesAreNamedAsGdbPrintsThem() throws IOException {
        List<String> symbols = List.of(".omp_task_entry.", ".omp_task_entry..3", "main.omp_outlined", ".omp_outlined.",
                ".omp_outlined._debug__", "main._omp_fn.0", "work.cold", "work.part.0", "work.constprop.0", "x.y",
                "my__name", "fooTKB", "fooB", "bar__3", "a$1", "foo1N", "x___y", "x___Xab", "my__B_12__x", "abcN__d",
                "Oadd", "fooU61", "Rfoo", "plain_c", "omp.reduction.reduction_func", "stripped_away",
                "_ZN3sim12wait_at_gateB2fxILj8EEEiPKc", "_ZN3sim4GridIdE5relaxEv.omp_outlined", "_Z4showSsRSo",
                "_ZNSo9_M_insertIlEERSoT_", "_ZZN3sim4GridIdE5relaxEvENKUliE_clEi", "_Zgarbage");
        StringBuilder source = new StringBuilder("#include <stdlib.h>\n");
        for (int i = 0; i < symbols.size(); i++) {
            source.append("__attribute__((noinline)) void f%d(void) __asm__(\"%s\");\n".formatted(i, symbols.get(i)));
        }
        source.append("void f0(void) { abort(); }\n");
        for (int i = 1; i < symbols.size(); i++) {
            source.append("void f%d(void) { f%d(); }\n".formatted(i, i - 1));
        }
        source.append("int main(void) { f%d(); return 0; }\n".formatted(symbols.size() - 1));
        Path directory = Fixtures.workDirectory("symbol-names");
        Path file = Files.writeString(directory.resolve("symbol_names.c"), source);
        Path executable = directory.resolve("symbol_names");
        Commands.Result compiled = Commands.run(List.of("clang-19", "-O0", "-fno-omit-frame-pointer", "-o",
                executable.toString(), file.toString()), Map.of(), directory, Duration.ofMinutes(2));
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        Commands.Result stripped = Commands.run(List.of("objcopy", "--strip-symbol=stripped_away", executable.toString()),
                Map.of(), directory, Duration.ofMinutes(1));
        assertThat(stripped.exitCode()).as(stripped.output()).isZero();
        Path core = directory.resolve("core");
        Files.deleteIfExists(core);
        Commands.Result run = Commands.run(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off", "-ex", "run",
                "-ex", "gcore " + core, "-ex", "kill", executable.toString()), Map.of(), directory, Duration.ofMinutes(2));
        assertThat(core).as(run.output()).isRegularFile();

        Map<Long, List<GdbBacktrace.Frame>> truth = GdbBacktrace.ofCore(executable, core);
        List<NativeStack> stacks;
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(core).withExecutable(executable).open();
             Unwinder unwinder = new Unwinder(space, CACHE)) {
            stacks = unwinder.unwindAll();
        }
        assertThat(truth.values()).singleElement().satisfies(frames -> {
            int abort = frames.stream().map(GdbBacktrace.Frame::function).toList().indexOf("__GI_abort");
            assertThat(frames.size() - abort - 1).as("gdb's frames after abort's: one per symbol, then main's")
                    .isEqualTo(symbols.size() + 1);
        });
        assertThat(StackComparison.differences(truth, stacks)).isEmpty();
    }

    private static void assertMatchesGdbOnCore(StoppedFixture stopped) {
        Map<Long, List<GdbBacktrace.Frame>> truth = GdbBacktrace.ofCore(stopped.executable(), stopped.core());
        List<NativeStack> stacks;
        List<String> lineDifferences = new java.util.ArrayList<>();
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(stopped.core())
                .withExecutable(stopped.executable()).open();
             Unwinder unwinder = new Unwinder(space, CACHE)) {
            stacks = unwinder.unwindAll();
            // The SourceLocator alone (what replaces addr2line): each thread's pc at gdb's line for it.
            SourceLocator locator = new SourceLocator(space, CACHE);
            truth.forEach((lwp, frames) -> {
                GdbBacktrace.Frame innermost = frames.getFirst();
                int located = locator.locate(innermost.pc()).map(SourceLocation::line).orElse(0);
                if (located != innermost.line()) {
                    lineDifferences.add("thread %d pc 0x%x: gdb line %d, SourceLocator %d".formatted(lwp, innermost.pc(),
                            innermost.line(), located));
                }
                String function = frames.stream().filter(frame -> !frame.kind().equals("inline")).findFirst()
                        .map(GdbBacktrace.Frame::function).orElse("??");
                String locatedFunction = locator.functionAt(innermost.pc()).orElse("??");
                if (!function.equals(locatedFunction)) {
                    lineDifferences.add("thread %d pc 0x%x: gdb function %s, SourceLocator %s".formatted(lwp,
                            innermost.pc(), function, locatedFunction));
                }
            });
        }
        assertThat(truth).isNotEmpty();
        assertThat(StackComparison.differences(truth, stacks)).isEmpty();
        assertThat(lineDifferences).isEmpty();
    }
}
