package dev.jompd.report;

import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.report.Diagnosis.Involved;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import dev.jompd.report.Diagnosis.Role;
import dev.jompd.report.Diagnosis.FindingKind;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The diagnosis of programs that stop in known waits, against what each program recorded about itself:
 * the waits program (one thread at the barrier, the others in a lock, a critical section, an ordered
 * region, a taskwait), with and without OMP_DEBUG (then the evidence is the stack), and the lock-order
 * deadlock under the jompd-recorder.
 */
class DiagnosisIT {
    static List<Finding> diagnose(StoppedFixture fixture) {
        return ParallelStacksIT.withStacks(fixture, stacks -> Diagnosis.of(pictureOf(stacks), Optional.of(stacks)));
    }

    private static OpenMpPicture pictureOf(ParallelStacks stacks) {
        return stacks.picture();
    }


    /** The thread's innermost frame in waits.c, as gdb unwinds it: where the program waits. */
    private static GdbProbe.Frame userFrame(java.util.Map<Long, List<GdbProbe.Frame>> stacks, Facts.ThreadFacts thread) {
        return stacks.get(thread.lwp()).stream().filter(f -> f.frameFile().endsWith("/waits.c")).findFirst().orElseThrow();
    }

    /** The construct each role of waits.c waits in. */
    private static ThreadWait.Kind kindOfRole(String role) {
        return switch (role) {
            case "ordered" -> ThreadWait.Kind.ORDERED;
            case "lock" -> ThreadWait.Kind.LOCK;
            case "critical" -> ThreadWait.Kind.CRITICAL;
            case "taskwait" -> ThreadWait.Kind.TASKWAIT;
            case "barrier" -> ThreadWait.Kind.BARRIER;
            default -> ThreadWait.Kind.NONE;
        };
    }

    /**
     * Every thread of waits.c (ordered, lock, critical, taskwait, an explicit barrier, the marker, a task) waits in
     * its role's construct, with OMP_DEBUG (the OMPD state is the evidence) and without (the stack and libomp's
     * ident): the whole set of (LWP, construct) against the facts; the barrier finding names exactly the barrier's
     * thread as arrived and every other thread of the team as not there.
     */
    @ParameterizedTest(name = "OMP_DEBUG {0}")
    @ValueSource(booleans = {true, false})
    void everyThreadWaitsInItsRolesConstruct(boolean ompDebug) {
        FixtureRun run = FixtureRun.of(Fixture.WAITS);
        StoppedFixture fixture = Fixtures.core(ompDebug ? run : run.withEnvironment("OMP_DEBUG", "disabled"));
        Facts facts = fixture.facts();
        ParallelStacksIT.withStacks(fixture, stacks -> {
            List<Finding> findings = Diagnosis.of(stacks.picture(), Optional.of(stacks));
            String text = TextReport.diagnosis(findings);
            java.util.Map<Long, ThreadWait.Kind> expected = new java.util.TreeMap<>();
            java.util.Map<Long, ThreadWait.Kind> actual = new java.util.TreeMap<>();
            for (Facts.ThreadFacts thread : facts.threads()) {
                if (thread.role().equals("task")) {
                    // runs task K in user code, taken at a taskyield of its implicit task: a scheduling point, no wait
                    ParallelStacks.ThreadStack stack = stacks.stacks().stream().filter(s -> s.thread().lwp().getAsLong()
                            == thread.lwp()).findFirst().orElseThrow();
                    assertThat(stack.waiting().kind()).as(text).isEqualTo(ThreadWait.Kind.NONE);
                    assertThat(stack.waiting().under()).as(text).extracting(ThreadWait.Scheduling::kind)
                            .containsExactly(ThreadWait.Kind.TASKYIELD);
                    // the task by its construct and line, with OMP_DEBUG (libomp's task function) and without (clang's
                    // entry thunk on the stack, whose line is the pragma's): never the thunk's name
                    assertThat(stack.waiting().under().getFirst().task().map(ThreadWait.Place::inWords)).as(text)
                            .contains("task at waits.c:" + dev.jompd.testkit.SourceLines.lineOf(Fixture.WAITS, "waits.c",
                                    "#pragma omp task untied"));
                    continue;
                }
                expected.put(thread.lwp(), kindOfRole(thread.role()));
                ParallelStacks.ThreadStack stack = stacks.stacks().stream().filter(s -> s.thread().lwp().getAsLong()
                        == thread.lwp()).findFirst().orElseThrow();
                actual.put(thread.lwp(), stack.waiting().kind());
                // (libomp sets no wait state in a taskwait of an implicit task that has nothing to run: its stack tells)
                boolean stated = ompDebug && kindOfRole(thread.role()) != ThreadWait.Kind.NONE
                        && kindOfRole(thread.role()) != ThreadWait.Kind.TASKWAIT;
                assertThat(stack.waiting().evidence()).as(text).startsWith(stated ? "OMPD state " : "stack: ");
            }
            assertThat(actual).as(text).isEqualTo(expected);
            Finding barrier = findings.stream().filter(f -> f.kind() == FindingKind.BARRIER).collect(
                    java.util.stream.Collectors.collectingAndThen(java.util.stream.Collectors.toList(), list -> {
                        assertThat(list).as(text).hasSize(1);
                        return list.getFirst();
                    }));
            java.util.Set<Long> arrived = barrier.threads().stream().filter(t -> t.role() == Role.AT_BARRIER)
                    .map(t -> t.thread().lwp().getAsLong()).collect(java.util.stream.Collectors.toSet());
            java.util.Set<Long> missing = barrier.threads().stream().filter(t -> t.role() == Role.NOT_AT_BARRIER)
                    .map(t -> t.thread().lwp().getAsLong()).collect(java.util.stream.Collectors.toSet());
            java.util.Set<Long> barrierThreads = facts.threads().stream().filter(t -> t.role().equals("barrier"))
                    .map(Facts.ThreadFacts::lwp).collect(java.util.stream.Collectors.toSet());
            java.util.Set<Long> others = facts.threads().stream().filter(t -> !t.role().equals("barrier"))
                    .map(Facts.ThreadFacts::lwp).collect(java.util.stream.Collectors.toSet());
            assertThat(arrived).as(text).isEqualTo(barrierThreads);
            assertThat(missing).as(text).isEqualTo(others);
            // the barrier where gdb's backtrace of its thread has it in waits.c
            java.util.Map<Long, List<GdbProbe.Frame>> gdbStacks = fixture.gdb().backtraces();
            GdbProbe.Frame barrierAt = userFrame(gdbStacks, facts.threads().stream().filter(t -> t.role().equals("barrier"))
                    .findFirst().orElseThrow());
            Facts.ThreadFacts atBarrier = facts.threads().stream().filter(t -> t.role().equals("barrier")).findFirst().orElseThrow();
            assertThat(barrier.summary()).as(text).matches("team r\\d+ " + java.util.regex.Pattern.quote("(level " + atBarrier.level()
                    + " region, team of " + atBarrier.teamSize() + "): " + barrierThreads.size() + " of " + facts.threadCount()
                    + " threads wait at the explicit barrier at " + barrierAt.frameSource() + " (in " + barrierAt.function() + "); ")
                    + ".*");
            assertThat(barrier.place()).as(text).contains(barrierAt.function() + " (" + barrierAt.frameSource() + ")");
            // the lock and the critical section: one finding each, naming exactly the waiting thread, at gdb's line
            List<Finding> locks = findings.stream().filter(f -> f.kind() == FindingKind.LOCK).toList();
            assertThat(locks).as(text).hasSize(2);
            for (String role : List.of("lock", "critical")) {
                Facts.ThreadFacts waiter = facts.threads().stream().filter(t -> t.role().equals(role)).findFirst().orElseThrow();
                GdbProbe.Frame at = userFrame(gdbStacks, waiter);
                String what = role.equals("lock") ? "1 thread waits for lock `L` (queuing lock #"
                        : "1 thread waits to enter critical(jompd_crit) at waits.c:" + dev.jompd.testkit.SourceLines.lineOf(
                                Fixture.WAITS, "waits.c", "#pragma omp critical(jompd_crit)") + " (queuing lock #";
                List<Finding> about = locks.stream().filter(f -> f.summary().startsWith(what)).toList();
                assertThat(about).as("%s\n%s", what, text).hasSize(1);
                assertThat(about.getFirst().place()).as(text).contains(at.function() + " (" + at.frameSource() + ")");
                assertThat(about.getFirst().threads().stream().map(t -> t.thread().lwp().getAsLong() + " " + t.role() + " "
                        + t.source().orElse("?")).toList()).as(text)
                        .containsExactly(waiter.lwp() + " WAITS_FOR_LOCK " + at.frameSource());
            }
            // thread 0 holds both, but libomp's default locks keep no owner without KMP_CONSISTENCY_CHECK: said, not guessed
            assertThat(text).contains("its holder is not known: it is held, but libomp does not record its owner")
                    .contains("KMP_CONSISTENCY_CHECK=all").doesNotContain("held (head_id");
            return null;
        });
    }

    /**
     * Exactly one executing task per thread: waits.c's thread 6 runs task K, whose parent is thread 4's implicit task
     * (which runs on thread 4, at its taskwait): in thread 6's chain K is executing and its parent is executing on
     * thread 4 — the LWP the program recorded — never a second task executing on thread 6.
     */
    @Test
    void aTaskExecutingOnAnotherThreadSaysWhich() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.WAITS));
        Facts facts = fixture.facts();
        Facts.ThreadFacts runner = facts.threads().stream().filter(t -> t.role().equals("task")).findFirst().orElseThrow();
        Facts.ThreadFacts parent = facts.thread((int) runner.number("task_parent_thread"));
        ParallelStacksIT.withStacks(fixture, stacks -> {
            OpenMpPicture picture = stacks.picture();
            OpenMpPicture.OpenMpThread thread = picture.threads().stream()
                    .filter(t -> t.lwp().getAsLong() == runner.lwp()).findFirst().orElseThrow();
            List<OpenMpPicture.Task> chain = picture.chain(thread);
            List<String> statuses = chain.stream().map(t -> picture.statusWords(t, Optional.of(thread))).toList();
            assertThat(statuses).as(chain.toString()).hasSizeGreaterThanOrEqualTo(2);
            assertThat(statuses.getFirst()).isEqualTo("executing");
            assertThat(statuses.get(1)).isEqualTo("executing on omp " + parent.threadNum() + "/" + parent.teamSize()
                    + " (LWP " + parent.lwp() + ")");
            assertThat(statuses.stream().filter(w -> w.equals("executing"))).as(statuses.toString()).hasSize(1);
            return null;
        });
    }

    /**
     * lock_deadlock stall: every OpenMP thread waits for a simple lock (which records no owner), none runs: a possible
     * deadlock naming exactly the three threads the program recorded, never a proven one (no owner is known).
     */
    @Test
    void everyThreadWaitingForALockIsAPossibleDeadlock() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "stall"));
        Facts facts = fixture.facts();
        List<Finding> findings = diagnose(fixture);
        String text = TextReport.diagnosis(findings);
        assertThat(findings.stream().filter(f -> f.kind() == FindingKind.DEADLOCK)).as(text).isEmpty();
        List<Finding> possible = findings.stream().filter(f -> f.kind() == FindingKind.POSSIBLE_DEADLOCK).toList();
        assertThat(possible).as(text).hasSize(1);
        assertThat(possible.getFirst().threads().stream().map(t -> t.thread().lwp().getAsLong())
                .collect(java.util.stream.Collectors.toSet())).as(text)
                .isEqualTo(facts.threads().stream().map(Facts.ThreadFacts::lwp).collect(java.util.stream.Collectors.toSet()));
        assertThat(possible.getFirst().summary()).as(text).startsWith("possible deadlock: every OpenMP thread of the "
                + "process waits (3 of 3 for a lock or a critical section)");
        for (Involved involved : possible.getFirst().threads()) {
            Facts.ThreadFacts truth = facts.threads().stream().filter(t -> t.lwp() == involved.thread().lwp().getAsLong())
                    .findFirst().orElseThrow();
            assertThat(involved.source()).as(text).contains("lock_deadlock.c:" + truth.number("wait_line"));
        }
    }

    @Test
    void theRecorderNamesTheDeadlock() {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_DEADLOCK)));
        List<Long> locking = fixture.facts().threads().stream().filter(t -> t.find("holds").isPresent())
                .map(Facts.ThreadFacts::lwp).toList();
        List<Finding> findings = diagnose(fixture);
        String text = TextReport.diagnosis(findings);
        // the recorder's holders close the cycle in the wait-for graph, and its own search finds the same
        // cycle: one finding
        List<Finding> deadlocks = findings.stream().filter(f -> f.kind() == Diagnosis.FindingKind.DEADLOCK).toList();
        assertThat(deadlocks).as(text).hasSize(1);
        assertThat(deadlocks.getFirst().summary()).as(text).startsWith("deadlock: ");
        // the cycle's threads are exactly the program's lock holders, each once
        assertThat(deadlocks.getFirst().threads().stream().map(t -> t.thread().lwp().orElse(-1)).toList()).as(text)
                .containsExactlyInAnyOrderElementsOf(locking);
    }
}
