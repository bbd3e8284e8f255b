package dev.jompd.cli;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static dev.jompd.cli.InspectCommandIT.jompd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jompd job}'s inputs as a user gives them, on real processes and their cores: the node of each core (from
 * its process's environment, none shown when it names none), cores of different programs refused with each
 * program's cores named, a pid that does not exist refused, and a critical-section wait named once.
 * The program: the team of a {@code critical} construct whose first thread blocks inside it, so that the others
 * wait to enter the very construct that names the section (its line, read from the source: the truth).
 */
class JobInputsIT {
    private static final String SOURCE = """
            #include <omp.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <unistd.h>
            static int arrived;
            int main(int argc, char **argv) {
              int threads = atoi(argv[1]);
              omp_set_dynamic(0);
            #pragma omp parallel num_threads(threads)
              {
            #pragma omp atomic
                arrived++;
            #pragma omp critical
                {
                  int seen;
                  do {
            #pragma omp atomic read
                    seen = arrived;
                  } while (seen < threads);
                  usleep(300000); /* the others are in libomp's lock by now */
                  printf("ready %d\\n", getpid());
                  fflush(stdout);
                  pause();
                }
              }
              return 0;
            }
            """;
    private static final int CRITICAL_LINE = SOURCE.lines().toList().indexOf("#pragma omp critical") + 1;

    private static Path work;
    private static Path program;
    private static final List<Process> started = new ArrayList<>();

    @BeforeAll
    static void build() throws IOException {
        work = Files.createTempDirectory("jompd-job-inputs");
        Files.writeString(work.resolve("critical.c"), SOURCE);
        program = work.resolve("critical");
        Path runtime = Runtimes.prefix();
        Commands.Result compiled = Commands.run(List.of("clang-19", "-fopenmp", "-g", "-O0", "-I" + runtime.resolve("include"),
                "-L" + runtime.resolve("lib"), "-Wl,-rpath," + runtime.resolve("lib"), "-o", program.toString(), "critical.c"),
                Map.of(), work, Duration.ofMinutes(2));
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
    }

    @AfterAll
    static void stop() throws IOException {
        started.forEach(Process::destroyForcibly);
        try (Stream<Path> files = Files.walk(work)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    /** A core of {@code program} with {@code threads} threads, in {@code directory} as {@code name}, taken by gdb's gcore. */
    private static Path core(int threads, Map<String, String> environment, Path directory, String name) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(program.toString(), Integer.toString(threads))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("OMP_DEBUG", "enabled");
        builder.environment().putAll(environment);
        Process process = builder.start();
        started.add(process);
        String ready = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(ready).isEqualTo("ready " + process.pid());
        Path core = directory.resolve(name);
        Commands.Result gcore = Commands.run(List.of("gdb", "-batch", "-nx", "-p", Long.toString(process.pid()), "-ex",
                "gcore " + core), Map.of(), work, Duration.ofMinutes(2));
        assertThat(gcore.exitCode()).as(gcore.output()).isZero();
        process.destroyForcibly();
        return core;
    }

    @Test
    void eachCoreShowsTheNodeItsEnvironmentNames() throws Exception {
        Path cores = Files.createDirectories(work.resolve("one-job"));
        Path rank0 = core(3, Map.of("PMIX_RANK", "0", "SLURMD_NODENAME", "n7", "HOSTNAME", ""), cores, "core.a");
        Path rank1 = core(2, Map.of("PMIX_RANK", "1", "HOSTNAME", ""), cores, "core.b");

        InspectCommandIT.Result text = jompd("job", "--cores", cores.toString());
        assertThat(text.exitCode()).as(text.err()).isZero();
        List<String> classes = text.out().lines().filter(l -> l.startsWith("  class "))
                .map(l -> l.replaceFirst("^  class \\d+: ", "")).toList();
        // the team sizes differ, so each rank is its own class and shows its own id
        assertThat(classes).containsExactlyInAnyOrder(
                "rank 1 (1 rank; shown: rank 1 (" + rank1 + "))",
                "rank 0 (1 rank; shown: rank 0 (" + rank0 + " on n7))");

        InspectCommandIT.Result json = jompd("job", "--cores", cores.toString(), "--json");
        assertThat(json.exitCode()).as(json.err()).isZero();
        Map<Integer, JsonObject> byRank = new HashMap<>();
        for (JsonElement rankClass : JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("classes")) {
            JsonObject shown = rankClass.getAsJsonObject().getAsJsonObject("representative");
            byRank.put(shown.get("rank").getAsInt(), rankClass.getAsJsonObject());
        }
        assertThat(byRank.get(0).getAsJsonObject("representative").get("host").getAsString()).isEqualTo("n7");
        assertThat(byRank.get(1).getAsJsonObject("representative").get("host").getAsString()).isEmpty();

    }

    @Test
    void aCriticalWaitIsNamedOnce() throws Exception {
        Path cores = Files.createDirectories(work.resolve("critical-wait"));
        Path rank0 = core(3, Map.of("PMIX_RANK", "0"), cores, "core.0");
        InspectCommandIT.Result text = jompd("job", "--cores", cores.toString());
        assertThat(text.out().lines().findFirst()).hasValue("Job: 1 rank, 1 seen in 1 class");
        InspectCommandIT.Result json = jompd("job", "--cores", cores.toString(), "--json");
        assertThat(json.exitCode()).as(json.err()).isZero();
        JsonObject rankClass = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("classes").get(0)
                .getAsJsonObject();
        // the two threads that did not enter first: each role exactly the one its own diagnosis gives, which names
        // the section by the critical construct's line: that line once
        InspectCommandIT.Result diagnosis = jompd("diagnose", "--core", rank0.toString(), "--json");
        assertThat(diagnosis.exitCode()).as(diagnosis.err()).isZero();
        Map<Integer, String> roleByThread = new HashMap<>();
        for (JsonElement finding : JsonParser.parseString(diagnosis.out()).getAsJsonObject().getAsJsonArray("findings")) {
            for (JsonElement thread : finding.getAsJsonObject().getAsJsonArray("threads")) {
                JsonObject t = thread.getAsJsonObject();
                assertThat(t.get("source").getAsString()).isEqualTo("critical.c:" + CRITICAL_LINE);
                roleByThread.put(t.get("threadNum").getAsInt(), t.get("role").getAsString());
            }
        }
        assertThat(roleByThread).hasSize(2);
        for (String role : roleByThread.values()) {
            // (the program's critical construct has no name: the unnamed critical, named as the program wrote it)
            assertThat(role).startsWith("waits for the unnamed critical at critical.c:" + CRITICAL_LINE + " (");
        }
        Map<Integer, List<String>> jobRoles = new HashMap<>();
        for (JsonElement thread : rankClass.getAsJsonArray("threads")) {
            String name = thread.getAsJsonObject().get("thread").getAsString(); // omp 1/3 · level 1
            int number = Integer.parseInt(name.substring("omp ".length(), name.indexOf('/')));
            List<String> roles = new ArrayList<>();
            thread.getAsJsonObject().getAsJsonArray("roles").forEach(r -> roles.add(r.getAsString()));
            jobRoles.put(number, roles);
        }
        for (Map.Entry<Integer, String> waiter : roleByThread.entrySet()) {
            // the job names the section by the program's construct alone: libomp's lock object (another address in
            // every rank) is the process's detail
            assertThat(jobRoles.get(waiter.getKey())).as("thread %d", waiter.getKey())
                    .containsExactly("waits for the unnamed critical at critical.c:" + CRITICAL_LINE);
        }
    }

    @Test
    void coresOfDifferentProgramsAreRefusedWithEachProgramsCores() throws Exception {
        Path cores = Files.createDirectories(work.resolve("two-programs"));
        Path ours = core(2, Map.of("PMIX_RANK", "0"), cores, "core.0");
        StoppedFixture other = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2"));
        Path theirs = Files.createSymbolicLink(cores.resolve("core.1"), other.core());
        InspectCommandIT.Result result = jompd("job", "--cores", cores.toString());
        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.out()).isEmpty();
        List<String> programs = new ArrayList<>(List.of(
                "  " + program + " (build-id " + buildId(program) + "): " + ours,
                "  " + other.executable() + " (build-id " + buildId(other.executable()) + "): " + theirs));
        programs.sort(Comparator.comparing(line -> line.substring(line.indexOf("build-id"))));
        assertThat(result.err()).isEqualTo("jompd: the cores in " + cores + " come from 2 different programs:\n"
                + String.join("\n", programs) + "\ngive the cores of one job's program: a directory or a glob of them alone\n");
    }

    /** The GNU build id readelf reads from the program's notes. */
    private static String buildId(Path executable) throws IOException {
        Commands.Result notes = Commands.run(List.of("readelf", "-n", executable.toString()), Map.of(), null, Duration.ofMinutes(1));
        return notes.output().lines().filter(l -> l.strip().startsWith("Build ID:")).findFirst().orElseThrow()
                .strip().substring("Build ID:".length()).strip();
    }

    @Test
    void aPidThatDoesNotExistIsRefused() throws IOException {
        // above the kernel's pid_max: no process has ever had it
        long never;
        try (var in = Files.newInputStream(Path.of("/proc/sys/kernel/pid_max"))) {
            // read as a stream: Files.readString of this procfs file gives only its first bytes
            never = Long.parseLong(new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip()) + 1;
        }
        InspectCommandIT.Result alone = jompd("job", "--pids", Long.toString(never));
        assertThat(alone.exitCode()).as(alone.out() + alone.err()).isEqualTo(3);
        assertThat(alone.err()).isEqualTo("jompd job: no such process: " + never + "\n");
        assertThat(alone.out()).isEmpty();
        InspectCommandIT.Result withOthers = jompd("job", "--pids", ProcessHandle.current().pid() + "," + never + ","
                + (never + 1));
        assertThat(withOthers.exitCode()).isEqualTo(3);
        assertThat(withOthers.err()).isEqualTo("jompd job: no such process: " + never + ", " + (never + 1) + "\n");
    }
}
