package dev.jompd.libompd;

import dev.jompd.testkit.Commands;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shim (src/main/c/libompd.c) as a multi-threaded debugger such as TotalView loads it, against an engine that
 * misbehaves: src/test/c/shim_driver.c is the debugger, src/test/c/fake_engine.c the engine (JOMPD_JAVA; the
 * shim's side of the protocol is what is tested, so the engine's answers are fixed and known). One call at a time,
 * each with one deadline; re-entry from a callback refused with an rc; the engine holds no fd of the debugger's
 * beyond its pipes and its log, and ends when the library is unloaded.
 */
class ShimRobustnessIT {
    private static final Path JOMPD_LIBRARY = Path.of("target/lib/libompd.so").toAbsolutePath();
    private static final Path DRIVER_SOURCE = Path.of("src/test/c/shim_driver.c").toAbsolutePath();
    private static final Path ENGINE_SOURCE = Path.of("src/test/c/fake_engine.c").toAbsolutePath();
    private static final long TIMEOUT_MS = 1500;
    /** The fake engine's pause between two questions when it keeps asking. */
    private static final long QUESTION_INTERVAL_MS = 200;
    private static final int OMPD_RC_OK = 0, OMPD_RC_ERROR = 4;

    @TempDir
    static Path work;
    private static Path driver, engine;

    @BeforeAll
    static void build() throws IOException {
        assumeTrue(Commands.available("clang-19"), "clang-19 is not installed");
        assumeTrue(Files.isRegularFile(JOMPD_LIBRARY), JOMPD_LIBRARY + " is not built (mvn package builds it)");
        driver = compile(DRIVER_SOURCE, "shim_driver", "-ldl", "-lpthread");
        // where a JDK's java would be, its release file saying Java 25: found by the rule every door shares
        Files.createDirectories(work.resolve("fake-jdk/bin"));
        Files.writeString(work.resolve("fake-jdk/release"), "JAVA_VERSION=\"25\"\n");
        engine = compile(ENGINE_SOURCE, "fake-jdk/bin/java");
    }

    private static Path compile(Path source, String name, String... libraries) throws IOException {
        Path executable = work.resolve(name);
        List<String> command = new ArrayList<>(List.of("clang-19", "-g", "-Wall", "-Wextra", "-Werror", "-o",
                executable.toString(), source.toString()));
        command.addAll(List.of(libraries));
        Commands.Result built = Commands.run(command, Map.of(), work, Duration.ofMinutes(2));
        assertThat(built.exitCode()).as(built.output()).isZero();
        return executable;
    }

    private static List<String> run(String scenario, String engineMode) throws IOException {
        Map<String, String> environment = Map.of("JOMPD_JAVA", engine.toString(), "FAKE_ENGINE_MODE", engineMode,
                "JOMPD_LIBOMPD_TIMEOUT_MS", Long.toString(TIMEOUT_MS), "XDG_CACHE_HOME",
                work.resolve("cache").toString());
        Commands.Result run = Commands.run(List.of(driver.toString(), JOMPD_LIBRARY.toString(), scenario),
                environment, work, Duration.ofSeconds(30));
        assertThat(run.exitCode()).as(run.output()).isZero();
        List<String> lines = run.output().lines().toList();
        assertThat(lines).as(run.output()).endsWith("DONE");
        return lines;
    }

    /** Before: every question restarted the 30 s wait, so an engine that kept asking held the debugger forever. */
    @Test
    void anEngineThatKeepsAskingCostsTheCallAnErrorWhenItsOneDeadlinePasses() throws IOException {
        List<String> lines = run("asks_forever", "asks_forever");
        Matcher answer = Pattern.compile("asks_forever rc (\\d+) ms (\\d+)").matcher(lines.get(1));
        assertThat(answer.matches()).as(String.join("\n", lines)).isTrue();
        assertThat(Integer.parseInt(answer.group(1))).isEqualTo(OMPD_RC_ERROR);
        // the deadline, give or take the engine's pause between questions (the shim waits for a frame, not a clock)
        assertThat(Long.parseLong(answer.group(2))).isBetween(TIMEOUT_MS, TIMEOUT_MS + QUESTION_INTERVAL_MS);
        assertThat(lines.getFirst()).matches("PRINT jompd libompd: the engine \\(pid \\d+\\) timed out \\(the call's "
                + "deadline passed while it was still asking questions\\) during routine 2; it is stopped, the next "
                + "call starts a new one");
        assertThat(lines).hasSize(3);
    }

    /** Two debugger threads at once: each call gets its own answer (the engine's echo of the caller's symbol). */
    @Test
    void callsFromTwoDebuggerThreadsAreServedOneAtATimeEachWithItsOwnAnswer() throws IOException {
        List<String> lines = run("concurrent", "answers");
        Map<String, List<String>> byThread = new LinkedHashMap<>();
        for (String line : lines.subList(0, lines.size() - 1)) {
            Matcher call = Pattern.compile("concurrent (0x\\d+) (\\d+) (rc \\d+ value 0x[0-9a-f]+)").matcher(line);
            assertThat(call.matches()).as(String.join("\n", lines)).isTrue();
            byThread.computeIfAbsent(call.group(1), t -> new ArrayList<>()).add(call.group(2) + " " + call.group(3));
        }
        assertThat(byThread.keySet()).containsExactlyInAnyOrder("0x1111", "0x2222");
        for (var thread : byThread.entrySet()) {
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                expected.add(i + " rc " + OMPD_RC_OK + " value " + thread.getKey());
            }
            assertThat(thread.getValue()).as(thread.getKey()).isEqualTo(expected);
        }
    }

    /** Before: the inner call wrote its CALL into the outer one's exchange; both failed and the engine was killed. */
    @Test
    void aRoutineCalledFromACallbackIsRefusedWithAnRcAndTheOuterCallStillAnswers() throws IOException {
        assertThat(run("reentry", "answers")).containsExactly(
                "PRINT jompd libompd: a routine was called from a callback of another one; refused (one call at a time)",
                "reentry inner rc " + OMPD_RC_ERROR,
                "reentry outer rc " + OMPD_RC_OK + " value 0x3333",
                "DONE");
    }

    /** Before: the debugger's fds without O_CLOEXEC (here /dev/null, held by the driver) passed to the engine. */
    @Test
    void theEngineHasItsTwoPipesAndItsLogAndNoOtherFdOfTheDebuggers() throws IOException {
        List<String> lines = run("fds", "answers");
        assertThat(lines.getFirst()).matches("held fd \\d+");
        Map<String, String> fds = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size() - 1)) {
            String[] parts = line.split(" ", 4);
            assertThat(parts[0] + " " + parts[1]).as(line).isEqualTo("engine fd");
            fds.put(parts[2], parts[3]);
        }
        assertThat(fds.keySet()).containsExactlyInAnyOrder("0", "1", "2");
        assertThat(fds.get("0")).matches("pipe:\\[\\d+]");
        assertThat(fds.get("1")).matches("pipe:\\[\\d+]").isNotEqualTo(fds.get("0"));
        assertThat(fds.get("2")).isEqualTo(work.resolve("cache/jompd/libompd-engine.log").toRealPath().toString());
    }

    /** A child the debugger forks and that exits without exec runs the library's destructors: not on its parent's engine. */
    @Test
    void aForkedChildsExitLeavesItsParentsEngineAlone() throws IOException {
        assertThat(run("fork", "answers")).containsExactly("child exited 0", "engine after the child's exit: same",
                "DONE");
    }

    /** Before: a debugger that dlclosed the library without ompd_finalize left the engine running. */
    @Test
    void unloadingTheLibraryStopsTheEngine() throws IOException {
        assertThat(run("unload", "answers")).containsExactly("engine alive after dlclose: 0", "DONE");
    }
}
