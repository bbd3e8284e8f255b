package dev.jompd.report;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.Diagnosis.Involved;
import dev.jompd.report.Diagnosis.Role;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.SourceLines;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hang fixtures' diagnoses against the truth each program recorded about itself (FIXTURES.md, "Hang
 * fixtures"): the threads (LWP and OpenMP thread number from the facts) and the source lines ({@code __LINE__}
 * of where each is blocked), on cores with OMP_DEBUG=enabled (OMPD states) and without it (then the stacks
 * are the evidence), and one live run through ptrace.
 */
class HangDiagnosisIT {
    private static final String NO_DEBUG = "disabled";

    private static List<Finding> diagnose(FixtureRun run) {
        return DiagnosisIT.diagnose(Fixtures.core(run));
    }

    private static FixtureRun run(Fixture fixture, boolean ompDebug, String... arguments) {
        FixtureRun run = FixtureRun.of(fixture, arguments);
        return ompDebug ? run : run.withEnvironment("OMP_DEBUG", NO_DEBUG);
    }

    private static Finding only(List<Finding> findings, FindingKind kind, String containing) {
        List<Finding> matching = findings.stream().filter(f -> f.kind() == kind && f.summary().contains(containing))
                .toList();
        assertThat(matching).as(TextReport.diagnosis(findings)).hasSize(1);
        return matching.getFirst();
    }

    /** The findings' kinds, in order: a second, wrong finding beside the right one fails. */
    private static void assertKinds(List<Finding> findings, FindingKind... kinds) {
        assertThat(findings.stream().map(Finding::kind).toList()).as(TextReport.diagnosis(findings))
                .containsExactly(kinds);
    }

    /** Exactly these threads (by LWP) are named by the finding: none missing, none more. */
    private static void assertInvolvedExactly(Finding finding, List<Facts.ThreadFacts> threads) {
        assertThat(finding.threads().stream().map(t -> t.thread().lwp().orElse(-1)).toList()).as(finding.summary())
                .containsExactlyInAnyOrderElementsOf(threads.stream().map(Facts.ThreadFacts::lwp).toList());
    }

    /** {@code file.c:N} as a whole place in a sentence: {@code file.c:4} is not found in {@code file.c:45}. */
    static void assertNamesPlace(String sentence, String place) {
        assertThat(sentence).containsPattern(java.util.regex.Pattern.quote(place) + "(?![0-9])");
    }

    private static Involved involved(Finding finding, Facts.ThreadFacts thread) {
        return finding.threads().stream().filter(t -> t.thread().lwp().isPresent()
                && t.thread().lwp().getAsLong() == thread.lwp()).findFirst()
                .orElseThrow(() -> new AssertionError("the finding names no thread of LWP " + thread.lwp() + ": "
                        + finding));
    }

    /** The facts' line, after checking that the program's source has the expected statement there. */
    private static String line(Fixture fixture, Facts facts, String key, String statement) {
        long line = facts.number(key);
        String file = fixture.source();
        try {
            assertThat(java.nio.file.Files.readAllLines(SourceLines.source(fixture, file)).get((int) line - 1))
                    .as(key + " is the line of " + statement).contains(statement);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return file + ":" + line;
    }

    private static void assertStraggler(Fixture fixture, Facts facts, List<Finding> findings, String barrierLine,
                                        boolean ompDebug) {
        String text = TextReport.diagnosis(findings);
        Facts.ThreadFacts straggler = facts.thread((int) facts.number("hang.straggler"));
        Finding barrier = only(findings, FindingKind.BARRIER, "thread " + straggler.threadNum() + " has not reached it");
        int teamSize = straggler.teamSize();
        boolean implicit = facts.get("hang.barrier").equals("implicit");
        // the construct by name, and the barrier's own line as the finding's place (never a line that merely begins so)
        // gfortran's barriers enter libomp through GOMP_barrier with libomp's own ident: explicit or a single's, untold
        String explicit = fixture == Fixture.HANG_FORTRAN ? "a barrier (explicit, or a worksharing construct's implicit one) at "
                : "the explicit barrier at ";
        assertThat(barrier.summary()).as(text).contains((teamSize - 1) + " of " + teamSize + " threads wait at "
                + (implicit ? "the implicit barrier at the end of region " : explicit + barrierLine + " "));
        assertThat(barrier.place().orElseThrow()).as(text).endsWith("(" + barrierLine + ")");
        String stragglerLine = fixture.source() + ":" + straggler.number("wait_line");
        assertNamesPlace(barrier.summary(), stragglerLine);
        // the team's threads, each once: the waiters and the straggler
        assertInvolvedExactly(barrier, facts.threads().stream()
                .filter(t -> t.role().equals("barrier") || t.lwp() == straggler.lwp()).toList());
        Involved stuck = involved(barrier, straggler);
        assertThat(stuck.role()).isEqualTo(Role.NOT_AT_BARRIER);
        assertThat(stuck.source()).contains(stragglerLine);
        assertThat(stuck.function().orElseThrow()).contains(facts.get("hang.straggler.function"));
        for (Facts.ThreadFacts waiter : facts.threads()) {
            if (!waiter.role().equals("barrier")) {
                continue;
            }
            Involved there = involved(barrier, waiter);
            assertThat(there.role()).as(text).isEqualTo(Role.AT_BARRIER);
            assertThat(there.thread().threadNum()).isEqualTo(waiter.threadNum());
            assertThat(there.evidence()).as(text).startsWith(ompDebug ? "OMPD state wait_barrier" : "stack: ");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void barrierStragglerNamesTheWaitersTheBarrierLineAndWhereTheStragglerIs(boolean ompDebug) {
        FixtureRun run = run(Fixture.BARRIER_STRAGGLER, ompDebug);
        Facts facts = Fixtures.core(run).facts();
        List<Finding> findings = diagnose(run);
        assertKinds(findings, FindingKind.BARRIER);
        assertStraggler(Fixture.BARRIER_STRAGGLER, facts, findings,
                line(Fixture.BARRIER_STRAGGLER, facts, "hang.barrier.line", "#pragma omp barrier"), ompDebug);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void atTheImplicitBarrierTheRegionIsNamed(boolean ompDebug) {
        FixtureRun run = run(Fixture.BARRIER_STRAGGLER, ompDebug, "5", "1", "implicit");
        Facts facts = Fixtures.core(run).facts();
        List<Finding> findings = diagnose(run);
        assertKinds(findings, FindingKind.BARRIER);
        String region = line(Fixture.BARRIER_STRAGGLER, facts, "hang.barrier.line", "#pragma omp parallel");
        assertStraggler(Fixture.BARRIER_STRAGGLER, facts, findings, region, ompDebug);
        assertThat(TextReport.diagnosis(findings)).contains("the implicit barrier at the end of region r1");
    }

    /**
     * The classic hang: a barrier in a branch only some threads take. Threads 0..split-1 wait at the explicit
     * barrier, the others at the implicit one at the region's end; neither barrier can complete. The finding says
     * both barriers with exactly their threads (no "all N threads wait at" one barrier, as it once said), the
     * larger group first; every thread of the team is named once, at its own barrier.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"true,2", "false,2", "true,1"})
    void mismatchedBarriersAreNamedAsTwoBarriersWithTheirThreads(boolean ompDebug, int split) {
        FixtureRun run = run(Fixture.BARRIER_STRAGGLER, ompDebug, "4", Integer.toString(split), "mismatch");
        Facts facts = Fixtures.core(run).facts();
        List<Finding> findings = diagnose(run);
        String text = TextReport.diagnosis(findings);
        assertKinds(findings, FindingKind.BARRIER);
        String explicitLine = line(Fixture.BARRIER_STRAGGLER, facts, "hang.barrier.line", "#pragma omp barrier");
        String regionLine = line(Fixture.BARRIER_STRAGGLER, facts, "hang.region.line", "#pragma omp parallel");
        List<Facts.ThreadFacts> explicit = facts.threads().stream().filter(t -> t.role().equals("explicit")).toList();
        List<Facts.ThreadFacts> implicit = facts.threads().stream().filter(t -> t.role().equals("implicit")).toList();
        assertThat(explicit).hasSize(split);
        assertThat(implicit).hasSize(4 - split);
        String atExplicit = numbers(explicit) + " at the explicit barrier at " + explicitLine
                + " (in parallel region at " + regionLine + ")";
        String atImplicit = numbers(implicit) + " at the implicit barrier at the end of region r1"
                + " (mismatched_barriers.omp_outlined (" + regionLine + "))";
        Finding barrier = findings.getFirst();
        assertThat(barrier.summary()).as(text).isEqualTo("team r1 (level 1 region, team of 4): its threads wait at 2"
                + " different barriers, and a barrier completes only when every thread of the team reaches it: "
                + (explicit.size() >= implicit.size() ? atExplicit + "; " + atImplicit : atImplicit + "; " + atExplicit));
        assertInvolvedExactly(barrier, facts.threads());
        for (Facts.ThreadFacts thread : facts.threads()) {
            Involved named = involved(barrier, thread);
            assertThat(named.role()).as(text).isEqualTo(Role.AT_BARRIER);
            assertThat(named.subject().orElseThrow()).as(text).startsWith(thread.role().equals("explicit")
                    ? "the explicit barrier at " + explicitLine : "the implicit barrier at the end of region r1");
        }
    }

    /** {@code thread 0}, {@code threads 0 and 1}, {@code threads 1, 2 and 3}: as the diagnosis counts them. */
    private static String numbers(List<Facts.ThreadFacts> threads) {
        List<String> numbers = threads.stream().map(t -> (long) t.threadNum()).sorted().map(String::valueOf).toList();
        return numbers.size() == 1 ? "thread " + numbers.getFirst() : "threads "
                + String.join(", ", numbers.subList(0, numbers.size() - 1)) + " and " + numbers.getLast();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void fortranStragglerIsNamedInItsSubroutineAtF90Lines(boolean ompDebug) {
        FixtureRun run = run(Fixture.HANG_FORTRAN, ompDebug);
        Facts facts = Fixtures.core(run).facts();
        List<Finding> findings = diagnose(run);
        assertKinds(findings, FindingKind.BARRIER);
        assertStraggler(Fixture.HANG_FORTRAN, facts, findings,
                line(Fixture.HANG_FORTRAN, facts, "hang.barrier.line", "!$omp barrier"), ompDebug);
    }

    @ParameterizedTest
    @ValueSource(strings = {"taskwait", "taskgroup"})
    void taskwaitNamesTheWaitingTaskAndItsBlockedChildWithThreadAndLine(String construct) {
        for (boolean ompDebug : new boolean[] {true, false}) {
            FixtureRun run = run(Fixture.TASKWAIT_BLOCKED, ompDebug, "3", "3", construct);
            Facts facts = Fixtures.core(run).facts();
            List<Finding> findings = diagnose(run);
            String text = TextReport.diagnosis(findings);
            Facts.ThreadFacts waiter = facts.thread((int) facts.number("hang.waiter"));
            Facts.ThreadFacts runner = facts.thread((int) facts.number("hang.task.C1.thread"));
            String waitLine = "taskwait_blocked.c:" + facts.number("hang.wait_line");
            String childLine = "taskwait_blocked.c:" + facts.number("hang.task.C1.wait_line");

            Finding taskwait = only(findings, construct.equals("taskwait") ? FindingKind.TASKWAIT : FindingKind.TASKGROUP,
                    waitLine);
            assertKinds(findings, FindingKind.BARRIER,
                    construct.equals("taskwait") ? FindingKind.TASKWAIT : FindingKind.TASKGROUP);
            assertNamesPlace(taskwait.summary(), childLine);
            assertThat(taskwait.summary()).as(text)
                    .contains(construct.equals("taskwait") ? "at a taskwait" : "at the end of a taskgroup")
                    // libomp's count of unfinished children (of the group's tasks) less the one found running
                    .contains(facts.number("hang.children") + (construct.equals("taskwait") ? " unfinished child tasks: "
                            : " unfinished tasks of the taskgroup: "))
                    .contains("; " + facts.number("hang.children.not_started") + " more that no thread runs")
                    .doesNotContain("not known");
            assertThat(facts.number("hang.children.running")).isEqualTo(1); // C1: the one child the finding names
            assertThat(taskwait.threads().stream().filter(t -> t.role() == Role.RUNS_CHILD_TASK)).hasSize(1);
            assertThat(involved(taskwait, waiter).source()).contains(waitLine);
            Involved child = involved(taskwait, runner);
            assertThat(child.role()).isEqualTo(Role.RUNS_CHILD_TASK);
            assertThat(child.subject().orElseThrow()).startsWith("t");
            assertThat(child.source()).contains(childLine);
            assertThat(child.function()).contains("blocked_child");

            // the team's barrier waits for the thread at the taskwait; C1's thread reached it and runs C1 there
            Finding barrier = only(findings, FindingKind.BARRIER, "thread " + waiter.threadNum() + " has not reached it");
            assertNamesPlace(barrier.summary(), "taskwait_blocked.c:" + facts.number("hang.barrier.line"));
            assertNamesPlace(barrier.summary(), waitLine);
            assertThat(involved(barrier, runner).role()).isEqualTo(Role.RUNS_TASK_AT_BARRIER);
        }
    }

    /**
     * Thread 0 waits at a taskwait for C1, which runs on one barrier thread; C1's own child G runs on another.
     * The finding follows the chains of parents: C1 runs on its thread, and has its descendant G running on the
     * other, which C1 is not suspended on (it once said "is suspended on" that thread).
     */
    @Test
    void aChildWhoseDescendantRunsOnAnotherThreadIsNotSaidToBeSuspendedThere() {
        FixtureRun run = run(Fixture.TASKWAIT_BLOCKED, true, "3", "3", "taskwait", "grandchild");
        Facts facts = Fixtures.core(run).facts();
        List<Finding> findings = diagnose(run);
        String text = TextReport.diagnosis(findings);
        Facts.ThreadFacts c1Thread = facts.thread((int) facts.number("hang.task.C1.thread"));
        Facts.ThreadFacts gThread = facts.thread((int) facts.number("hang.task.G.thread"));
        assertThat(gThread.lwp()).isNotEqualTo(c1Thread.lwp());
        assertThat(gThread.role()).isEqualTo("grandchild");
        Finding taskwait = only(findings, FindingKind.TASKWAIT, "taskwait_blocked.c:" + facts.number("hang.wait_line"));
        String c1 = "runs on omp " + c1Thread.threadNum() + "/3 (LWP " + c1Thread.lwp() + "), in blocked_child "
                + "(taskwait_blocked.c:" + facts.number("hang.task.C1.wait_line") + ") and has its descendant t[0-9]+ "
                + "running on omp " + gThread.threadNum() + "/3 (LWP " + gThread.lwp() + "), in blocked_grandchild "
                + "(taskwait_blocked.c:" + facts.number("hang.task.G.wait_line") + "); ";
        assertThat(taskwait.summary()).as(text).containsPattern(java.util.regex.Pattern.quote(": ")
                + "explicit task t[0-9]+ [^;]*" + c1.replace("(", "\\(").replace(")", "\\)") + "2 more that no thread runs");
        assertThat(taskwait.summary()).as(text).doesNotContain("suspended on");
        // both threads are named as running a child of the waiting task: C1 itself, and through G
        assertThat(taskwait.threads().stream().filter(t -> t.role() == Role.RUNS_CHILD_TASK)
                .map(t -> t.thread().lwp().orElseThrow()).toList()).as(text)
                .containsExactlyInAnyOrder(c1Thread.lwp(), gThread.lwp());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void nestedHangNamesTheStuckInnerTeamAndWhyTheOuterTeamWaits(boolean ompDebug) {
        FixtureRun run = run(Fixture.NESTED_HANG, ompDebug);
        Facts facts = Fixtures.core(run).facts();
        List<Finding> findings = diagnose(run);
        String text = TextReport.diagnosis(findings);
        Facts.ThreadFacts straggler = facts.thread((int) facts.number("hang.straggler"));
        long stuckPath = facts.number("hang.stuck_team_path");
        Finding inner = only(findings, FindingKind.BARRIER, "team path " + stuckPath + "): ");
        assertKinds(findings, FindingKind.BARRIER, FindingKind.BARRIER);
        assertThat(inner.summary()).as(text).contains("thread " + straggler.threadNum() + " has not reached it");
        assertNamesPlace(inner.summary(), "nested_hang.c:" + facts.number("hang.inner_barrier.line"));
        assertNamesPlace(inner.summary(), "nested_hang.c:" + straggler.number("wait_line"));
        Finding outer = only(findings, FindingKind.BARRIER, "level 1 region");
        assertNamesPlace(outer.summary(), "nested_hang.c:" + facts.number("hang.outer_barrier.line"));
        assertThat(outer.summary()).as(text)
                .contains("thread " + stuckPath + " is the primary thread of nested team")
                .contains("team path " + stuckPath);
        // the outer finding names the stuck team's primary thread (k = 0 of the stuck team)
        assertThat(involved(outer, facts.thread(0)).role()).isEqualTo(Role.PRIMARY_OF_NESTED_TEAM);
    }

    /**
     * Under a teams construct the threads of two teams have the same numbers: the diagnosis names each thread with
     * its team ({@code omp team 1 · 0/3 (LWP …)}), as every door names it, so that two teams' threads never read
     * alike. Truth: each thread's team, number and LWP as the program recorded them (hang_constructs.c, a taskwait in
     * each of two teams: thread 0 waits for its child task, which another thread of its team runs at the barrier).
     */
    @Test
    void threadsOfATeamsLeagueAreNamedWithTheirTeam() {
        FixtureRun run = FixtureRun.of(Fixture.HANG_CONSTRUCTS, "taskwait", "teams");
        Facts facts = Fixtures.core(run).facts();
        List<Finding> findings = diagnose(run);
        String text = TextReport.diagnosis(findings);
        java.util.function.Function<Facts.ThreadFacts, String> name = t -> "omp team " + t.number("team_num") + " · "
                + t.threadNum() + "/" + t.teamSize() + " (LWP " + t.lwp() + ")";
        assertKinds(findings, FindingKind.BARRIER, FindingKind.BARRIER, FindingKind.TASKWAIT, FindingKind.TASKWAIT);
        for (long team = 0; team < 2; team++) {
            long t = team;
            List<Facts.ThreadFacts> members = facts.threads().stream().filter(f -> f.number("team_num") == t).toList();
            Facts.ThreadFacts waiter = members.stream().filter(f -> f.get("wait").equals("taskwait")).findFirst().orElseThrow();
            Facts.ThreadFacts runner = members.stream().filter(f -> f.role().equals("runs_task")).findFirst().orElseThrow();
            // the team's barrier finding: its evidence names each thread of the team once, by team, number and LWP
            Finding barrier = findings.stream().filter(f -> f.kind() == FindingKind.BARRIER && f.threads().stream()
                    .anyMatch(i -> i.thread().lwp().getAsLong() == waiter.lwp())).findFirst().orElseThrow();
            assertThat(barrier.evidence().stream().map(e -> e.substring(0, e.indexOf("): ") + 1)).toList()).as(text)
                    .containsExactlyInAnyOrderElementsOf(members.stream().map(name).toList());
            // the team's taskwait: its waiter, and the thread of its team that runs the child
            Finding taskwait = only(findings, FindingKind.TASKWAIT, name.apply(waiter) + ": ");
            assertThat(taskwait.summary()).as(text).startsWith(name.apply(waiter) + ": ");
            String runsOn = taskwait.summary().substring(taskwait.summary().indexOf(" runs on ") + " runs on ".length());
            assertThat(runsOn.substring(0, runsOn.indexOf(", in "))).as(text).isEqualTo(name.apply(runner));
        }
    }

    @Test
    void liveBarrierStragglerThroughPtrace() {
        try (LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.BARRIER_STRAGGLER));
             LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(live.pid());
             Symbolizer symbols = new Symbolizer(space); CodeNames names = new CodeNames(symbols);
             DebugInfoCache debugInfo = new DebugInfoCache(); Unwinder unwinder = new Unwinder(space, debugInfo)) {
            AddressSpaceHandle process = Ompd.processInitialize(space);
            OpenMpPicture picture = OpenMpPicture.take(process, new TargetDescription("pid",
                    Long.toString(live.pid()), space.name(), process.layout().runtimeModule()), names);
            ParallelStacks stacks = ParallelStacks.of(picture, space, unwinder);
            Facts facts = live.facts();
            assertStraggler(Fixture.BARRIER_STRAGGLER, facts, Diagnosis.of(picture, Optional.of(stacks)),
                    line(Fixture.BARRIER_STRAGGLER, facts, "hang.barrier.line", "#pragma omp barrier"), true);
        }
    }
}
