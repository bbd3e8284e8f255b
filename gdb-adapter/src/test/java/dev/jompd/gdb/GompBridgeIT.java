package dev.jompd.gdb;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gcc-built program (GCC's libgomp) started in gdb with {@code ompd run}: it runs on jompd's libomp, and
 * the ompd commands name each implicit task's and region's outlined function, not libomp's GOMP wrapper.
 * Truth: the runtime library and team shapes the program recorded.
 */
class GompBridgeIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @Test
    void ompdRunStartsAGccProgramOnJompdsLibompAndTasksNameTheOutlinedFunction(@TempDir Path directory) throws Exception {
        Path program = FixtureBuilder.executable(Fixture.NESTED_GCC);
        Path facts = directory.resolve("facts.properties");
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of("-ex", "break jompd_marker",
                        "-ex", "ompd run 2 3")), List.of("ompd threads", "ompd tasks", "ompd parallel", "ompd tree all"),
                List.of(program.toString()), Map.of("JOMPD_FACTS", facts.toString()), directory, TIMEOUT);
        Facts recorded = Facts.read(facts);
        assertThat(recorded.get("runtime_library")).as(output.text()).contains("/run/libomp-").endsWith("libgomp.so.1");
        assertThat(output.text()).contains("jompd: OMP_DEBUG=enabled").contains("jompd: LD_LIBRARY_PATH=");

        String tasks = output.section("ompd tasks");
        assertThat(tasks).contains("#0  implicit task").contains("region._omp_fn.0").doesNotContain("__kmp_GOMP");
        String parallel = output.section("ompd parallel");
        assertThat(parallel.lines().filter(line -> line.startsWith("level ") && !line.startsWith("level 0")))
                .hasSize(2).allSatisfy(line -> assertThat(line).contains("region._omp_fn.0"));
        GdbBridgeIT.checkThreads(output.section("ompd threads"), recorded, null, Stops.Backend.LIVE);
        String tree = output.section("ompd tree all");
        assertThat(tree).doesNotContain("__kmp_GOMP");
        GdbBridgeIT.checkTree(tree, recorded);
        // each implicit task of a region (level >= 1) once, by its place: the thread numbers from level 1 down to it
        java.util.Set<List<Integer>> implicitTasks = new java.util.HashSet<>();
        for (Facts.ThreadFacts thread : recorded.threads()) {
            for (int level = 1; level <= thread.level(); level++) {
                implicitTasks.add(thread.ancestors().subList(0, level));
            }
        }
        assertThat(tree.lines().filter(line -> line.strip().startsWith("implicit task") && line.contains("region._omp_fn.0")))
                .as(tree).hasSize(implicitTasks.size());
        assertThat(tree.lines().filter(line -> line.strip().startsWith("implicit task"))).hasSize(implicitTasks.size());
    }
    // ompd step on this program: OmpdStepIT's StepIntoCase.GCC_PARALLEL
}
