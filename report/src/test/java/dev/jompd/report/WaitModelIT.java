package dev.jompd.report;

import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.Diagnosis.Involved;
import dev.jompd.report.Diagnosis.Role;
import dev.jompd.report.ParallelStacks.ThreadStack;
import dev.jompd.report.ThreadWait.Kind;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wait model against the matrix of hangs (hang_constructs.c: each construct that can wait × where the waiter
 * is), each thread's truth recorded by the program itself: for every OpenMP thread of the process, the construct
 * it waits in and that construct's line; for a thread that runs a task at its wait, both waits. And the barrier
 * finding of each case team: exactly the threads that arrived (those running a task there included) and exactly
 * the others as not there. With and without OMP_DEBUG (the state, or the stack and libomp's ident alone).
 */
class WaitModelIT {
    private static final String SOURCE = "hang_constructs.c";

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("barrier", "construct", true), Arguments.of("for", "construct", false),
                Arguments.of("sections", "construct", true), Arguments.of("single", "construct", false),
                Arguments.of("parallel", "construct", true), Arguments.of("taskwait", "construct", false),
                Arguments.of("taskgroup", "construct", true), Arguments.of("ordered", "construct", false),
                Arguments.of("critical", "construct", true), Arguments.of("critical_named", "construct", false),
                Arguments.of("lock", "construct", true), Arguments.of("nest_lock", "construct", false),
                Arguments.of("taskwait", "task", true), Arguments.of("taskgroup", "task", false),
                Arguments.of("critical", "task", false), Arguments.of("lock", "task", true),
                Arguments.of("barrier", "nested", false), Arguments.of("single", "nested", true),
                Arguments.of("barrier", "teams", true), Arguments.of("single", "teams", false));
    }

    /** The model's kind for the facts' word of a wait. */
    private static Kind kindOf(String wait) {
        return switch (wait) {
            case "barrier" -> Kind.BARRIER;
            case "implicit_for" -> Kind.BARRIER_FOR;
            case "implicit_sections" -> Kind.BARRIER_SECTIONS;
            case "implicit_single" -> Kind.BARRIER_SINGLE;
            case "implicit_parallel" -> Kind.IMPLICIT_BARRIER;
            case "taskwait" -> Kind.TASKWAIT;
            case "taskgroup" -> Kind.TASKGROUP;
            case "ordered" -> Kind.ORDERED;
            case "critical" -> Kind.CRITICAL;
            case "lock", "nest_lock" -> Kind.LOCK;
            case "none" -> Kind.NONE;
            default -> throw new IllegalArgumentException("facts name no wait " + wait);
        };
    }

    /** The line the wait's call is at: the construct's line, or where the compiler places its call. */
    private static String line(Facts.ThreadFacts thread, String prefix) {
        return SOURCE + ":" + thread.find(prefix + "_call_line").orElse(thread.get(prefix + "_line"));
    }

    /** On every tested runtime (their stacks and states differ): a barrier's construct, a task at a barrier, ordered. */
    static Stream<Arguments> runtimeCases() {
        return dev.jompd.testkit.SupportedRuntimes.tested().flatMap(version -> Stream.of(
                Arguments.of(version, "single", "construct", version % 2 == 0),
                Arguments.of(version, "taskwait", "task", version % 2 != 0),
                Arguments.of(version, "ordered", "construct", true)));
    }

    @ParameterizedTest(name = "libomp {0}: {1} in {2}, OMP_DEBUG {3}")
    @MethodSource("runtimeCases")
    void onEveryRuntimeTheWaitsAreTheirConstructs(int version, String construct, String where, boolean ompDebug) {
        check(FixtureRun.of(Fixture.HANG_CONSTRUCTS, construct, where).onRuntime(version), ompDebug);
    }

    /**
     * gcc's code on libomp (through its GOMP entries, as `jompd run` runs it): a barrier whose construct gcc does not
     * pass to libomp (GOMP_barrier serves the explicit barrier and a single's) is said to be untold, never guessed.
     */
    @ParameterizedTest(name = "gcc: {0} in {1}")
    @MethodSource("gccCases")
    void gccProgramsWaitInTheirConstructs(String construct, String where) {
        check(FixtureRun.of(Fixture.HANG_CONSTRUCTS_GCC, construct, where).withEnvironment("LD_LIBRARY_PATH",
                dev.jompd.testkit.Runtimes.gompAliasDirectory(dev.jompd.testkit.Runtimes.DEFAULT_VERSION).toString()), true);
    }

    static Stream<Arguments> gccCases() {
        return Stream.of(Arguments.of("barrier", "construct"), Arguments.of("for", "construct"),
                Arguments.of("sections", "construct"), Arguments.of("single", "construct"),
                Arguments.of("taskwait", "construct"), Arguments.of("ordered", "construct"),
                Arguments.of("critical", "construct"), Arguments.of("lock", "construct"));
    }

    @ParameterizedTest(name = "{0} in {1}, OMP_DEBUG {2}")
    @MethodSource("cases")
    void everyThreadsWaitIsItsConstructAtItsLine(String construct, String where, boolean ompDebug) {
        check(FixtureRun.of(Fixture.HANG_CONSTRUCTS, construct, where), ompDebug);
    }

    /** A live process through ptrace: the same answers as from its core. */
    @ParameterizedTest(name = "live: {0} in {1}")
    @org.junit.jupiter.params.provider.CsvSource({"single, construct", "taskwait, task", "ordered, construct"})
    void aLiveProcessWaitsInItsConstructs(String construct, String where) {
        try (dev.jompd.testkit.LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.HANG_CONSTRUCTS, construct, where));
             dev.jompd.core.target.live.LiveProcessAddressSpace space =
                     dev.jompd.core.target.live.LiveProcessAddressSpace.attach(live.pid());
             dev.jompd.core.target.Symbolizer symbols = new dev.jompd.core.target.Symbolizer(space);
             CodeNames names = new CodeNames(symbols);
             dev.jompd.core.unwind.DebugInfoCache debugInfo = new dev.jompd.core.unwind.DebugInfoCache();
             dev.jompd.core.unwind.Unwinder unwinder = new dev.jompd.core.unwind.Unwinder(space, debugInfo)) {
            dev.jompd.core.ompd.AddressSpaceHandle process = dev.jompd.core.ompd.Ompd.processInitialize(space);
            OpenMpPicture picture = OpenMpPicture.take(process, new TargetDescription("pid",
                    Long.toString(live.pid()), space.name(), process.layout().runtimeModule()), names);
            check(live.facts(), ParallelStacks.of(picture, space, unwinder), false, Map.of());
        }
    }

    private static void check(FixtureRun run, boolean ompDebug) {
        boolean gcc = run.fixture() == Fixture.HANG_CONSTRUCTS_GCC;
        StoppedFixture fixture = Fixtures.core(ompDebug ? run : run.withEnvironment("OMP_DEBUG", "disabled"));
        Map<Long, dev.jompd.testkit.GdbWaitTruth.ThreadStack> gdbStacks = gcc
                ? dev.jompd.testkit.GdbWaitTruth.ofCore(fixture.executable(), fixture.core()) : Map.of();
        ParallelStacksIT.withStacks(fixture, stacks -> {
            check(fixture.facts(), stacks, gcc, gdbStacks);
            return null;
        });
    }

    private static void check(Facts facts, ParallelStacks stacks, boolean gcc,
                              Map<Long, dev.jompd.testkit.GdbWaitTruth.ThreadStack> gdbStacks) {
        {
            Map<Long, ThreadStack> byLwp = stacks.stacks().stream().collect(Collectors.toMap(
                    s -> s.thread().lwp().orElseThrow(), s -> s, (a, b) -> a, LinkedHashMap::new));
            List<Finding> findings = Diagnosis.of(stacks.picture(), Optional.of(stacks));
            String text = TextReport.diagnosis(findings) + "\n" + TextReport.stacks(stacks);
            SoftAssertions soft = new SoftAssertions();
            for (Facts.ThreadFacts truth : facts.threads()) {
                ThreadStack stack = byLwp.get(truth.lwp());
                soft.assertThat(stack).as(truth + ": a stack").isNotNull();
                if (stack == null) {
                    continue;
                }
                ThreadWait wait = stack.waiting();
                String who = truth + " " + truth.role() + ": " + wait.describe() + " [" + wait.evidence() + "]\n" + text;
                if (truth.role().equals("runs_task") && gcc) {
                    soft.assertThat(wait.runsTaskAtBarrier()).as(who).isTrue();
                    soft.assertThat(wait.kind()).as(who).isEqualTo(kindOf(truth.get("task_wait")));
                    continue;
                }
                if (truth.role().equals("runs_task")) {
                    // arrived at its own wait (a barrier), running a task there that waits in its own construct
                    Optional<ThreadWait.Scheduling> outer = wait.under().stream().findFirst();
                    soft.assertThat(outer.map(ThreadWait.Scheduling::kind)).as(who).contains(kindOf(truth.get("wait")));
                    soft.assertThat(outer.flatMap(ThreadWait.Scheduling::at).flatMap(ThreadWait.Place::source))
                            .as(who).contains(line(truth, "wait"));
                    Kind inner = kindOf(truth.get("task_wait"));
                    soft.assertThat(wait.kind()).as(who).isEqualTo(inner);
                    soft.assertThat((inner == Kind.NONE ? wait.innermost() : wait.at()).flatMap(ThreadWait.Place::source))
                            .as(who).contains(line(truth, "task_wait"));
                    continue;
                }
                Kind expected = kindOf(truth.get("wait"));
                if (gcc && (expected == Kind.BARRIER || expected == Kind.BARRIER_SINGLE || expected == Kind.BARRIER_FOR)) {
                    // gcc ends a static loop and a single with GOMP_barrier (libomp's own ident): untold; it ends
                    // sections with GOMP_sections_end, which names them
                    expected = Kind.BARRIER_UNTOLD;
                }
                if (gcc) {
                    // gcc places a construct's call at lines of its own choosing: gdb's caller line is the truth
                    soft.assertThat(wait.kind()).as(who).isEqualTo(expected);
                    dev.jompd.testkit.GdbWaitTruth.ThreadStack gdb = gdbStacks.get(truth.lwp());
                    if (expected != Kind.NONE && expected != Kind.IMPLICIT_BARRIER && gdb != null) {
                        soft.assertThat(wait.at().flatMap(ThreadWait.Place::source)).as(who + "\n" + gdb)
                                .isEqualTo(gdb.runtimeRuns().getFirst().caller().map(f -> java.nio.file.Path.of(f.file())
                                        .getFileName() + ":" + f.line()));
                    }
                    continue;
                }
                soft.assertThat(wait.kind()).as(who).isEqualTo(expected);
                soft.assertThat(wait.under()).as(who).isEmpty();
                if (expected == Kind.NONE) {
                    soft.assertThat(wait.innermost().flatMap(ThreadWait.Place::source)).as(who).contains(line(truth, "wait"));
                } else if (expected != Kind.IMPLICIT_BARRIER) {
                    // (a worker at the end of a region has no user caller: libomp's thread start is below it)
                    soft.assertThat(wait.at().flatMap(ThreadWait.Place::source)).as(who).contains(line(truth, "wait"));
                }
            }
            assertBarrierFindings(soft, facts, findings, text);
            soft.assertAll();
        }
    }

    /**
     * Each barrier finding names exactly its team's threads: those arrived (a thread running a task at the barrier
     * included) and those not there; a team whose threads all reached the barrier or whose threads wait elsewhere
     * (a lock) has no thread named as not there that the facts say arrived.
     */
    private static void assertBarrierFindings(SoftAssertions soft, Facts facts, List<Finding> findings, String text) {
        Set<Long> arrived = new HashSet<>();
        for (Facts.ThreadFacts truth : facts.threads()) {
            boolean atBarrier = truth.role().equals("runs_task") || kindOf(truth.get("wait")).atBarrier();
            if (atBarrier) {
                arrived.add(truth.lwp());
            }
        }
        Set<Long> namedArrived = new HashSet<>();
        Set<Long> namedMissing = new HashSet<>();
        for (Finding finding : findings) {
            if (finding.kind() != FindingKind.BARRIER) {
                continue;
            }
            for (Involved involved : finding.threads()) {
                long lwp = involved.thread().lwp().orElseThrow();
                if (involved.role() == Role.AT_BARRIER || involved.role() == Role.RUNS_TASK_AT_BARRIER) {
                    namedArrived.add(lwp);
                } else if (involved.role() == Role.NOT_AT_BARRIER) {
                    namedMissing.add(lwp);
                }
            }
        }
        soft.assertThat(namedArrived).as("threads at a barrier\n" + text).isEqualTo(arrived);
        Set<Long> wronglyMissing = new HashSet<>(namedMissing);
        wronglyMissing.retainAll(arrived);
        soft.assertThat(wronglyMissing).as("threads named as not at their team's barrier\n" + text).isEmpty();
    }
}
