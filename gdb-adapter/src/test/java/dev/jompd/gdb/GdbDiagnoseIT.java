package dev.jompd.gdb;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ompd diagnose} in gdb on a hang fixture's core: the straggler and the barrier, from the facts. */
class GdbDiagnoseIT {
    @Test
    void diagnoseOnAHangCoreNamesTheStragglerAndTheBarrierLine(@TempDir Path directory) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.BARRIER_STRAGGLER));
        Facts facts = fixture.facts();
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("ompd diagnose"),
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory,
                Duration.ofMinutes(2));
        assertThat(output.exitCode()).as(output.text()).isZero();
        checkStragglerDiagnosis(output.section("ompd diagnose"), facts);
    }

    /** The barrier straggler's diagnosis, whole, against what the program recorded (the LLDB door's too). */
    static void checkStragglerDiagnosis(String diagnosis, Facts facts) {
        Facts.ThreadFacts straggler = facts.thread((int) facts.number("hang.straggler"));
        int size = straggler.teamSize();
        // the finding's headline: the count, the construct and its line, where the straggler is
        List<String> headlines = diagnosis.lines().filter(l -> l.strip().startsWith("- team ")).toList();
        assertThat(headlines).as(diagnosis).hasSize(1);
        assertThat(headlines.getFirst()).as(diagnosis).contains(": " + (size - 1) + " of " + size
                + " threads wait at the explicit barrier at barrier_straggler.c:" + facts.number("hang.barrier.line") + " (")
                .endsWith("; thread " + straggler.threadNum() + " has not reached it: in straggle (barrier_straggler.c:"
                        + straggler.number("wait_line") + ")");
        // each thread's line under it: exactly the recorded waiters at the barrier, the straggler not there
        java.util.Set<Long> atBarrier = new java.util.HashSet<>();
        java.util.Set<Long> notThere = new java.util.HashSet<>();
        java.util.regex.Pattern row = java.util.regex.Pattern.compile("^omp \\d+/\\d+ \\(LWP (\\d+)\\): (at the barrier|not there)");
        diagnosis.lines().map(String::strip).map(row::matcher).filter(java.util.regex.Matcher::find).forEach(m ->
                (m.group(2).equals("not there") ? notThere : atBarrier).add(Long.parseLong(m.group(1))));
        assertThat(atBarrier).as(diagnosis).isEqualTo(facts.threads().stream().filter(t -> t.role().equals("barrier"))
                .map(Facts.ThreadFacts::lwp).collect(java.util.stream.Collectors.toSet()));
        assertThat(notThere).as(diagnosis).containsExactly(straggler.lwp());
    }

    @Test
    void diagnoseOnTheNestLockDeadlockNamesTheCycleAndTheHolders(@TempDir Path directory) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest"));
        Facts facts = fixture.facts();
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("ompd diagnose"),
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory,
                Duration.ofMinutes(2));
        String diagnosis = output.section("ompd diagnose");
        assertThat(output.exitCode()).as(output.text()).isZero();
        String deadlock = diagnosis.lines().filter(l -> l.strip().startsWith("- deadlock: omp")).findFirst()
                .orElseThrow(() -> new AssertionError("no deadlock in\n" + diagnosis));
        for (String lock : List.of("A", "B")) {
            Facts.ThreadFacts holder = facts.thread((int) facts.number("hang.lock." + lock + ".holder"));
            assertThat(deadlock).contains("held by omp " + holder.threadNum() + "/" + holder.teamSize()
                    + " (LWP " + holder.lwp() + ")");
        }
    }
}
