package dev.jompd.gdb;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.cli.Jompd;
import dev.jompd.gdb.Stops.Backend;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StockRuntimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gdb bridge in real gdb, on every kind of target (core file, live process, attached process,
 * gdbserver on loopback), checked against what the fixture program recorded about itself; and LLVM's
 * reference plugin given the same commands on the same program, its answers recorded side by side
 * (never failing the test: it is known to be broken).
 */
class GdbBridgeIT {
    private static final FixtureRun NESTED_2_3 = FixtureRun.of(Fixture.NESTED, "2", "3");
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final Pattern THREAD_ROW = Pattern.compile(
            "^\\s*(\\*?)\\s*(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+([-\\d.]+)\\s+(\\S.*)$");
    private static final Map<String, String> SIDE_BY_SIDE = new LinkedHashMap<>();

    /** The commands of one scenario, in order; thread 3 is a worker on every backend. */
    static final List<String> SCENARIO = List.of(
            "python print('GDBTHREADS ' + ' '.join('%d:%d' % (t.num, t.ptid[1]) for t in gdb.selected_inferior().threads()))",
            "ompd init", "ompd threads", "thread 1", "bt", "ompd bt", "thread 3", "frame 1", "bt",
            "ompd parallel", "ompd tasks", "ompd icvs", "ompd tree all", "ompd json", "ompd bt", "ompd stacks",
            "thread", "frame", "python print('STATS', gdb._jompd_bridge.last_stats)");

    /** The reference plugin's equivalents. */
    static final List<String> REFERENCE_SCENARIO = List.of(
            "ompd init", "ompd threads", "thread 3", "ompd parallel", "ompd icvs", "ompd bt on", "bt");

    @ParameterizedTest
    @EnumSource(Backend.class)
    void everyCommandAgreesWithTheProgramsFacts(Backend backend, @TempDir Path directory) throws IOException {
        scenario(backend, NESTED_2_3, directory);
    }

    @Test
    void sixteenThreadsInFourTeamsOfACoreAgreeWithTheFacts(@TempDir Path directory) throws IOException {
        // The shape on which LLVM's libompd is known to crash gdb (ompd-facts.md).
        scenario(Backend.CORE, FixtureRun.of(Fixture.NESTED, "4", "4"), directory);
    }

    /**
     * Debian's own libomp5-19, stripped as distributions ship it: every command answers through the
     * runtime profile, on a core and on a live process, as the program recorded itself.
     */
    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"CORE", "LIVE"})
    void debiansStrippedRuntimeAnswersEveryCommandThroughItsProfile(Backend backend, @TempDir Path directory)
            throws IOException {
        scenario(backend, StockRuntimes.onDebian(NESTED_2_3, 19), directory);
    }

    /**
     * Where the picture is thinnest — Debian's stripped libomp read through its profile, without OMP_DEBUG — every
     * command answers in words: no OMPD return code anywhere in gdb's output, and the missing OMP_DEBUG said once
     * under ompd threads with what to set.
     */
    @Test
    void noReturnCodeReachesTheUserOnAThinPicture(@TempDir Path directory) throws IOException {
        FixtureRun run = StockRuntimes.onDebian(NESTED_2_3, 19).withEnvironment("OMP_DEBUG", "disabled");
        GdbDriver.Output output;
        try (Stops.Stop stop = Stops.at(Backend.CORE, run, directory)) {
            List<String> commands = new ArrayList<>(SCENARIO);
            commands.add("ompd icvs place-partition-var");
            output = GdbDriver.run(GdbDriver.withBridge(stop.setup()), commands, stop.arguments(), stop.environment(),
                    directory, TIMEOUT);
        }
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        assertThat(output.text()).doesNotContain("ompd_rc");
        assertThat(output.section("ompd threads").lines().filter(line -> line.contains("OMP_DEBUG")).toList())
                .containsExactly("note: " + dev.jompd.report.OpenMpPicture.UNTRACKED_HINT);
    }

    private static void scenario(Backend backend, FixtureRun run, Path directory) throws IOException {
        GdbDriver.Output output;
        Facts facts;
        try (Stops.Stop stop = Stops.at(backend, run, directory)) {
            output = GdbDriver.run(GdbDriver.withBridge(stop.setup()), SCENARIO, stop.arguments(),
                    stop.environment(), directory, TIMEOUT);
            Files.writeString(directory.resolve("gdb.log"), output.text());
            facts = stop.facts();
        }
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        Map<Long, Integer> gdbNumbers = gdbNumbers(output.section(SCENARIO.getFirst()));
        assertThat(output.section("ompd init")).contains("OMPD is ready for " + backend.backendPrefix);

        checkThreads(output.section("ompd threads"), facts, gdbNumbers, backend);
        checkParallel(output.section("ompd parallel"), facts);
        checkTasks(output.section("ompd tasks"), output.section("bt#2"), facts);
        checkIcvs(output.section("ompd icvs"), facts);
        checkTree(output.section("ompd tree all"), facts);
        checkBacktraces(output, facts);
        checkJson(output.section("ompd json"), facts);
        checkStacks(output.section("ompd stacks"), output.section("ompd threads"), facts);
        // The bridge left gdb's selection alone.
        assertThat(output.section("thread")).contains("Current thread is 3 ");
        assertThat(output.section("frame")).startsWith("#1 ");
        assertThat(output.section(SCENARIO.getLast())).contains("'backend': '" + backend.backendPrefix);

        recordReference(backend, run, directory, "jompd: " + facts.threadCount() + "/"
                + facts.threadCount() + " threads identified, all commands answered");
    }

    /**
     * A cache others can write (a shared XDG_CACHE_HOME): the engine's class archive is code its JVM runs, so the
     * bridge starts the engine without one there, writes nothing in it, and says so once.
     */
    @Test
    void aCacheOthersCanWriteGetsNoClassArchiveAndIsSaidOnce(@TempDir Path directory) throws IOException {
        Path shared = Files.createDirectories(directory.resolve("shared/jompd"));
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4"));
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("ompd threads", "ompd threads"),
                List.of(fixture.executable().toString(), fixture.core().toString()),
                Map.of("XDG_CACHE_HOME", shared.getParent().toString()), directory, TIMEOUT);
        String said = "jompd: not using the cache directory " + shared + ": " + shared + " can be written by its group "
                + "or others (mode 0777); the engine starts without its class archive";
        // said as the engine starts, before the first answer; the second command's answer is the same, unsaid
        assertThat(output.section("ompd threads")).isEqualTo(said + "\n" + output.section("ompd threads#2"));
        assertThat(output.section("ompd threads#2")).startsWith("16 OpenMP threads of 16 threads in core:");
        assertThat(output.text().lines().filter(line -> line.startsWith("jompd: not using")).toList())
                .isEqualTo(List.of(said));
        try (var files = Files.list(shared)) {
            assertThat(files.toList()).as("written in the shared cache").isEmpty();
        }
    }

    @Test
    void jsonIsTheSameDocumentTheCommandLinePrints(@TempDir Path directory) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4"));
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("ompd json"),
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory, TIMEOUT);
        // gdb names the core by its real path (the file it holds open): so does the command line here.
        String core;
        try {
            core = fixture.core().toRealPath().toString();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        PrintStream stdout = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int exitCode;
        try {
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            exitCode = Jompd.run("inspect", "--core", core, "--exe", fixture.executable().toString(), "--json");
        } finally {
            System.setOut(stdout);
        }
        assertThat(exitCode).isZero();
        assertThat(output.section("ompd json").strip()).isEqualTo(printed.toString(StandardCharsets.UTF_8).strip());
    }

    /**
     * The program in serial code — before its first parallel region, and back in {@code main} after one — has
     * only its initial task, which runs every frame of the primary thread: {@code ompd bt} marks all of gdb's
     * frames (the same frames, the same lines) as the initial task's, and with {@code ompd bt on} gdb's own
     * {@code bt} shows each of them as LLVM's plugin names a kept frame. Before, the initial task, which has
     * no OMPT frames then, owned none: every frame was "[OpenMP runtime]" and the filtered {@code bt} printed
     * nothing.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"before", "after"})
    void inSerialCodeEveryFrameIsTheInitialTasksAndBtKeepsThemAll(String when, @TempDir Path directory) {
        FixtureRun run = when.equals("after") ? FixtureRun.of(Fixture.SERIAL, "3", "after") : FixtureRun.of(Fixture.SERIAL, "3");
        StoppedFixture fixture = Fixtures.core(run);
        List<String> commands = List.of("bt", "ompd bt", "ompd bt on", "bt", "ompd bt off", "bt");
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), commands,
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory, TIMEOUT);
        assertThat(output.exitCode()).as(output.text()).isZero();
        List<String> gdbFrames = output.section("bt").lines().filter(l -> l.startsWith("#")).toList();
        assertThat(gdbFrames).as(output.text()).isNotEmpty();
        assertThat(gdbFrames.getLast()).as("gdb's outermost frame").contains(" in main (");

        // ompd bt: one label, the initial task's, over each of gdb's frames (function and where it is)
        List<String> marked = output.section("ompd bt").lines().filter(l -> !l.isBlank()).toList();
        assertThat(marked.get(1)).as(output.section("ompd bt")).matches(
                "\\[initial task t\\d+ 0x\\p{XDigit}+ in level 0 \\(implicit parallel region of the initial task\\)]");
        assertThat(marked.subList(2, marked.size()).stream().map(GdbBridgeIT::withoutArguments).toList())
                .as(output.section("ompd bt"))
                .isEqualTo(gdbFrames.stream().map(GdbBridgeIT::withoutArguments).toList());

        // bt through the filter: each of gdb's frames, named as a kept frame of thread 1
        List<String> filtered = output.section("bt#2").lines().filter(l -> l.startsWith("#")).toList();
        assertThat(filtered).as(output.text()).isEqualTo(gdbFrames.stream()
                .map(l -> l.replaceFirst("^(#\\d+\\s+(?:0x\\p{XDigit}+ in )?)", "$1@thread 1: ")).toList());
        assertThat(output.section("bt#3").lines().filter(l -> l.startsWith("#")).toList()).isEqualTo(gdbFrames);
    }

    /** {@code #2 0x… in main () at serial.c:66} from gdb's {@code #2  0x… in main (argc=3, argv=…) at …} or ompd bt's frame line. */
    private static String withoutArguments(String frame) {
        String text = frame.strip().replaceAll("\\s+", " ");
        Matcher call = Pattern.compile("^(#\\d+ )(?:0x\\p{XDigit}+ in )?(\\S+) \\(.*?\\)( at .*)?$").matcher(text);
        return call.matches() ? call.group(1) + call.group(2) + "()" + (call.group(3) == null ? "" : call.group(3)) : text;
    }

    @Test
    void cachesAreDroppedWhenTheInferiorRunsAndAnswersStayRight(@TempDir Path directory) {
        List<String> commands = List.of("ompd threads", "python print('STATS', gdb._jompd_bridge.last_stats)",
                "finish", "ompd threads", "python print('STATS', gdb._jompd_bridge.last_stats)");
        GdbDriver.Output output;
        Facts facts;
        try (Stops.Stop stop = Stops.at(Backend.LIVE, NESTED_2_3, directory)) {
            output = GdbDriver.run(GdbDriver.withBridge(stop.setup()), commands, stop.arguments(), stop.environment(),
                    directory, TIMEOUT);
            facts = stop.facts();
        }
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        assertThat(output.section("finish")).contains("fx_write_facts_and_mark");
        List<String> stats = output.text().lines().filter(l -> l.startsWith("STATS ")).toList();
        assertThat(stats).hasSize(2);
        assertThat(stats.get(0)).contains("'resumes': 0");
        assertThat(stats.get(1)).doesNotContain("'resumes': 0"); // the engine saw gdb resume and stop
        // after the resume: one row per recorded thread, no other, each with the program's number, level, team, path
        String second = output.section("ompd threads#2");
        Map<Long, String> rows = new HashMap<>();
        second.lines().map(THREAD_ROW::matcher).filter(Matcher::matches).forEach(row -> assertThat(rows.put(
                Long.parseLong(row.group(3)), row.group(5) + " " + row.group(6) + " " + row.group(7) + " " + row.group(8)))
                .as("%s", second).isNull());
        Map<Long, String> recorded = new HashMap<>();
        facts.threads().forEach(thread -> recorded.put(thread.lwp(), thread.threadNum() + " " + thread.level() + " "
                + thread.teamSize() + " " + (thread.teamPath().isEmpty() ? "-" : thread.teamPath())));
        assertThat(rows).as("%s", second).isEqualTo(recorded);
    }

    @Test
    void withoutThreadHandlesPthreadIdsComeFromFsBaseAndTheSelectionIsRestored(@TempDir Path directory) {
        List<String> commands = List.of("thread 3", "frame 1", "ompd threads", "thread", "frame");
        GdbDriver.Output output;
        Facts facts;
        try (Stops.Stop stop = Stops.at(Backend.LIVE, NESTED_2_3, directory)) {
            Map<String, String> environment = new HashMap<>(stop.environment());
            environment.put("JOMPD_GDB_NO_THREAD_HANDLES", "1");
            output = GdbDriver.run(GdbDriver.withBridge(stop.setup()), commands, stop.arguments(), environment,
                    directory, TIMEOUT);
            facts = stop.facts();
        }
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        checkThreads(output.section("ompd threads"), facts, null, Backend.LIVE);
        assertThat(output.section("thread")).contains("Current thread is 3 ");
        assertThat(output.section("frame")).startsWith("#1 ");
    }

    @Test
    void aLocalProcessWhoseMemoryTheEngineMayNotReadIsReadThroughGdb(@TempDir Path directory) {
        List<String> commands = List.of("ompd threads", "thread 3", "ompd parallel",
                "python print('STATS', gdb._jompd_bridge.last_stats)");
        GdbDriver.Output output;
        Facts facts;
        try (Stops.Stop stop = Stops.at(Backend.LIVE, NESTED_2_3, directory)) {
            Map<String, String> environment = new HashMap<>(stop.environment());
            environment.put("JOMPD_GDB_MEMORY_VIA_GDB", "1");
            output = GdbDriver.run(GdbDriver.withBridge(stop.setup()), commands, stop.arguments(), environment,
                    directory, TIMEOUT);
            facts = stop.facts();
        }
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        assertThat(output.section("ompd threads")).contains(" in gdb:pid:");
        checkParallel(output.section("ompd parallel"), facts);
        assertThat(output.section(commands.getLast())).contains("'backend': 'gdb:pid:");
    }

    @Test
    void withoutJavaGdbSaysWhatToSetInOneLineAndKeepsWorking(@TempDir Path directory) {
        StoppedFixture fixture = Fixtures.core(NESTED_2_3);
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("ompd threads", "print 6*7"),
                List.of(fixture.executable().toString(), fixture.core().toString()),
                Map.of("JOMPD_JAVA", "/nonexistent/bin/java"), directory, TIMEOUT);
        assertThat(output.exitCode()).isZero();
        assertThat(output.section("ompd threads").strip())
                .isEqualTo("jompd: JOMPD_JAVA=/nonexistent/bin/java is not a Java 25 or newer: point it at a JDK 25's bin/java");
        assertThat(output.section("print 6*7")).contains("= 42");
    }

    @Test
    void withoutTheEngineGdbSaysWhereToFindItAndKeepsWorking(@TempDir Path directory) throws IOException {
        Path lonely = Files.copy(GdbDriver.bridgeScript(), directory.resolve("jompd.py"), StandardCopyOption.REPLACE_EXISTING);
        StoppedFixture fixture = Fixtures.core(NESTED_2_3);
        List<String> setup = List.of("-x", lonely.toString());
        GdbDriver.Output output = GdbDriver.run(setup, List.of("ompd threads", "print 6*7"),
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of("JOMPD_HOME", directory.resolve("none").toString()),
                directory, TIMEOUT);
        assertThat(output.exitCode()).isZero();
        assertThat(output.section("ompd threads").strip()).startsWith("jompd: cannot find the jompd engine")
                .contains("JOMPD_HOME").doesNotContain("\n");
        assertThat(output.section("print 6*7")).contains("= 42");
    }

    /**
     * The .deb's /etc/gdb/gdbinit.d/jompd.py sources the bridge from Python (gdb.execute("source ...")). gdb
     * sets __file__ only when it is unset, so the bridge then sees the loader's name there, and looked for its
     * engine (and its Java runtime) beside the loader. Here the loader lives in a directory of its own and
     * nothing (no JOMPD_HOME) points at the distribution: the bridge must find its engine beside itself.
     */
    @Test
    void sourcedByAnotherPythonScriptTheBridgeFindsItsEngineBesideItself(@TempDir Path directory) throws IOException {
        Path loader = Files.createDirectories(directory.resolve("etc/gdb/gdbinit.d")).resolve("jompd.py");
        Files.writeString(loader, "import gdb\ngdb.execute(\"source " + GdbDriver.bridgeScript() + "\")\n");
        StoppedFixture fixture = Fixtures.core(NESTED_2_3);
        List<String> commands = List.of(SCENARIO.getFirst(), "ompd threads");
        GdbDriver.Output output = GdbDriver.run(List.of("-x", loader.toString()), commands,
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory, TIMEOUT);
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        checkThreads(output.section("ompd threads"), fixture.facts(), gdbNumbers(output.section(SCENARIO.getFirst())),
                Backend.CORE);
    }

    /**
     * The JVM's log writes its warnings to stdout by default, the engine's JSON pipe: an archive that is not one
     * (here given by JOMPD_JAVA_OPTIONS; a damaged or foreign one in the cache does the same) made the engine's
     * first line "[warning][cds] ...", and the bridge's JSON parser failed on it. The engine logs to stderr.
     */
    @Test
    void theJvmsWarningsStayOffTheEnginesPipe(@TempDir Path directory) throws IOException {
        Path notAnArchive = Files.writeString(directory.resolve("not-an-archive.jsa"), "not a class-data archive\n");
        StoppedFixture fixture = Fixtures.core(NESTED_2_3);
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of(SCENARIO.getFirst(), "ompd threads"),
                List.of(fixture.executable().toString(), fixture.core().toString()),
                Map.of("JOMPD_NO_CDS", "1", "JOMPD_JAVA_OPTIONS", "-Xshare:auto -XX:SharedArchiveFile=" + notAnArchive),
                directory, TIMEOUT);
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        assertThat(output.text()).doesNotContain("skipped a line from the engine");
        checkThreads(output.section("ompd threads"), fixture.facts(), gdbNumbers(output.section(SCENARIO.getFirst())),
                Backend.CORE);
    }

    /**
     * Whatever else reaches the engine's stdout (a library's stray print, a JVM message), the bridge skips lines
     * that are not protocol messages, with a note on stderr, and the answer is whole. The engine is the real one
     * behind a "java" that puts two stray lines (one not JSON, one JSON but not an object) before each of its
     * lines: the hello, every question to gdb and the reply.
     */
    @Test
    void strayLinesOnTheEnginesPipeAreSkippedWithANote(@TempDir Path directory) throws IOException {
        Path jdk = Files.createDirectories(directory.resolve("stray-jdk/bin")).getParent();
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"25\"\n");
        Path strayJava = Files.writeString(jdk.resolve("bin/java"), """
                #!/usr/bin/env python3
                import os, subprocess, sys
                engine = subprocess.Popen([os.environ["JOMPD_TEST_REAL_JAVA"]] + sys.argv[1:], stdout=subprocess.PIPE)
                for line in iter(engine.stdout.readline, b""):
                    sys.stdout.buffer.write(b"a stray line, not JSON\\n42\\n" + line)
                    sys.stdout.buffer.flush()
                sys.exit(engine.wait())
                """);
        Files.setPosixFilePermissions(strayJava, PosixFilePermissions.fromString("rwxr-xr-x"));
        String realJava = ProcessHandle.current().info().command().orElseThrow();
        StoppedFixture fixture = Fixtures.core(NESTED_2_3);
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of(SCENARIO.getFirst(), "ompd threads"),
                List.of(fixture.executable().toString(), fixture.core().toString()),
                Map.of("JOMPD_JAVA", strayJava.toString(), "JOMPD_TEST_REAL_JAVA", realJava), directory, TIMEOUT);
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        String threads = output.section("ompd threads");
        checkThreads(threads, fixture.facts(), gdbNumbers(output.section(SCENARIO.getFirst())), Backend.CORE);
        List<String> notes = threads.lines().filter(l -> l.startsWith("jompd: skipped")).distinct().toList();
        assertThat(notes).containsExactlyInAnyOrder(
                "jompd: skipped a line from the engine that is not a protocol message: a stray line, not JSON",
                "jompd: skipped a line from the engine that is not a protocol message: 42");
    }

    @Test
    void withoutAProcessOrWithoutOpenMpTheAnswerSaysSo(@TempDir Path directory) {
        GdbDriver.Output noProcess = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("ompd threads"),
                List.of("/bin/true"), Map.of(), directory, TIMEOUT);
        assertThat(noProcess.section("ompd threads")).contains("jompd: no process");
        GdbDriver.Output notOpenMp = GdbDriver.run(GdbDriver.withBridge(List.of("-ex", "starti")), List.of("ompd threads"),
                List.of("/bin/true"), Map.of(), directory, TIMEOUT);
        // said once, in words: no OMPD return code (it had been there twice)
        assertThat(notOpenMp.section("ompd threads").strip()).matches("jompd: process \\d+ has no OpenMP runtime loaded "
                + "\\(no libomp among its modules: a program without OpenMP, or one that has not loaded it yet\\)");
    }

    @Test
    void helpOmpdDocumentsEveryCommand(@TempDir Path directory) {
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("help ompd", "help ompd icvs"),
                List.of(), Map.of(), directory, TIMEOUT);
        for (String command : List.of("init", "threads", "parallel", "icvs", "tasks", "tree", "bt", "json")) {
            assertThat(output.section("help ompd")).contains("ompd " + command + " -- ");
        }
        assertThat(output.section("help ompd icvs")).contains("Usage: ompd icvs [address_space|thread|parallel|task|ICV-NAME]");
    }

    // ---------------------------------------------------------------- checks against the facts

    static Map<Long, Integer> gdbNumbers(String section) {
        Map<Long, Integer> numbers = new HashMap<>();
        String line = section.lines().filter(l -> l.startsWith("GDBTHREADS ")).findFirst().orElseThrow();
        for (String pair : line.substring("GDBTHREADS ".length()).trim().split("\\s+")) {
            String[] parts = pair.split(":");
            numbers.put(Long.parseLong(parts[1]), Integer.parseInt(parts[0]));
        }
        return numbers;
    }

    static void checkThreads(String section, Facts facts, Map<Long, Integer> gdbNumbers, Backend backend) {
        checkThreads(section, facts, gdbNumbers, backend.backendPrefix);
    }

    /** As above, the backend named by the prefix of its name ("lldb:pid:" when read through LLDB). */
    static void checkThreads(String section, Facts facts, Map<Long, Integer> gdbNumbers, String backendPrefix) {
        assertThat(section).contains(facts.threadCount() + " OpenMP threads of ").contains(" in " + backendPrefix);
        Map<Long, Matcher> rows = new HashMap<>();
        section.lines().forEach(line -> {
            Matcher row = THREAD_ROW.matcher(line);
            if (row.matches()) {
                rows.put(Long.parseLong(row.group(3)), row);
            }
        });
        assertThat(rows).as("%s", section).hasSize(facts.threadCount());
        for (Facts.ThreadFacts thread : facts.threads()) {
            Matcher row = rows.get(thread.lwp());
            assertThat(row).as("%s", thread + " in\n" + section).isNotNull();
            if (gdbNumbers != null) {
                assertThat(Integer.parseInt(row.group(2))).as("%s", thread + " gdb number").isEqualTo(gdbNumbers.get(thread.lwp()));
            }
            assertThat(Integer.parseInt(row.group(5))).as("%s", thread + " thread number").isEqualTo(thread.threadNum());
            assertThat(Integer.parseInt(row.group(6))).as("%s", thread + " level").isEqualTo(thread.level());
            assertThat(Integer.parseInt(row.group(7))).as("%s", thread + " team size").isEqualTo(thread.teamSize());
            assertThat(row.group(8)).as("%s", thread + " team path").isEqualTo(thread.teamPath().isEmpty() ? "-"
                    : thread.teamPath());
            // every thread is in its innermost region's code (the marker or the gate): working, waiting on nothing
            assertThat(row.group(9)).as("%s", thread + " state").isEqualTo("work_parallel");
        }
    }

    /** The thread the section is about, by the LWP in its first line ("Thread 3 (LWP 1234), OpenMP thread 1 ..."). */
    static Facts.ThreadFacts subject(String section, Facts facts) {
        Matcher header = Pattern.compile("[Tt]hread (\\d+) \\(LWP (\\d+)\\), OpenMP thread (\\d+) \\(gtid (\\d+)\\)").matcher(section);
        assertThat(header.find()).as("%s", section).isTrue();
        Facts.ThreadFacts thread = facts.threadWithLwp(Long.parseLong(header.group(2))).orElseThrow();
        assertThat(Integer.parseInt(header.group(3))).as("%s", thread + " thread number").isEqualTo(thread.threadNum());
        return thread;
    }

    static void checkParallel(String section, Facts facts) {
        Facts.ThreadFacts thread = subject(section, facts);
        List<String> regions = section.lines().filter(l -> l.startsWith("level ")).toList();
        assertThat(regions).as("%s", section).hasSize(thread.level() + 1);
        Map<Integer, Integer> memberNumbers = new HashMap<>();
        int level = -1;
        for (String line : section.lines().toList()) {
            Matcher region = Pattern.compile("^level (\\d+)").matcher(line);
            if (region.find()) {
                level = Integer.parseInt(region.group(1));
                continue;
            }
            Matcher member = Pattern.compile("^\\s+thread (\\d+) .*<- this thread").matcher(line);
            if (member.find()) {
                memberNumbers.put(level, Integer.parseInt(member.group(1)));
            }
        }
        for (int at = thread.level(); at >= 1; at--) {
            int index = thread.level() - at;
            assertThat(regions.get(index)).as("%s", section).startsWith("level " + at + " region, team of " + thread.teamSizes().get(at - 1));
            assertThat(memberNumbers.get(at)).as("%s", thread + " number at level " + at + " in\n" + section)
                    .isEqualTo(thread.ancestors().get(at - 1));
        }
        assertThat(regions.getLast()).startsWith("level 0 ");
    }

    /**
     * The thread's task chain, line by line: at each level its implicit task, running the region's outlined function
     * (its name as gdb's {@code bt} of the thread names it, its line the program's own {@code #pragma omp parallel}),
     * executing at the innermost level and suspended below it; then the initial task.
     */
    static void checkTasks(String section, String gdbBacktrace, Facts facts) {
        Facts.ThreadFacts thread = subject(section, facts);
        List<String> outlined = gdbBacktrace.lines().map(Pattern.compile("^#\\d+\\s+(?:0x\\p{XDigit}+ in )?(\\S+\\.omp_outlined) \\(")::matcher)
                .filter(Matcher::find).map(m -> m.group(1)).toList();
        // nested.c has one parallel construct (region() recurses into it): every level's implicit task runs its function
        assertThat(outlined).as("gdb's outlined frames\n%s", gdbBacktrace).isNotEmpty().containsOnly(outlined.getFirst());
        int pragma = dev.jompd.testkit.SourceLines.lineOf(dev.jompd.testkit.Fixture.NESTED, "nested.c",
                "#pragma omp parallel num_threads(sizes[depth])");
        List<String> expected = new ArrayList<>();
        for (int at = thread.level(); at >= 1; at--) {
            expected.add("#" + (thread.level() - at) + "  implicit task t\\d+ 0x\\p{XDigit}+  " + Pattern.quote(outlined.getFirst()
                    + " (nested.c:" + pragma + "), " + (at == thread.level() ? "executing" : "suspended") + "  in level " + at
                    + " region, team of " + thread.teamSizes().get(at - 1)));
        }
        expected.add("#" + thread.level() + "  initial task t\\d+ 0x\\p{XDigit}+, suspended  "
                + Pattern.quote("in level 0 (implicit parallel region of the initial task)"));
        List<String> tasks = section.lines().filter(l -> l.startsWith("#")).toList();
        assertThat(tasks).as("%s", section).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(tasks.get(i)).as("%s", section).matches(expected.get(i));
        }
    }

    static void checkIcvs(String section, Facts facts) {
        Facts.ThreadFacts thread = subject(section, facts);
        assertThat(section).containsPattern("levels-var\\s+" + thread.level() + "\n")
                .containsPattern("team-size-var\\s+" + thread.teamSize() + "\n")
                .containsPattern("thread-num-var\\s+" + thread.threadNum() + "\n")
                .containsPattern("debug-var\\s+true\n")
                .containsPattern("num-procs-var\\s+" + facts.number("icv.num_procs") + "\n");
    }

    static void checkTree(String section, Facts facts) {
        checkTree(section, facts, "gdb");
    }

    /** As above, the threads named by {@code debugger}'s numbers. */
    static void checkTree(String section, Facts facts, String debugger) {
        for (Facts.ThreadFacts thread : facts.threads()) {
            assertThat(section).containsPattern("thread " + thread.threadNum() + "  " + debugger + " \\d+  LWP " + thread.lwp() + " ");
        }
        assertThat(section.lines().filter(l -> l.trim().startsWith("thread ")).count()).isEqualTo(facts.threadCount());
        assertThat(section).doesNotContain("Problems:");
    }

    /**
     * Parallel stacks on every backend (registers from the core, or from gdb for a process it holds): every
     * OpenMP thread unwound to its end, the marker thread's path ending in the marker, the others' in the
     * gate they wait at.
     */
    static void checkStacks(String section, String threadsSection, Facts facts) {
        assertThat(section).as(section).startsWith("Parallel stacks: " + facts.threadCount() + " OpenMP threads\n")
                .doesNotContain("stack cut short");
        // gtids by LWP, from the thread table (checked against the facts above)
        Map<Long, Long> gtidOfLwp = new HashMap<>();
        threadsSection.lines().map(THREAD_ROW::matcher).filter(Matcher::matches)
                .forEach(row -> gtidOfLwp.put(Long.parseLong(row.group(3)), Long.parseLong(row.group(4))));
        Facts.ThreadFacts marker = facts.thread((int) facts.number("marker_thread"));
        List<String> lines = section.lines().toList();
        // the marker's node holds exactly the thread that called it; the gate's nodes (one per path that leads
        // there: workers, primaries of nested teams) exactly all the others, each thread once
        assertThat(framesThreads(lines, "jompd_marker (fixture.c:", facts, gtidOfLwp)).as(section)
                .containsExactly(marker.lwp());
        assertThat(framesThreads(lines, "fx_gate_wait (fixture.c:", facts, gtidOfLwp)).as(section)
                .containsExactlyInAnyOrderElementsOf(facts.threads().stream().map(Facts.ThreadFacts::lwp)
                        .filter(lwp -> lwp != marker.lwp()).toList());
    }

    /** The LWPs of every node whose step names {@code frame}, node after node (a thread twice shows as such). */
    private static List<Long> framesThreads(List<String> lines, String frame, Facts facts, Map<Long, Long> gtidOfLwp) {
        List<Long> lwps = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(frame)) {
                lwps.addAll(nodeThreads(lines, i, facts, gtidOfLwp));
            }
        }
        return lwps;
    }

    /**
     * The LWPs of the node on line {@code index}: its threads are said on the first line at its depth from it on
     * ("[gtids 1-3, all …]", or one thread's name "[omp 0.1 · 2/4 · level 2 · …]"); its count ("3×") agrees.
     */
    private static List<Long> nodeThreads(List<String> lines, int index, Facts facts, Map<Long, Long> gtidOfLwp) {
        String frame = lines.get(index);
        int depth = lines.get(index).indexOf(lines.get(index).strip());
        int count = Integer.parseInt(lines.get(index).strip().replaceFirst("×.*", ""));
        for (int i = index; i < lines.size(); i++) {
            String line = lines.get(i);
            int here = line.indexOf(line.strip());
            assertThat(here).as("%s: a line deeper or as deep until its threads", frame).isGreaterThanOrEqualTo(depth);
            int bracket = line.lastIndexOf("   [");
            if (here != depth || bracket < 0) {
                continue;
            }
            String threads = line.substring(bracket + 4, line.length() - 1);
            List<Long> lwps;
            if (threads.startsWith("gtids ")) {
                List<Long> gtids = ranges(threads.substring(6).replaceFirst(",? all .*", ""));
                lwps = gtidOfLwp.entrySet().stream().filter(e -> gtids.contains(e.getValue())).map(Map.Entry::getKey).toList();
                assertThat(lwps).as(line).hasSize(gtids.size());
            } else {
                lwps = facts.threads().stream().filter(t -> threads.startsWith(threadName(t))).map(Facts.ThreadFacts::lwp).toList();
            }
            assertThat(lwps).as("%s: %d×", line, count).hasSize(count);
            return lwps;
        }
        throw new AssertionError("no threads said for " + frame);
    }

    /** How the picture names a thread of the facts, up to its state: {@code omp 0.1 · 2/4 · level 2}. */
    private static String threadName(Facts.ThreadFacts thread) {
        return "omp " + (thread.teamPath().isEmpty() ? "" : thread.teamPath() + " · ") + thread.threadNum() + "/" + thread.teamSize() + " · level " + thread.level();
    }

    /** {@code 1-3,5} as 1, 2, 3, 5. */
    private static List<Long> ranges(String text) {
        List<Long> values = new ArrayList<>();
        for (String part : text.split(",")) {
            String[] bounds = part.strip().split("-");
            for (long v = Long.parseLong(bounds[0]); v <= Long.parseLong(bounds[bounds.length - 1]); v++) {
                values.add(v);
            }
        }
        return values;
    }

    /**
     * The primary thread's backtrace (thread 1 calls the marker) and a worker's (thread 3): each has gdb's own
     * {@code bt} of the same stop as its frames, frame for frame (function, file, line), and its labels in the order
     * the thread's regions nest (the facts' team sizes): the primary's implicit task at each level, each called by
     * the runtime from the task of the level below, down to the initial task; the worker's implicit task, called by
     * the runtime's thread start.
     */
    static void checkBacktraces(GdbDriver.Output output, Facts facts) {
        String primary = output.section("ompd bt");
        String worker = output.section("ompd bt#2");
        assertThat(frameLines(primary)).as("%s", primary).isEqualTo(frameLines(output.section("bt")));
        assertThat(frameLines(worker)).as("%s", worker).isEqualTo(frameLines(output.section("bt#2")));
        checkBacktraceLabels(primary, worker, facts);
    }

    /** The labels of a primary thread's and a worker's {@code ompd bt}, in order, from the facts. */
    static void checkBacktraceLabels(String primary, String worker, Facts facts) {
        checkLabelSequence(primary, expectedLabels(subject(primary, facts)));
        checkLabels(primary);
        checkLabelSequence(worker, expectedLabels(subject(worker, facts)));
        checkLabels(worker);
    }

    /**
     * The labels of a thread's {@code ompd bt}, from the facts: its implicit task at each level, innermost first; where
     * it is its team's primary thread (number 0), the runtime called by the task of the level below, whose own frames
     * follow; where it is a worker, the runtime's thread start, and nothing below; under level 1's primary, the
     * initial task.
     */
    private static List<String> expectedLabels(Facts.ThreadFacts thread) {
        String initial = "initial task t\\d+ 0x\\p{XDigit}+ in level 0 \\(implicit parallel region of the initial task\\)";
        List<String> labels = new ArrayList<>();
        for (int at = thread.level(); at >= 1; at--) {
            labels.add("\\[implicit task t\\d+ 0x\\p{XDigit}+ in level " + at + " region, team of " + thread.teamSizes().get(at - 1) + "]");
            if (thread.ancestors().get(at - 1) != 0) {
                labels.add("\\[OpenMP runtime]");
                return labels;
            }
            labels.add("\\[OpenMP runtime, called by " + (at > 1 ? "implicit task t\\d+ 0x\\p{XDigit}+ in level " + (at - 1)
                    + " region, team of " + thread.teamSizes().get(at - 2) : initial) + "]");
        }
        labels.add("\\[" + initial + "]");
        return labels;
    }

    /** The frames of a backtrace (gdb's {@code bt}, or {@code ompd bt} without its labels) as number, function and place. */
    private static List<String> frameLines(String backtrace) {
        return backtrace.lines().map(String::strip).filter(l -> l.startsWith("#")).map(GdbBridgeIT::withoutArguments).toList();
    }

    /** The label lines of an {@code ompd bt}, in order, each matching its pattern. */
    private static void checkLabelSequence(String section, List<String> patterns) {
        List<String> labels = section.lines().filter(l -> l.startsWith("[")).toList();
        assertThat(labels).as("%s", section).hasSameSizeAs(patterns);
        for (int i = 0; i < patterns.size(); i++) {
            assertThat(labels.get(i)).as("%s", section).matches(patterns.get(i));
        }
    }

    /** Each frame lies under the label of the code it belongs to. */
    static void checkLabels(String section) {
        String label = null;
        for (String line : section.lines().toList()) {
            if (line.startsWith("[")) {
                label = line;
            } else if (line.contains(" in main ()")) {
                assertThat(label).as("%s", section).startsWith("[initial task t");
            } else if (line.contains(" in jompd_marker ()") || line.contains(" in innermost ()")) {
                assertThat(label).as("%s", section).startsWith("[implicit task t");
            } else if (line.contains(" in __kmp_invoke_microtask ()") || line.contains(" in __kmp_fork_call ()")
                    || line.contains(" in __kmp_launch_thread ()")) {
                assertThat(label).as("%s", section).startsWith("[OpenMP runtime");
            }
        }
    }

    static void checkJson(String section, Facts facts) {
        JsonObject report = JsonParser.parseString(section).getAsJsonObject();
        assertThat(report.get("schema").getAsString()).isEqualTo("jompd-inspect/1");
        Map<String, JsonObject> regions = new HashMap<>();
        report.getAsJsonArray("regions").forEach(r -> regions.put(r.getAsJsonObject().get("id").getAsString(), r.getAsJsonObject()));
        Map<Long, JsonObject> threads = new HashMap<>();
        for (JsonElement element : report.getAsJsonArray("threads")) {
            JsonObject thread = element.getAsJsonObject();
            threads.put(thread.get("lwp").getAsLong(), thread);
        }
        for (Facts.ThreadFacts thread : facts.threads()) {
            JsonObject json = threads.get(thread.lwp());
            assertThat(json).as("%s", thread.toString()).isNotNull();
            assertThat(json.get("threadNum").getAsInt()).isEqualTo(thread.threadNum());
            assertThat(regions.get(json.get("region").getAsString()).get("teamSize").getAsInt()).isEqualTo(thread.teamSize());
            assertThat(regions.get(json.get("region").getAsString()).get("level").getAsInt()).isEqualTo(thread.level());
        }
        assertThat(report.getAsJsonArray("problems")).isEmpty();
    }

    // ---------------------------------------------------------------- the reference, side by side

    /** Runs LLVM's plugin with the same commands on the same program; records what it said, never fails. */
    static void recordReference(Backend backend, FixtureRun run, Path directory, String jompdSummary) throws IOException {
        Path referenceDirectory = directory.resolve("reference");
        GdbDriver.Output output;
        Facts facts;
        try (Stops.Stop stop = Stops.at(backend, run, referenceDirectory)) {
            Map<String, String> environment = new HashMap<>(stop.environment());
            output = GdbDriver.run(GdbDriver.withReference(stop.setup()), REFERENCE_SCENARIO, stop.arguments(),
                    environment, referenceDirectory, TIMEOUT);
            facts = stop.facts();
        } catch (RuntimeException | AssertionError e) {
            SIDE_BY_SIDE.put(backend + " " + run, jompdSummary + " | reference: could not be run: " + e.getMessage());
            return;
        }
        Files.writeString(referenceDirectory.resolve("reference-gdb.log"), output.text());
        String summary = referenceSummary(output, facts);
        SIDE_BY_SIDE.put(backend + " " + run, jompdSummary + " | reference: " + summary);
        System.out.println("[side by side] " + backend + " " + run + ": " + jompdSummary + " | reference plugin: " + summary);
    }

    static String referenceSummary(GdbDriver.Output output, Facts facts) {
        int expectedThreads = facts.threadCount();
        List<String> notes = new ArrayList<>();
        String init = output.sections().getOrDefault("ompd init", "");
        notes.add(init.contains("Loaded OMPD lib successfully") ? "init ok" : "init failed (" + problem(init) + ")");
        String threads = output.sections().getOrDefault("ompd threads", "");
        long notOpenMp = threads.lines().filter(l -> l.contains("is no OpenMP thread")).count();
        notes.add("threads: " + (expectedThreads - Math.min(expectedThreads, notOpenMp)) + "/" + expectedThreads
                + " identified (" + notOpenMp + " reported as \"no OpenMP thread\")");
        String parallel = output.sections().getOrDefault("ompd parallel", "");
        List<String> regions = new ArrayList<>();
        Matcher region = Pattern.compile("Nesting Level (\\d+): Team Size: (\\d+)").matcher(parallel);
        while (region.find()) {
            regions.add("level " + region.group(1) + " team " + region.group(2));
        }
        List<String> expected = new ArrayList<>();
        List<Integer> sizes = facts.thread(0).teamSizes();
        for (int level = sizes.size(); level >= 1; level--) {
            expected.add("level " + level + " team " + sizes.get(level - 1));
        }
        notes.add("parallel: " + (regions.isEmpty() ? "nothing (" + problem(parallel) + ")"
                : regions + (regions.equals(expected) ? " (right)" : " (expected " + expected + ")")));
        String icvs = output.sections().getOrDefault("ompd icvs", "");
        long icvLines = icvs.lines().filter(l -> l.contains("-var")).count();
        notes.add("icvs: " + (icvLines > 0 ? icvLines + " values" : "nothing (" + problem(icvs) + ")"));
        String bt = output.sections().getOrDefault("bt", "");
        notes.add("bt: " + (bt.contains("#pragma omp") ? "annotated" : "not annotated"));
        if (output.crashed()) {
            String last = new ArrayList<>(output.sections().keySet()).getLast();
            notes.add("GDB CRASHED during `" + last + "` (exit " + output.exitCode() + ")");
        }
        return String.join("; ", notes);
    }

    /** The first error line of a section, else its first line. */
    private static String problem(String text) {
        return text.lines().filter(l -> l.contains("Exception") || l.contains("Error") || l.contains("rror:"))
                .findFirst().orElse(firstLine(text)).strip();
    }

    private static String firstLine(String text) {
        return text.strip().lines().findFirst().orElse("no output");
    }

    @AfterAll
    static void writeSideBySide() throws IOException {
        if (SIDE_BY_SIDE.isEmpty()) {
            return;
        }
        Path report = Path.of("target", "gdb-side-by-side.txt");
        StringBuilder text = new StringBuilder("# jompd's gdb bridge and LLVM's reference plugin, same commands, same program\n");
        SIDE_BY_SIDE.forEach((backend, line) -> text.append(backend).append(": ").append(line).append('\n'));
        Files.writeString(report, text, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        System.out.print(text);
    }
}
