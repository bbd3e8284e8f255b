package dev.jompd.gdb;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Prerequisite;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The LLDB door (jompd_lldb.py) in real LLDB 19 on a core, a process LLDB runs and one it attached to: {@code ompd
 * threads} against what the fixture recorded about itself, with LLDB's own numbers from its {@code thread list};
 * {@code ompd diagnose} against the facts and, on a core, against gdb's door word for word.
 */
class LldbBridgeIT {
    static final String LLDB = "lldb-19";
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final FixtureRun NESTED_2_3 = FixtureRun.of(Fixture.NESTED, "2", "3");
    /** A row of LLDB's `thread list`: its number and the thread's LWP (Linux: LLDB's thread id). */
    private static final Pattern LLDB_THREAD = Pattern.compile("^[* ] thread #(\\d+): tid = (\\d+),");

    @BeforeAll
    static void lldbIsInstalled() {
        Prerequisite.require(onPath(LLDB), "no " + LLDB + " on the PATH: run scripts/setup-system.sh (apt-get install lldb-19)");
    }

    @Test
    void threadsOfACoreAgreeWithTheFactsAndWithGdb(@TempDir Path directory) {
        StoppedFixture fixture = Fixtures.core(NESTED_2_3);
        GdbDriver.Output lldb = run(List.of("-c", fixture.core().toString(), fixture.executable().toString()),
                List.of("thread list", "ompd threads"), Map.of(), directory);
        assertThat(lldb.exitCode()).as("%s", lldb.text()).isZero();
        String threads = lldb.section("ompd threads");
        GdbBridgeIT.checkThreads(threads, fixture.facts(), lldbNumbers(lldb.section("thread list")), Stops.Backend.CORE);
        assertThat(threads.lines().skip(1).findFirst().orElseThrow().split("\\s+")).as(threads)
                .containsExactly("", "lldb", "LWP", "gtid", "thread", "level", "team", "path", "state");
        // gdb's door on the same core: the same rows (both number a core's threads in its order), gdb's heading
        GdbDriver.Output gdb = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("ompd threads"),
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory, TIMEOUT);
        assertThat(rows(threads)).isEqualTo(rows(gdb.section("ompd threads")));
        assertThat(threads.lines().findFirst()).isEqualTo(gdb.section("ompd threads").lines().findFirst());
    }

    /**
     * The other commands on a core of a program run with OMP_DEBUG=enabled, as GdbBridgeIT checks gdb's: the selected
     * thread's regions, tasks and ICVs, the tree, the parallel stacks, and the backtraces marked by task, whose
     * frames (pc and canonical frame address) come from LLDB's unwinder.
     */
    @Test
    void everyOtherCommandOfACoreAgreesWithTheFacts(@TempDir Path directory) {
        StoppedFixture fixture = Fixtures.core(NESTED_2_3);
        GdbDriver.Output lldb = run(List.of("-c", fixture.core().toString(), fixture.executable().toString()),
                List.of("ompd threads", select(1), "ompd bt", select(3), "ompd parallel", "ompd tasks",
                        "ompd icvs", "ompd tree all", "ompd stacks", "ompd bt"), Map.of(), directory);
        assertThat(lldb.exitCode()).as("%s", lldb.text()).isZero();
        Facts facts = fixture.facts();
        GdbBridgeIT.checkParallel(lldb.section("ompd parallel"), facts);
        // the regions' outlined function as gdb's backtrace of the same core names it (LLDB's own names differ)
        GdbDriver.Output gdb = GdbDriver.run(List.of(), List.of("thread 3", "bt"),
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory, TIMEOUT);
        GdbBridgeIT.checkTasks(lldb.section("ompd tasks"), gdb.section("bt"), facts);
        GdbBridgeIT.checkIcvs(lldb.section("ompd icvs"), facts);
        GdbBridgeIT.checkTree(lldb.section("ompd tree all"), facts, "lldb");
        GdbBridgeIT.checkStacks(lldb.section("ompd stacks"), lldb.section("ompd threads"), facts);
        // (the frames are LLDB's: its function names, with parameters, are not gdb's)
        GdbBridgeIT.checkBacktraceLabels(lldb.section("ompd bt"), lldb.section("ompd bt#2"), facts);
    }

    @Test
    void diagnosisOfAHangCoreIsGdbsWordForWordAndNamesTheStraggler(@TempDir Path directory) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.BARRIER_STRAGGLER));
        GdbDriver.Output lldb = run(List.of("-c", fixture.core().toString(), fixture.executable().toString()),
                List.of("ompd diagnose"), Map.of(), directory);
        assertThat(lldb.exitCode()).as("%s", lldb.text()).isZero();
        GdbDriver.Output gdb = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("ompd diagnose"),
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory, TIMEOUT);
        GdbDiagnoseIT.checkStragglerDiagnosis(lldb.section("ompd diagnose"), fixture.facts());
        assertThat(lldb.section("ompd diagnose").strip()).isEqualTo(gdb.section("ompd diagnose").strip());
    }

    @Test
    void threadsOfAProcessLldbRunsAgreeWithTheFacts(@TempDir Path directory) {
        Path facts = directory.resolve("facts.properties");
        GdbDriver.Output lldb = run(launched(NESTED_2_3), List.of("thread list", "ompd threads", "process kill"),
                Stops.programEnvironment(NESTED_2_3, facts), directory);
        assertThat(lldb.exitCode()).as("%s", lldb.text()).isZero();
        GdbBridgeIT.checkThreads(lldb.section("ompd threads"), Facts.read(facts), lldbNumbers(lldb.section("thread list")),
                Stops.Backend.LIVE);
    }

    /**
     * A local process whose memory the engine may not read itself (as JOMPD_GDB_MEMORY_VIA_GDB pretends) is read
     * through LLDB: memory by SBProcess.ReadMemory, threads and their fs_base from LLDB; the same facts.
     */
    @Test
    void threadsOfAProcessReadThroughLldbAgreeWithTheFacts(@TempDir Path directory) {
        Path facts = directory.resolve("facts.properties");
        Map<String, String> environment = new HashMap<>(Stops.programEnvironment(NESTED_2_3, facts));
        environment.put(Session.MEMORY_VIA_GDB, "1");
        GdbDriver.Output lldb = run(launched(NESTED_2_3), List.of("thread list", "ompd threads", "process kill"), environment,
                directory);
        assertThat(lldb.exitCode()).as("%s", lldb.text()).isZero();
        GdbBridgeIT.checkThreads(lldb.section("ompd threads"), Facts.read(facts), lldbNumbers(lldb.section("thread list")),
                "lldb:pid:");
    }

    @Test
    void diagnosisOfAHangProcessLldbRunsNamesTheStraggler(@TempDir Path directory) {
        FixtureRun run = FixtureRun.of(Fixture.BARRIER_STRAGGLER);
        Path facts = directory.resolve("facts.properties");
        GdbDriver.Output lldb = run(launched(run), List.of("ompd diagnose", "process kill"), Stops.programEnvironment(run, facts),
                directory);
        assertThat(lldb.exitCode()).as("%s", lldb.text()).isZero();
        GdbDiagnoseIT.checkStragglerDiagnosis(lldb.section("ompd diagnose"), Facts.read(facts));
    }

    @Test
    void threadsOfAnAttachedProcessAgreeWithTheFactsAndItRunsOnAfterwards(@TempDir Path directory) {
        try (LiveFixture held = Fixtures.live(NESTED_2_3)) {
            Path executable = FixtureBuilder.executable(NESTED_2_3.fixture(), NESTED_2_3.runtimeVersion());
            GdbDriver.Output lldb = run(List.of(executable.toString(), "-p", Long.toString(held.pid())),
                    List.of("thread list", "ompd threads", "process detach"), Map.of(), directory);
            assertThat(lldb.exitCode()).as("%s", lldb.text()).isZero();
            GdbBridgeIT.checkThreads(lldb.section("ompd threads"), held.facts(), lldbNumbers(lldb.section("thread list")),
                    Stops.Backend.ATTACHED);
            // read-only: the program, released, finishes as it would have
            assertThat(held.release()).contains("JOMPD_RESULT ok");
        }
    }

    /**
     * The answers a target read through the debugger needs beyond memory and threads (remote targets: the dynamic
     * linker's r_debug, the modules' files and build-ids) are gdb's on the same core: the same symbol addresses and
     * modules, the same error for a missing symbol, the same files with the same build-ids (gdb also lists the
     * separate debug files it loaded and its vDSO, which are not the modules' files).
     */
    @Test
    void symbolAndModuleAnswersAreGdbs(@TempDir Path directory) {
        StoppedFixture fixture = Fixtures.core(NESTED_2_3);
        String questions = "[{'ask':1,'what':'symbol','name':'_r_debug'},{'ask':2,'what':'symbol','name':'ompd_dll_locations'},"
                + "{'ask':3,'what':'symbol','name':'no_such_symbol_anywhere'},{'ask':4,'what':'objfiles'}]";
        GdbDriver.Output lldb = run(List.of("-c", fixture.core().toString(), fixture.executable().toString()),
                List.of("script import json; print(json.dumps([jompd_lldb.jompd_bridge().answer(lldb.target, q) for q in "
                        + questions + "]))"), Map.of(), directory);
        GdbDriver.Output gdb = GdbDriver.run(GdbDriver.withBridge(List.of()),
                List.of("python import json; print(json.dumps([jompd_bridge().answer(q) for q in " + questions + "]))"),
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory, TIMEOUT);
        assertThat(lldb.exitCode()).as("%s", lldb.text()).isZero();
        com.google.gson.JsonArray fromLldb = lastJsonLine(lldb.text());
        com.google.gson.JsonArray fromGdb = lastJsonLine(gdb.text());
        assertThat(fromLldb.get(0)).isEqualTo(fromGdb.get(0));
        assertThat(fromLldb.get(1)).isEqualTo(fromGdb.get(1));
        assertThat(fromLldb.get(2)).isEqualTo(fromGdb.get(2));
        com.google.gson.JsonArray gdbFiles = new com.google.gson.JsonArray();
        fromGdb.get(3).getAsJsonObject().getAsJsonArray("objfiles").forEach(file -> {
            String name = file.getAsJsonObject().get("filename").getAsString();
            if (name.startsWith("/") && !name.startsWith("/usr/lib/debug/")) {
                gdbFiles.add(file);
            }
        });
        assertThat(fromLldb.get(3).getAsJsonObject().getAsJsonArray("objfiles")).isEqualTo(gdbFiles);
    }

    private static com.google.gson.JsonArray lastJsonLine(String text) {
        String line = text.lines().filter(l -> l.startsWith("[{")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no answers in\n" + text));
        return com.google.gson.JsonParser.parseString(line).getAsJsonArray();
    }

    /** Without a target the command says what is missing in one line, as an LLDB error (no traceback, no hang). */
    @Test
    void withoutATargetTheCommandSaysSoInOneLine(@TempDir Path directory) {
        GdbDriver.Output lldb = run(List.of(), List.of("ompd threads"), Map.of(), directory);
        assertThat(lldb.exitCode()).as("%s", lldb.text()).isEqualTo(1); // LLDB's batch mode ends at a failed command
        assertThat(lldb.section("ompd threads").strip())
                .isEqualTo("error: jompd: no process: run the program, attach to one, or open a core file first");
    }

    /**
     * As in gdb (GdbBridgeIT): a cache others can write gets no class archive from the LLDB door either (the archive is
     * code the engine's JVM runs); said once, nothing written there, the answers the same.
     */
    @Test
    void aCacheOthersCanWriteGetsNoClassArchiveAndIsSaidOnce(@TempDir Path directory) throws IOException {
        Path shared = Files.createDirectories(directory.resolve("shared/jompd"));
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        StoppedFixture fixture = Fixtures.core(NESTED_2_3);
        GdbDriver.Output lldb = run(List.of("-c", fixture.core().toString(), fixture.executable().toString()),
                List.of("ompd threads", "ompd threads"), Map.of("XDG_CACHE_HOME", shared.getParent().toString()), directory);
        assertThat(lldb.exitCode()).as("%s", lldb.text()).isZero();
        String said = "jompd: not using the cache directory " + shared + ": " + shared + " can be written by its group "
                + "or others (mode 0777); the engine starts without its class archive";
        assertThat(lldb.text().lines().filter(line -> line.startsWith("jompd: not using")).toList()).isEqualTo(List.of(said));
        assertThat(lldb.section("ompd threads").replace(said + "\n", "")).isEqualTo(lldb.section("ompd threads#2"));
        try (var files = Files.list(shared)) {
            assertThat(files.toList()).as("written in the shared cache").isEmpty();
        }
    }

    // ---------------------------------------------------------------- driving LLDB

    /**
     * Selects LLDB's thread {@code number} as `thread select` does, but silently: LLDB prints `thread select`'s report
     * late at times, inside the next command's section.
     */
    private static String select(int number) {
        return "script _ = lldb.debugger.GetSelectedTarget().GetProcess().SetSelectedThreadByIndexID(" + number + ")";
    }

    /** LLDB's arguments that run {@code run}'s program to its marker. */
    private static List<String> launched(FixtureRun run) {
        Path executable = FixtureBuilder.executable(run.fixture(), run.runtimeVersion());
        return List.of(executable.toString(), "-o", "breakpoint set -n jompd_marker",
                "-o", "process launch -- " + String.join(" ", run.arguments()));
    }

    /** LLDB's number of each thread by its LWP, from its own `thread list`. */
    private static Map<Long, Integer> lldbNumbers(String threadList) {
        Map<Long, Integer> numbers = new HashMap<>();
        threadList.lines().map(LLDB_THREAD::matcher).filter(Matcher::find)
                .forEach(m -> numbers.put(Long.parseLong(m.group(2)), Integer.parseInt(m.group(1))));
        assertThat(numbers).as(threadList).isNotEmpty();
        return numbers;
    }

    /** The thread table's rows, each as its words. */
    private static List<List<String>> rows(String threads) {
        return threads.lines().skip(2).filter(line -> !line.isBlank()).takeWhile(line -> !line.startsWith("note:"))
                .map(line -> List.of(line.strip().split("\\s+"))).toList();
    }

    /**
     * Runs {@code lldb-19 --batch -Q} with {@code target} (core or program, and the commands that reach the stop),
     * loads jompd_lldb.py from the distribution, then runs {@code commands}, each after a marker line.
     */
    static GdbDriver.Output run(List<String> target, List<String> commands, Map<String, String> environment, Path directory) {
        Path script = GdbDriver.distribution().resolve("lldb/jompd_lldb.py");
        List<String> command = new ArrayList<>(List.of(LLDB, "--batch", "--no-lldbinit", "--source-quietly"));
        command.addAll(target);
        command.addAll(List.of("-o", "command script import " + script));
        for (String each : commands) {
            command.addAll(List.of("-o", "script print('" + GdbDriver.MARK + each + "')", "-o", each));
        }
        command.addAll(List.of("-o", "script print('" + GdbDriver.MARK + "end')"));
        try {
            Path log = Files.createTempFile(directory, "lldb-", ".log");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).directory(directory.toFile());
            builder.environment().putAll(environment);
            Process lldb = builder.start();
            if (!lldb.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                lldb.descendants().forEach(ProcessHandle::destroyForcibly);
                lldb.destroyForcibly();
                lldb.waitFor(10, TimeUnit.SECONDS);
                throw new IllegalStateException("lldb timed out after " + TIMEOUT + ":\n" + Files.readString(log));
            }
            String text = Files.readString(log);
            return new GdbDriver.Output(lldb.exitValue(), text, GdbDriver.sections(text));
        } catch (IOException e) {
            throw new UncheckedIOException("running lldb " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        return path != null && java.util.Arrays.stream(path.split(File.pathSeparator))
                .anyMatch(directory -> Files.isExecutable(Path.of(directory, program)));
    }
}
