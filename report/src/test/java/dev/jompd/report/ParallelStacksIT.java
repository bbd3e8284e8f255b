package dev.jompd.report;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.core.unwind.NativeFrame;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.ParallelStacks.Node;
import dev.jompd.report.ParallelStacks.Step;
import dev.jompd.report.ParallelStacks.ThreadStack;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Parallel stacks of real cores: every OpenMP thread is in the merged tree once, the marker thread's path
 * ends in the marker and the others' in the gate the programs wait at (what the programs recorded), and
 * threads the waits program holds in a lock, a critical section, a barrier and a taskwait have their
 * runtime frames folded to exactly that.
 */
class ParallelStacksIT {
    static <T> T withStacks(StoppedFixture fixture, Function<ParallelStacks, T> use) {
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core());
             Symbolizer symbols = new Symbolizer(core); CodeNames names = new CodeNames(symbols);
             DebugInfoCache debugInfo = new DebugInfoCache(); Unwinder unwinder = new Unwinder(core, debugInfo)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            OpenMpPicture picture = OpenMpPicture.take(process, new TargetDescription("core",
                    fixture.core().toString(), core.name(), process.layout().runtimeModule()), names);
            return use.apply(ParallelStacks.of(picture, core, unwinder));
        }
    }

    static List<Node> leaves(List<Node> nodes) {
        List<Node> leaves = new ArrayList<>();
        for (Node node : nodes) {
            if (node.children().isEmpty()) {
                leaves.add(node);
            } else {
                leaves.addAll(leaves(node.children()));
            }
        }
        return leaves;
    }

    @Test
    void everyThreadEndsWhereTheProgramSaysItWaits() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3"));
        Facts facts = fixture.facts();
        long markerLwp = facts.thread((int) facts.number("marker_thread")).lwp();
        withStacks(fixture, stacks -> {
            assertThat(stacks.stacks()).hasSize(facts.threadCount());
            assertThat(leaves(stacks.roots()).stream().mapToInt(n -> n.threads().size()).sum())
                    .as(TextReport.stacks(stacks)).isEqualTo(facts.threadCount());
            for (ThreadStack stack : stacks.stacks()) {
                List<String> functions = stack.steps().stream().map(Step::function).toList();
                if (stack.thread().lwp().getAsLong() == markerLwp) {
                    assertThat(functions.getLast()).as(TextReport.stacks(stacks)).isEqualTo("jompd_marker");
                } else {
                    assertThat(functions).as(TextReport.stacks(stacks)).contains("fx_gate_wait");
                }
                assertThat(stack.stack().truncation()).as("%s", stack.stack()).isEmpty();
                // the user's frames of the innermost region belong to the thread's innermost implicit task
                int outlined = functions.lastIndexOf("region.omp_outlined_debug__");
                assertThat(outlined).isNotNegative();
                assertThat(stack.steps().get(outlined).task()).as(TextReport.stacks(stacks))
                        .isEqualTo(stack.thread().taskIds().stream().findFirst());
            }
            assertThat(TextReport.stacks(stacks)).contains("[libomp: runs the OpenMP code below");
            return null;
        });
    }

    /**
     * BOTS fib built -O2: both task constructs' code is inlined into a thunk that calls only {@code fib}. The
     * picture names each task by its own construct, and each thunk frame of the marker thread reads as the
     * construct the program recorded for that task (innermost first), never both as one.
     */
    @Test
    void fibsTwoTaskConstructsStayTwoAtO2() {
        FixtureRun run = FixtureRun.of(Fixture.FIB_TASKS);
        StoppedFixture fixture = Fixtures.makeCore(run, dev.jompd.testkit.FixtureBuilder.executable(run.fixture(),
                run.runtimeVersion(), dev.jompd.testkit.FixtureBuilder.Optimization.O2), Fixtures.workDirectory("fib-tasks-O2-stacks"));
        Facts facts = fixture.facts();
        Map<String, String> lineOf = Map.of("x", facts.get("task.x.line"), "y", facts.get("task.y.line"));
        List<String> expected = java.util.Arrays.stream(facts.get("task_chain").split(","))
                .map(c -> "task at fib_tasks.c:" + lineOf.get(c)).toList();
        withStacks(fixture, stacks -> {
            ThreadStack marker = stacks.stacks().stream()
                    .filter(s -> s.thread().lwp().getAsLong() == facts.thread(0).lwp()).findFirst().orElseThrow();
            List<String> thunks = new ArrayList<>();
            for (int i = 0; i < marker.stack().frames().size(); i++) {
                NativeFrame frame = marker.stack().frames().get(i);
                if (!frame.inlined() && frame.function().orElse("").startsWith(".omp_task_entry.")) {
                    ParallelStacks.Construct construct = marker.constructs().get(i).orElseThrow();
                    thunks.add(construct.kind().words() + " at " + construct.shortSource().orElseThrow());
                }
            }
            assertThat(thunks).as(TextReport.stacks(stacks)).containsExactlyElementsOf(expected);
            // the picture's tasks: the two constructs, each by its own name
            assertThat(stacks.picture().tasks().values().stream().flatMap(t -> t.function().stream())
                    .map(CodeLocation::displayName).filter(n -> n.startsWith("task at ")).distinct().sorted())
                    .containsExactly("task at fib_tasks.c:" + lineOf.get("x"), "task at fib_tasks.c:" + lineOf.get("y"));
            return null;
        });
    }

    /**
     * Every frame of a region's outlined function or a task's code reads as its construct, at the line where
     * gdb finds that function's first instruction (the pragma's): clang names both kinds {@code .omp_outlined…},
     * so the kind is the picture's (which region or task has this code), checked against where the fixtures
     * stop: each thread inside a parallel region, thread 0 of the tasks program inside tasks A, B and C.
     */
    @Test
    void outlinedFunctionsReadAsTheirConstructAtTheirPragmaLine() {
        for (FixtureRun run : List.of(FixtureRun.of(Fixture.NESTED, "2", "3"), FixtureRun.of(Fixture.TASKS, "10", "4"),
                FixtureRun.of(Fixture.CXX_TASKS))) {
            StoppedFixture fixture = Fixtures.core(run);
            Map<Long, List<GdbProbe.Frame>> gdb = GdbProbe.onCore(fixture.executable(), fixture.core()).backtraces();
            withStacks(fixture, stacks -> {
                int tasks = 0;
                for (ThreadStack stack : stacks.stacks()) {
                    List<GdbProbe.Frame> truth = gdb.get(stack.thread().lwp().getAsLong());
                    boolean inRegion = false;
                    for (int i = 0; i < stack.stack().frames().size(); i++) {
                        NativeFrame frame = stack.stack().frames().get(i);
                        if (frame.inlined() || frame.entry().isEmpty()) {
                            continue;
                        }
                        String function = frame.function().orElse("");
                        // gdb's frame at the same pc: its function's first line, independent of jompd
                        GdbProbe.Frame gdbFrame = truth.stream().filter(f -> f.function().equals(function)).findFirst()
                                .orElse(null);
                        Optional<ParallelStacks.Construct> construct = stack.constructs().get(i);
                        boolean regionCode = function.contains("omp_outlined") && !function.startsWith(".omp_outlined")
                                && !function.contains("_debug__");
                        if (regionCode) {
                            inRegion = true;
                            assertThat(construct).as("%s in %s", function, TextReport.stacks(stacks)).isPresent();
                            assertThat(construct.get().kind()).isEqualTo(ParallelStacks.ConstructKind.PARALLEL);
                        } else if (function.startsWith(".omp_task_entry.")) {
                            tasks++;
                            assertThat(construct).as("%s in %s", function, TextReport.stacks(stacks)).isPresent();
                            assertThat(construct.get().kind()).isEqualTo(ParallelStacks.ConstructKind.TASK);
                        } else {
                            continue;
                        }
                        assertThat(gdbFrame).as(function).isNotNull();
                        assertThat(construct.get().shortSource()).as(function)
                                .contains(gdbFrame.file().substring(gdbFrame.file().lastIndexOf('/') + 1) + ":" + gdbFrame.line());
                        // named as the region list names the construct's code (C++ demangled), else as gdb does
                        String named = regionCode && dev.jompd.core.target.Demangler.isMangled(function)
                                ? construct.get().code().displayName() : function;
                        assertThat(TextReport.stacks(stacks)).contains(construct.get().kind().words() + " at "
                                + construct.get().shortSource().get() + " (" + named);
                    }
                    assertThat(inRegion).as("%s: %s", stack.thread().name(), TextReport.stacks(stacks)).isTrue();
                }
                if (run.fixture() == Fixture.TASKS) {
                    assertThat(tasks).as(TextReport.stacks(stacks)).isGreaterThanOrEqualTo(3); // A, B and C on thread 0
                } else if (run.fixture() == Fixture.CXX_TASKS) {
                    assertThat(tasks).as(TextReport.stacks(stacks)).isEqualTo(1);
                }
                return null;
            });
        }
    }

    /**
     * A straggler stopped at its call of {@code straggle} and the rest of its team at the barrier on the next
     * lines, all in the region's one function: each thread's path through the merged tree, read off the
     * nodes it passes (the program's frames, outermost first, function and line), is gdb's backtrace of
     * that thread — the straggler's line is its own, not the barrier's it was merged into. C and Fortran.
     */
    @Test
    void eachThreadsPathThroughTheMergedTreeIsItsOwnBacktrace() {
        for (FixtureRun run : List.of(FixtureRun.of(Fixture.BARRIER_STRAGGLER), FixtureRun.of(Fixture.HANG_FORTRAN))) {
            StoppedFixture fixture = Fixtures.core(run);
            Facts facts = fixture.facts();
            Map<Long, List<GdbProbe.Frame>> gdb = GdbProbe.onCore(fixture.executable(), fixture.core()).backtraces();
            String source = run.fixture().source();
            withStacks(fixture, stacks -> {
                String text = TextReport.stacks(stacks);
                List<String> straggler = null;
                for (Facts.ThreadFacts thread : facts.threads()) {
                    long lwp = thread.lwp();
                    List<String> merged = new ArrayList<>();
                    List<Node> level = stacks.roots();
                    while (!level.isEmpty()) {
                        Node through = level.stream().filter(n -> n.threads().stream()
                                .anyMatch(t -> t.lwp().getAsLong() == lwp)).findFirst().orElse(null);
                        if (through == null) {
                            break;
                        }
                        Step step = through.step();
                        if (!step.runtime() && step.source().filter(f -> f.startsWith(source + ":")).isPresent()) {
                            merged.add(step.function() + " " + step.source().orElse("?"));
                        }
                        level = through.children();
                    }
                    List<String> truth = new ArrayList<>();
                    for (GdbProbe.Frame frame : gdb.get(lwp).reversed()) {
                        if (frame.frameFile().endsWith("/" + source) || frame.frameFile().equals(source)) {
                            truth.add(frame.function() + " " + frame.frameSource());
                        }
                    }
                    assertThat(merged).as("thread %s (LWP %d) in\n%s", thread.find("role").orElse("?"), lwp, text)
                            .isEqualTo(truth);
                    if ("straggler".equals(thread.find("role").orElse(""))) {
                        straggler = merged;
                        // the line the program recorded for where it is stuck
                        assertThat(merged.getLast()).endsWith(":" + thread.get("wait_line"));
                    }
                }
                assertThat(straggler).as(text).isNotNull();
                return null;
            });
        }
    }

    /**
     * C++ names: a region in {@code sim::Grid<double>::relax()}, its threads in a lambda of that function. Each
     * thread's path through the merged tree, the program's frames outside the region's own code, is gdb's
     * backtrace with gdb's names — the lambda's frame {@code sim::Grid<double>::relax()::{lambda(int)#1}::operator()(int) const}
     * (was {@code {unnamed}::operator()}); the region's frames read as the region list names its code
     * ({@code sim::Grid<double>::relax() [clone .omp_outlined]}, as gdb's {@code demangle} spells the symbol),
     * not mangled.
     */
    @Test
    void cxxFramesHaveGdbsNamesAndRegionFramesTheRegionListsName() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.CXX_NAMES));
        Facts facts = fixture.facts();
        Map<Long, List<GdbProbe.Frame>> gdb = GdbProbe.onCore(fixture.executable(), fixture.core()).backtraces();
        withStacks(fixture, stacks -> {
            String text = TextReport.stacks(stacks);
            OpenMpPicture.ParallelRegion region = stacks.picture().regions().stream()
                    .filter(r -> r.function().isPresent()).findFirst().orElseThrow();
            String regionName = region.function().get().displayName();
            assertThat(regionName).isEqualTo(demangledByGdb(fixture, region.function().get().symbol().orElseThrow()));
            for (Facts.ThreadFacts thread : facts.threads()) {
                List<String> merged = new ArrayList<>();
                List<String> constructs = new ArrayList<>();
                List<Node> level = stacks.roots();
                while (!level.isEmpty()) {
                    Node through = level.stream().filter(n -> n.threads().stream()
                            .anyMatch(t -> t.lwp().getAsLong() == thread.lwp())).findFirst().orElse(null);
                    if (through == null) {
                        break;
                    }
                    Step step = through.step();
                    if (step.construct().isPresent()) {
                        constructs.add(step.function());
                    } else if (!step.runtime() && step.source().filter(f -> f.startsWith("cxx_names.cpp:")).isPresent()) {
                        merged.add(step.function() + " " + step.source().get());
                    }
                    level = through.children();
                }
                List<String> truth = new ArrayList<>();
                for (GdbProbe.Frame frame : gdb.get(thread.lwp()).reversed()) {
                    if (frame.frameFile().endsWith("cxx_names.cpp") && !frame.function().contains("omp_outlined")) {
                        truth.add(frame.function() + " " + frame.frameSource());
                    }
                }
                assertThat(merged).as("thread %d in\n%s", thread.threadNum(), text).isEqualTo(truth);
                assertThat(constructs).as(text).containsExactly(regionName,
                        regionName.replace("[clone .omp_outlined]", "[clone .omp_outlined_debug__]"));
            }
            return null;
        });
    }

    /**
     * The same program built without debug information: each of the program's frames is named by its symbol
     * alone, and each step of the program's code on each thread's path reads as gdb's backtrace names that frame
     * (C++ demangled in full: {@code int sim::wait_at_gate[abi:fx]<8u>(char const*)}), the region's frames too,
     * where that is also the region list's name of its code.
     */
    @Test
    void cxxFramesWithoutDebugInformationHaveGdbsNames() {
        FixtureRun run = FixtureRun.of(Fixture.CXX_NAMES);
        StoppedFixture fixture = Fixtures.makeCore(run, dev.jompd.testkit.FixtureBuilder.executable(run.fixture(),
                run.runtimeVersion(), dev.jompd.testkit.FixtureBuilder.Optimization.NO_DEBUG_INFO),
                Fixtures.workDirectory("cxx-names-no-debug-info-stacks"));
        Facts facts = fixture.facts();
        Map<Long, List<GdbProbe.Frame>> gdb = GdbProbe.onCore(fixture.executable(), fixture.core()).backtraces();
        String program = fixture.executable().getFileName().toString();
        withStacks(fixture, stacks -> {
            String text = TextReport.stacks(stacks);
            String regionName = stacks.picture().regions().stream().flatMap(r -> r.function().stream()).findFirst()
                    .orElseThrow().displayName();
            for (Facts.ThreadFacts thread : facts.threads()) {
                ThreadStack stack = stacks.stacks().stream()
                        .filter(s -> s.thread().lwp().getAsLong() == thread.lwp()).findFirst().orElseThrow();
                List<GdbProbe.Frame> truth = gdb.get(thread.lwp());
                List<String> ours = new ArrayList<>();
                List<String> gdbs = new ArrayList<>();
                for (Step step : stack.steps()) {
                    if (step.runtime() || !step.module().equals(Optional.of(program)) || step.frames().isEmpty()
                            || step.frames().get().innermost() >= truth.size()) {
                        continue; // gdb's backtrace ends at main, before the program's _start
                    }
                    ours.add(step.function());
                    gdbs.add(truth.get(step.frames().get().innermost()).function());
                    if (step.construct().isPresent()) {
                        assertThat(step.function()).as(text).isEqualTo(regionName);
                    }
                }
                assertThat(ours).as("thread %d in\n%s", thread.threadNum(), text).isNotEmpty().isEqualTo(gdbs);
            }
            return null;
        });
    }

    /** gdb's own demangling of a symbol ({@code demangle} command). */
    private static String demangledByGdb(StoppedFixture fixture, String symbol) {
        try {
            List<String> lines = dev.jompd.testkit.Commands.run(List.of("gdb", "-batch", "-nx", "-ex", "demangle " + symbol,
                    fixture.executable().toString()), Map.of(), null, java.time.Duration.ofMinutes(1)).output().lines()
                    .filter(l -> !l.isBlank()).toList();
            return lines.getLast().strip();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** On every tested runtime: the reading of libomp's frames (ThreadWait.runtimeRun) holds for each one's function names. */
    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void runtimeFramesAreFoldedToWhatTheThreadWaitsFor(int version) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.WAITS).onRuntime(version));
        Facts facts = fixture.facts();
        withStacks(fixture, stacks -> {
            List<String> meanings = new ArrayList<>();
            for (Facts.ThreadFacts thread : facts.threads()) {
                String state = thread.find("omp_state").orElse("");
                ThreadStack stack = stacks.stacks().stream()
                        .filter(s -> s.thread().lwp().getAsLong() == thread.lwp()).findFirst().orElseThrow();
                String runtime = String.join(" | ", stack.steps().stream().filter(Step::runtime).map(Step::function).toList());
                meanings.add(runtime);
                // each waiting role's folded runtime step is its construct, in the diagnosis's words
                String expected = switch (thread.role()) {
                    case "barrier" -> "libomp: waiting at the explicit barrier (";
                    case "lock" -> "libomp: waiting for a lock (";
                    case "critical" -> "libomp: waiting to enter a critical section (";
                    case "ordered" -> "libomp: waiting to enter an ordered region (";
                    case "taskwait" -> "libomp: waiting at a taskwait (";
                    default -> null;
                };
                if (expected != null) {
                    assertThat(runtime.substring(runtime.lastIndexOf(" | ") + 3))
                            .as("%s (%s): %s", thread, state, TextReport.stacks(stacks)).startsWith(expected);
                }
            }
            return null;
        });
    }

    @Test
    void jsonOfTheStacksValidatesAgainstTheSchema() throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3"));
        String json;
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core());
             Symbolizer symbols = new Symbolizer(core); CodeNames names = new CodeNames(symbols);
             DebugInfoCache debugInfo = new DebugInfoCache(); Unwinder unwinder = new Unwinder(core, debugInfo)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            OpenMpPicture picture = OpenMpPicture.take(process, new TargetDescription("core",
                    fixture.core().toString(), core.name(), process.layout().runtimeModule()), names);
            json = JsonReport.render(picture, java.util.Optional.of(ParallelStacks.of(picture, core, unwinder)));
        }
        var document = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
        assertThat(OpenMpPictureIT.schema().validate(document)).isEmpty();
        assertThat(document.get("stacks").get("threads")).hasSize(fixture.facts().threadCount());
    }
}
