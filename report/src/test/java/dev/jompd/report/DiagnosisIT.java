package dev.jompd.report;

import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

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

    private static Facts.ThreadFacts threadIn(Facts facts, String statePrefix) {
        return facts.threads().stream().filter(t -> t.find("omp_state").orElse("").startsWith(statePrefix))
                .findFirst().orElseThrow();
    }

    @Test
    void theBarrierTeamNamesWhoIsThereAndWhoIsNotFromStates() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.WAITS));
        Facts facts = fixture.facts();
        List<Finding> findings = diagnose(fixture);
        String text = TextReport.diagnosis(findings);
        Facts.ThreadFacts atBarrier = threadIn(facts, "wait_barrier");
        Finding barrier = findings.stream().filter(f -> f.summary().contains("wait at a barrier")).findFirst().orElseThrow();
        assertThat(barrier.summary()).as(text).contains("1 of " + facts.threadCount() + " threads");
        assertThat(barrier.evidence()).as(text).anyMatch(e -> e.contains("/" + facts.threadCount() + " ")
                && e.startsWith("omp " + atBarrier.threadNum() + "/") && e.contains(": at the barrier"));
        // the lock and the critical section: one finding each, naming the waiting thread and the source line
        assertThat(text).contains("waits for lock `L` (queuing lock #").contains("waits to enter critical(jompd_crit) at waits.c:");
        long lockWaiters = facts.threads().stream().filter(t -> t.find("omp_state").orElse("").equals("wait_lock")).count();
        assertThat(lockWaiters).isEqualTo(2);
        assertThat(text).contains("waits.c:");
        // thread 0 holds both, but libomp's default locks keep no owner without KMP_CONSISTENCY_CHECK: said, not guessed
        assertThat(text).contains("its holder is not known: it is held, but libomp does not record its owner")
                .contains("KMP_CONSISTENCY_CHECK=all").doesNotContain("head_id 0").doesNotContain("held (head_id");
    }

    @Test
    void withoutOmpDebugTheStacksAreTheEvidence() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.WAITS).withEnvironment("OMP_DEBUG", "disabled"));
        String text = TextReport.diagnosis(diagnose(fixture));
        assertThat(text).contains("wait at a barrier").contains("(stack: libomp: waiting at a barrier")
                .contains("stack: libomp: waiting at a taskwait");
        assertThat(text).doesNotContain("OMPD state");
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
        assertThat(findings.stream().filter(f -> f.kind() == Diagnosis.FindingKind.DEADLOCK)).as(text).hasSize(1);
        assertThat(text).contains("deadlock: ");
        for (long lwp : locking) {
            assertThat(text).contains("LWP " + lwp);
        }
    }
}
