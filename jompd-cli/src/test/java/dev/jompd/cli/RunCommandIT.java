package dev.jompd.cli;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.core.launch.OpenMpLaunch;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * gcc- and gfortran-built programs (linked against GCC's libgomp) run through {@code jompd run} on jompd's
 * libomp and read live and in a core: every implicit task names the user's outlined function
 * ({@code region._omp_fn.0}) with its file:line, not libomp's GOMP wrapper. Truth: the facts each program
 * recorded (thread numbers, team sizes, the runtime library it loaded) and the frames gdb unwinds from
 * DWARF on the same core. Also: the libgomp program without jompd run, and a GOMP entry point libomp lacks.
 */
class RunCommandIT {
    private static final String GOMP_WRAPPER = "argument of libomp's GOMP wrapper";
    private static Path launcher;
    private static Path aliases;

    @BeforeAll
    static void distributionAndRuntime() {
        launcher = Path.of("target/jompd/bin/jompd").toAbsolutePath();
        assertThat(launcher).as("the distribution (mvn package)").isExecutable();
        Path libomp = Runtimes.libraryDirectory(Runtimes.DEFAULT_VERSION).resolve("libomp.so");
        aliases = OpenMpLaunch.aliasDirectory(libomp, System.getenv());
    }

    /** The same environment jompd run gives a program (OpenMpLaunch), for gdb to run it with. */
    private static FixtureRun onJompdsLibomp(FixtureRun run) {
        Map<String, String> changes = OpenMpLaunch.environmentChanges(Map.of(), aliases);
        for (var change : changes.entrySet()) {
            run = run.withEnvironment(change.getKey(), change.getValue());
        }
        return run;
    }

    @Test
    void gccProgramInACoreNamesEachImplicitTasksOutlinedFunctionAsGdbUnwindsIt() {
        StoppedFixture fixture = Fixtures.core(onJompdsLibomp(FixtureRun.of(Fixture.NESTED_GCC, "2", "3")));
        assertThat(fixture.facts().get("runtime_library")).startsWith(aliases.toString()).endsWith("libgomp.so.1");
        implicitTasksNameTheirOutlinedFunction(fixture, "nested.c");
    }

    @Test
    void gfortranProgramInACoreNamesEachImplicitTasksOutlinedFunctionAsGdbUnwindsIt() {
        StoppedFixture fixture = Fixtures.core(onJompdsLibomp(FixtureRun.of(Fixture.NESTED_FORTRAN_GCC, "2", "2")));
        implicitTasksNameTheirOutlinedFunction(fixture, "nested_fortran.f90");
    }

    /**
     * Where gdb has {@code function} begin in the run's executable (its line table at the function's first address, as
     * {@code GdbProbe.Frame.line} has it on a core): {@code nested.c:53}.
     */
    private static String functionStart(FixtureRun run, String function) throws java.io.IOException {
        Path executable = Fixtures.executable(run);
        Commands.Result result = Commands.run(List.of("gdb", "-batch", "-nx", "-ex",
                "info line '" + function + "'", executable.toString()), Map.of(), null, java.time.Duration.ofMinutes(2));
        java.util.regex.Matcher line = java.util.regex.Pattern.compile("^Line (\\d+) of \"([^\"]+)\" starts at address",
                java.util.regex.Pattern.MULTILINE).matcher(result.output());
        assertThat(line.find()).as(result.output()).isTrue();
        return Path.of(line.group(2)).getFileName() + ":" + line.group(1);
    }

    private static void implicitTasksNameTheirOutlinedFunction(StoppedFixture fixture, String source) {
        InspectCommandIT.Result result = InspectCommandIT.jompd("inspect", "--core", fixture.core().toString(), "--json");
        assertThat(result.exitCode()).as(result.err()).isZero();
        Map<Long, JsonObject> threads = threadsByLwp(JsonParser.parseString(result.out()).getAsJsonObject());
        Map<Long, List<GdbProbe.Frame>> stacks = fixture.gdb().backtraces();
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            JsonObject thread = threads.get(facts.lwp());
            assertThat(thread).as(facts + " in the report").isNotNull();
            assertThat(thread.get("threadNum").getAsInt()).isEqualTo(facts.threadNum());
            // The innermost outlined function on the thread's stack is what its implicit task runs.
            GdbProbe.Frame outlined = stacks.get(facts.lwp()).stream().filter(f -> f.function().contains("._omp_fn."))
                    .findFirst().orElseThrow();
            JsonObject function = implicitTask(thread).getAsJsonObject("function");
            assertThat(function.get("symbol").getAsString()).as("thread %d", facts.index()).isEqualTo(outlined.function());
            assertThat(Long.decode(function.get("address").getAsString())).isEqualTo(outlined.functionStart());
            assertThat(function.get("resolvedBy").getAsString()).isEqualTo(GOMP_WRAPPER);
            assertThat(function.get("entrySymbol").getAsString()).startsWith("__kmp_GOMP_");
            assertThat(function.get("source").getAsString()).endsWith(source + ":" + outlined.line());
        }
    }

    @Test
    void gccTaskChainNamesEachTasksOutlinedFunctionInTheOrderGdbUnwindsThem() {
        StoppedFixture fixture = Fixtures.core(onJompdsLibomp(FixtureRun.of(Fixture.TASKS_GCC, "20", "3")));
        InspectCommandIT.Result result = InspectCommandIT.jompd("inspect", "--core", fixture.core().toString(), "--json");
        assertThat(result.exitCode()).as(result.err()).isZero();
        Facts.ThreadFacts marker = fixture.facts().thread((int) fixture.facts().number("marker_thread"));
        JsonObject thread = threadsByLwp(JsonParser.parseString(result.out()).getAsJsonObject()).get(marker.lwp());
        List<String> chain = new java.util.ArrayList<>();
        for (JsonElement task : thread.getAsJsonArray("tasks")) {
            JsonObject function = task.getAsJsonObject().getAsJsonObject("function");
            if (function != null && function.has("symbol")) {
                chain.add(function.get("symbol").getAsString());
            }
        }
        // C -> B -> A -> implicit task (facts: task_chain_depth explicit tasks), each frame on the stack
        List<String> frames = fixture.gdb().backtraces().get(marker.lwp()).stream().map(GdbProbe.Frame::function)
                .filter(name -> name.contains("._omp_fn.")).toList();
        assertThat(chain).hasSize((int) fixture.facts().number("task_chain_depth") + 1).isEqualTo(frames);
    }

    @Test
    void gccProgramStartedByJompdRunIsReadLiveWithItsOutlinedFunctions() throws java.io.IOException {
        FixtureRun run = FixtureRun.of(Fixture.NESTED_GCC, "3", "2");
        try (LiveFixture live = Fixtures.live(run, List.of(launcher.toString(), "run", "--"))) {
            assertThat(live.facts().get("runtime_library")).startsWith(aliases.toString()).endsWith("libgomp.so.1");
            InspectCommandIT.Result result = InspectCommandIT.jompd("inspect", "--pid", Long.toString(live.pid()), "--json");
            assertThat(result.exitCode()).as(result.err()).isZero();
            JsonObject report = JsonParser.parseString(result.out()).getAsJsonObject();
            Map<Long, JsonObject> threads = threadsByLwp(report);
            Map<String, JsonObject> regions = new HashMap<>();
            report.getAsJsonArray("regions").forEach(r -> regions.put(r.getAsJsonObject().get("id").getAsString(), r.getAsJsonObject()));
            for (Facts.ThreadFacts facts : live.facts().threads()) {
                JsonObject thread = threads.get(facts.lwp());
                assertThat(thread.get("threadNum").getAsInt()).isEqualTo(facts.threadNum());
                assertThat(regions.get(thread.get("region").getAsString()).get("teamSize").getAsInt())
                        .isEqualTo(facts.teamSize());
                JsonObject function = implicitTask(thread).getAsJsonObject("function");
                assertThat(function.get("symbol").getAsString()).isEqualTo("region._omp_fn.0");
                assertThat(function.get("resolvedBy").getAsString()).isEqualTo(GOMP_WRAPPER);
                assertThat(function.get("source").getAsString()).endsWith("/" + functionStart(run, "region._omp_fn.0"));
            }
            assertThat(live.release()).contains("JOMPD_RESULT ok");
            assertThat(live.exitCode()).isZero();
        }
    }

    @Test
    void gfortranProgramStartedByJompdRunIsReadLiveWithItsOutlinedFunctions() throws java.io.IOException {
        FixtureRun run = FixtureRun.of(Fixture.NESTED_FORTRAN_GCC, "2", "2");
        try (LiveFixture live = Fixtures.live(run, List.of(launcher.toString(), "run", "--"))) {
            InspectCommandIT.Result result = InspectCommandIT.jompd("inspect", "--pid", Long.toString(live.pid()), "--json");
            assertThat(result.exitCode()).as(result.err()).isZero();
            Map<Long, JsonObject> threads = threadsByLwp(JsonParser.parseString(result.out()).getAsJsonObject());
            for (Facts.ThreadFacts facts : live.facts().threads()) {
                JsonObject thread = threads.get(facts.lwp());
                assertThat(thread.get("threadNum").getAsInt()).isEqualTo(facts.threadNum());
                JsonObject function = implicitTask(thread).getAsJsonObject("function");
                // the inner region's outlined function (the outer one is MAIN__._omp_fn.0)
                assertThat(function.get("symbol").getAsString()).isEqualTo("MAIN__._omp_fn.1");
                assertThat(function.get("source").getAsString()).endsWith("/" + functionStart(run, "MAIN__._omp_fn.1"));
            }
            assertThat(live.release()).contains("JOMPD_RESULT ok");
        }
    }

    @Test
    void libgompProgramIsRefusedWithExitFiveAndTheWayForward() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED_GCC, "2", "2"));
        assertThat(fixture.facts().get("runtime_library")).contains("libgomp.so.1").doesNotContain(aliases.toString());
        InspectCommandIT.Result result = InspectCommandIT.jompd("inspect", "--core", fixture.core().toString());
        assertThat(result.exitCode()).isEqualTo(5);
        assertThat(result.err()).contains("this program runs on GCC's libgomp (").contains("libgomp.so.1")
                .contains("which has no OpenMP debugging interface").contains("jompd run -- PROGRAM ARGS");
    }

    @Test
    void gompEntryPointLibompLacksIsNamedBeforeTheProgramStarts(@TempDir Path directory) throws Exception {
        Path source = directory.resolve("error_directive.c");
        Files.writeString(source, """
                #include <stdio.h>
                int main(void) {
                #pragma omp parallel num_threads(2)
                  {
                #pragma omp error at(execution) severity(warning) message("from the program")
                  }
                  puts("ran");
                  return 0;
                }
                """);
        Path program = directory.resolve("error_directive");
        Commands.Result compiled = Commands.run(List.of("gcc", "-fopenmp", "-o", program.toString(), source.toString()),
                Map.of(), directory, Duration.ofMinutes(1));
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        // The dynamic linker's own verdict on libomp as libgomp.so.1: it refuses the program.
        Commands.Result direct = Commands.run(List.of(program.toString()), Map.of("LD_LIBRARY_PATH", aliases.toString()),
                directory, Duration.ofMinutes(1));
        assertThat(direct.output()).contains("version `GOMP_5.1' not found");

        Commands.Result run = Commands.run(List.of(launcher.toString(), "run", "--", program.toString()), Map.of(),
                directory, Duration.ofMinutes(2));
        assertThat(run.exitCode()).isEqualTo(5);
        assertThat(run.output()).contains("GOMP_warning@GOMP_5.1").contains("#pragma omp error").doesNotContain("ran");
    }

    @Test
    void jompdRunIsTheProgramItselfForPidExitStatusAndSignals() throws Exception {
        Process process = new ProcessBuilder(launcher.toString(), "run", "--", "sh", "-c",
                "echo pid $$ $OMP_DEBUG $LD_LIBRARY_PATH; exit 7").redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).isEqualTo(7);
        assertThat(output.strip()).startsWith("pid " + process.pid() + " enabled " + aliases);

        Process killed = new ProcessBuilder(launcher.toString(), "run", "sh", "-c", "kill -TERM $$").start();
        assertThat(killed.waitFor()).isEqualTo(128 + 15); // terminated by SIGTERM, as the program was
    }

    private static Map<Long, JsonObject> threadsByLwp(JsonObject report) {
        Map<Long, JsonObject> threads = new HashMap<>();
        for (JsonElement thread : report.getAsJsonArray("threads")) {
            if (thread.getAsJsonObject().has("lwp")) {
                threads.put(thread.getAsJsonObject().get("lwp").getAsLong(), thread.getAsJsonObject());
            }
        }
        return threads;
    }

    /** The innermost implicit task of a thread's chain. */
    private static JsonObject implicitTask(JsonObject thread) {
        for (JsonElement task : thread.getAsJsonArray("tasks")) {
            if (!task.getAsJsonObject().getAsJsonObject("flags").get("explicit").getAsBoolean()) {
                return task.getAsJsonObject();
            }
        }
        throw new AssertionError("no implicit task in " + thread);
    }
}
