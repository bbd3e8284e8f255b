package dev.jompd.gdb;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * gdb's {@code ompd tasks} and {@code ompd tree} show the tasks deferred_tasks created and that have not started:
 * the marker thread's (its deque, and those waiting for a task in it) under its chain, all of them in the tree,
 * each construct's line and count as the program recorded them (task ids, which the doors share, as tN).
 */
class GdbNotStartedTasksIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final List<String> COMMANDS = List.of("ompd init", "thread 1", "ompd tasks", "ompd tree");

    @ParameterizedTest
    @EnumSource(value = Stops.Backend.class, names = {"CORE", "LIVE"})
    void theMarkerThreadsTasksNotStartedAreListedUnderItsChain(Stops.Backend backend, @TempDir Path directory) throws IOException {
        GdbDriver.Output output;
        Facts facts;
        try (Stops.Stop stop = Stops.at(backend, FixtureRun.of(Fixture.DEFERRED_TASKS, "5", "2", "3", "3"), directory)) {
            output = GdbDriver.run(GdbDriver.withBridge(stop.setup()), COMMANDS, stop.arguments(), stop.environment(),
                    directory, TIMEOUT);
            facts = stop.facts();
        }
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        long n0 = facts.number("deferred.t0.count"), n1 = facts.number("deferred.t1.count"), m = facts.number("deferred.d.count");
        String file = "  task at deferred_tasks.c:";
        List<String> marker = List.of(
                "tasks created and not started: " + (n0 + 1 + m),
                "  ready in the deque of thread 0 (gtid 0): " + (n0 + 1),
                "    " + n0 + "× explicit task tN" + file + facts.get("deferred.t0.line") + ", created by tN",
                "    1× explicit task tN" + file + facts.get("deferred.p.line") + ", created by tN",
                "  waiting for their dependences on explicit task tN: " + m,
                "    " + m + "× explicit task tN" + file + facts.get("deferred.d.line") + ", created by tN, 1 dependence unmet");
        String tasks = output.section("ompd tasks");
        List<String> shown = tasks.lines().dropWhile(line -> !line.startsWith("tasks created and not started"))
                .takeWhile(line -> !line.isBlank()).map(GdbNotStartedTasksIT::normalized).toList();
        assertThat(shown).as(tasks).isEqualTo(marker);

        String tree = output.section("ompd tree");
        List<String> all = tree.lines().dropWhile(line -> !line.startsWith("  tasks created and not started"))
                .limit(8).map(GdbNotStartedTasksIT::normalized).toList();
        assertThat(all).as(tree).isEqualTo(List.of(
                "  tasks created and not started: " + (n0 + 1 + n1 + m),
                "  " + marker.get(1), "  " + marker.get(2), "  " + marker.get(3),
                "    ready in the deque of thread 1 (gtid N): " + n1,
                "      " + n1 + "× explicit task tN" + file + facts.get("deferred.t1.line") + ", created by tN",
                "  " + marker.get(4), "  " + marker.get(5)));
    }

    private static String normalized(String line) {
        return line.replaceAll("\\bt\\d+((\\.\\.|,)t\\d+)?\\b", "tN").replaceAll("thread 1 \\(gtid \\d+\\)", "thread 1 (gtid N)");
    }
}
