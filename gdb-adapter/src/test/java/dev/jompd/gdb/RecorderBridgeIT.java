package dev.jompd.gdb;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.RecorderLibrary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ompd run --recorder} in gdb: the program runs with the jompd-recorder (OMP_TOOL_LIBRARIES set as
 * {@code jompd run --recorder} sets it), and {@code ompd tree} shows each thread's recorded events and why
 * it is where it is. Truth: the deadlock fixture's locks, LWPs and source lines.
 */
class RecorderBridgeIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @Test
    void ompdRunRecorderLoadsTheRecorderAndTheTreeSaysWhyEachDeadlockedThreadWaits(@TempDir Path directory) {
        Path program = FixtureBuilder.executable(Fixture.RECORDER_DEADLOCK);
        Path facts = directory.resolve("facts.properties");
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of("-ex", "break jompd_marker",
                        "-ex", "ompd run --recorder")), List.of("ompd tree", "ompd tree history all", "ompd tree history 3",
                        "ompd tree history lots"),
                List.of(program.toString()), Map.of("JOMPD_FACTS", facts.toString(), "JOMPD_RECORDER_EVENTS", "256"),
                directory, TIMEOUT);
        assertThat(output.text()).contains("jompd: OMP_TOOL_LIBRARIES=").contains(RecorderLibrary.FILE_NAME);
        Facts recorded = Facts.read(facts);
        String tree = output.section("ompd tree");
        assertThat(tree).as(output.text()).contains("Recorded history").contains("256 events kept per thread")
                .contains(" events kept:");
        // the whole ring on request, or the last N; a wrong argument says what is expected
        assertThat(output.section("ompd tree history all")).contains(" events kept:").doesNotContain(", last ");
        assertThat(output.section("ompd tree history 3")).contains("last 3 of ");
        assertThat(output.text()).contains("history: expected a number of events (0 or more) or 'all', got 'lots'");
        for (int k = 1; k <= 2; k++) {
            for (String fragment : RecorderLibrary.deadlockWhyHere(recorded, k)) {
                assertThat(tree).as("why thread %d is here", k).contains(fragment);
            }
        }
    }
}
