package dev.jompd.testkit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The kit itself: every fixture reaches its marker in the state it records, on a core and live. */
class FixturesIT {

    @ParameterizedTest
    @EnumSource(Fixture.class)
    void everyFixtureReachesItsMarkerUnderGdb(Fixture fixture) {
        if (fixture.isOffload()) {
            Offload.unavailableReason().ifPresent(reason -> {
                System.out.println("[jompd] " + fixture + " skipped: " + reason);
                Assumptions.abort(reason);
            });
        }
        FixtureRun run = FixtureRun.of(fixture);
        if (fixture.toolchain() == Fixture.Toolchain.GCC) { // built for GCC's libgomp: run it on libomp
            run = run.withEnvironment("LD_LIBRARY_PATH", Runtimes.gompAliasDirectory(run.runtimeVersion()).toString());
        }
        StoppedFixture stopped = Fixtures.core(run);
        Facts facts = stopped.facts();
        assertThat(facts.get("fixture")).isEqualTo(fixture.source().substring(0, fixture.source().lastIndexOf('.')));
        assertThat(facts.threadCount()).isPositive();
        assertThat(Files.exists(stopped.core())).isTrue();
        if (fixture.isOffload()) {
            return; // it runs on Debian's libomp, which is stripped: no DWARF for gdb to compare with
        }
        // gdb, reading the core through DWARF, sees each recorded thread with the thread number the
        // program recorded (ds_tid is the runtime's own record of omp_get_thread_num()).
        Map<Long, Map<String, GdbProbe.Value>> perThread = stopped.gdb().evaluatePerThread(List.of(
                "__kmp_gtid", "(int)__kmp_threads[__kmp_gtid]->th.th_info.ds.ds_tid"));
        for (Facts.ThreadFacts thread : facts.threads()) {
            assertThat(perThread).as(thread + " is a thread of the core").containsKey(thread.lwp());
            GdbProbe.Value tid = perThread.get(thread.lwp()).get("(int)__kmp_threads[__kmp_gtid]->th.th_info.ds.ds_tid");
            assertThat(tid.asLong()).as(thread + " thread number").isEqualTo(thread.threadNum());
        }
    }

    @Test
    void nestedFixtureHasEveryThreadInItsInnermostRegion() {
        Facts facts = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4")).facts();
        assertThat(facts.threadCount()).isEqualTo(16);
        Set<List<Integer>> places = new HashSet<>();
        for (Facts.ThreadFacts thread : facts.threads()) {
            assertThat(thread.level()).isEqualTo(2);
            assertThat(thread.teamSizes()).containsExactly(4, 4);
            places.add(List.of(thread.ancestors().get(0), thread.threadNum()));
        }
        assertThat(places).hasSize(16);
    }

    @Test
    void liveFixtureHoldsAtItsMarkerAndFinishesCorrectlyWhenReleased() {
        try (LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.PARALLEL, "3"))) {
            assertThat(live.isAlive()).isTrue();
            assertThat(live.facts().threadCount()).isEqualTo(3);
            assertThat(Path.of("/proc", Long.toString(live.pid()), "task")).isDirectory();
            String output = live.release();
            assertThat(output).contains("JOMPD_RESULT ok");
            assertThat(live.exitCode()).isZero();
        }
    }

    /** 20 runs in a row of every fixture: same facts shape every time. Slow: -Djompd.stress=true. */
    @Test
    @EnabledIfSystemProperty(named = "jompd.stress", matches = "true")
    void everyFixtureIsDeterministicOverTwentyRuns() {
        for (Fixture fixture : Fixture.values()) {
            FixtureRun run = FixtureRun.of(fixture);
            Facts first = Fixtures.makeCore(run, Fixtures.workDirectory().resolve("stress-" + fixture + "-0")).facts();
            for (int i = 1; i < 20; i++) {
                Path directory = Fixtures.workDirectory().resolve("stress-" + fixture + "-" + i);
                Facts again = Fixtures.makeCore(run, directory).facts();
                assertThat(again.threadCount()).as(fixture + " run " + i).isEqualTo(first.threadCount());
                for (int k = 0; k < first.threadCount(); k++) {
                    assertThat(again.thread(k).role()).as(fixture + " run " + i + " thread " + k + " role")
                            .isEqualTo(first.thread(k).role());
                    assertThat(again.thread(k).level()).isEqualTo(first.thread(k).level());
                }
                try (var files = Files.walk(directory)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }
    }
}
