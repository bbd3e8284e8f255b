package dev.jompd.gdb;

import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.SupportedRuntimes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LLVM's own OMPD test suite (openmp/libompd/test of each tested runtime's source, extracted by
 * scripts/build-runtime.sh; every tested version whose LLVM ships the reference plugin, from
 * SupportedRuntimes) run through the bridge, as its users run it with LLVM's plugin: each program
 * compiled with clang-19 against that version's OMPD-enabled libomp, its gdb command script run with jompd.py loaded
 * instead of the reference plugin, its FileCheck lines evaluated one by one ({@link FileChecks}) and, for
 * the file as a whole, by FileCheck-19 itself (the two verdicts must agree).
 *
 * <p>The suite's expectations are the reference plugin's wording; {@link #translate} restates the few that
 * name its output in jompd's words (each rule says what it maps), nothing else changes. Asserted: every
 * script's first command `ompd init` (before `run`) starts the program and reaches the point where OMPD is
 * ready; no CHECK-NOT of any test is violated; every check of ompd_bt.c (`ompd bt on|off`) and
 * ompd_icvs.c passes. The rest is reported in target/llvm-ompd-suite.txt: ompd_parallel.c's checks depend
 * on which thread reaches a breakpoint first (the suite marks it "REQUIRES: determinism") and name source
 * lines jompd's `ompd parallel` does not print; the api_tests call `ompdtestapi`, the reference's self-test
 * of its C library, which jompd does not have, so their CHECK-NOTs hold vacuously and are counted apart.
 */
class LlvmOmpdSuiteIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final Pattern RUN = Pattern.compile("^//\\s*RUN:(.*)$", Pattern.MULTILINE);
    private static final Pattern ENVIRONMENT = Pattern.compile("env((?:\\s+[A-Z_]+=\\S+)+)\\s+%gdb-(?:run|test|compile-and-run)");
    private static final Pattern COMMAND_FILE = Pattern.compile("-x\\s+(%S/\\S+|%s\\.cmd)");
    private static final String READY = "jompd: OMPD is ready for ";

    /** Per test: its directives' verdicts, and whether they are vacuous (the script relies on ompdtestapi). */
    private record Outcome(List<FileChecks.Verdict> verdicts, boolean vacuous, boolean fileCheckPassed,
                           List<FileChecks.Verdict> reference) {}

    private static final Map<String, Outcome> OUTCOMES = new ConcurrentSkipListMap<>();

    static Path suite() {
        return suite(Runtimes.DEFAULT_VERSION);
    }

    static Path suite(int version) {
        Runtimes.prefix(version); // builds (and extracts the sources) when missing
        Path suite = Runtimes.cacheDirectory().resolve("src/llvm-" + version + "/src/openmp/libompd/test");
        if (!Files.isRegularFile(suite.resolve("test.cmd"))) {
            throw new IllegalStateException("no LLVM OMPD test suite in " + suite + ": run scripts/build-runtime.sh "
                    + version + " with JOMPD_REBUILD=1 (it extracts openmp/ from the source package)");
        }
        if (!Commands.available("FileCheck-19") || !Commands.available("clang-19")) {
            throw new IllegalStateException("FileCheck-19 (Debian's llvm-19-tools) and clang-19 are needed: "
                    + "run scripts/setup-system.sh");
        }
        return suite;
    }

    @TestFactory
    Stream<DynamicContainer> everySuiteScriptRunsThroughTheBridge() {
        return SupportedRuntimes.testedWithReferencePlugin().map(version -> {
            try {
                return DynamicContainer.dynamicContainer("LLVM " + version, suiteOf(version));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /** The suite of LLVM {@code version}, on that version's runtime and beside that version's reference plugin. */
    private static Stream<DynamicTest> suiteOf(int version) throws IOException {
        Path suite = suite(version);
        Path work = Path.of("target", "llvm-ompd-suite", "llvm-" + version).toAbsolutePath();
        Files.createDirectories(work);
        List<Path> sources = new ArrayList<>();
        for (String directory : List.of("openmp_examples", "api_tests")) {
            try (Stream<Path> files = Files.list(suite.resolve(directory))) {
                files.filter(f -> f.toString().endsWith(".c")).sorted(Comparator.comparing(Path::toString)).forEach(sources::add);
            }
        }
        assertThat(sources).as("the suite's programs").hasSizeGreaterThan(40);
        return sources.stream().map(source -> DynamicTest.dynamicTest(
                suite.relativize(source).toString(), () -> runOne(version, suite, source, work)));
    }

    /**
     * `ompd init` in a program stopped at main, where libomp has not initialised OMPD yet: it says so and
     * arms the breakpoint; the next `continue` stops where OMPD is ready and `ompd init` then reports it.
     * And `ompd bt on` on the primary thread inside the region: gdb's `bt` keeps the user's frames (the
     * region's code and, below the runtime, main) and drops libomp's; `ompd bt off` brings them back.
     */
    @Test
    void initAtMainArmsTheReadyBreakpointAndTheBtFilterKeepsTheUsersFrames(@TempDir Path directory) throws IOException {
        Path suite = suite();
        Path source = suite.resolve("openmp_examples/ompd_bt.c");
        Path lib = Runtimes.libraryDirectory(Runtimes.DEFAULT_VERSION);
        Path executable = directory.resolve("ompd_bt");
        Commands.Result compiled = Commands.run(List.of("clang-19", "-fopenmp", "-g", "-gdwarf-4", source.toString(),
                "-o", executable.toString(), "-L", lib.toString(), "-Wl,-rpath," + lib), Map.of(), directory, TIMEOUT);
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of("-ex", "break main", "-ex", "run")),
                List.of("ompd init", "continue", "ompd init", "break ompd_bt.c:9 thread 1", "continue",
                        "ompd bt on", "bt", "ompd bt off", "bt"),
                List.of(executable.toString()), Map.of("OMP_DEBUG", "enabled", "OMP_NUM_THREADS", "3",
                        "JOMPD_HOME", GdbDriver.distribution().toString()), directory, TIMEOUT);
        Files.writeString(directory.resolve("gdb.log"), output.text());
        assertThat(output.section("ompd init")).as(output.text())
                .contains("libomp has not initialised its OMPD support yet")
                .contains("Temporary breakpoint 2 at").doesNotContain(READY);
        assertThat(output.section("continue")).contains("ompd_dll_locations_valid ()");
        assertThat(output.section("ompd init#2")).contains(READY);

        String filtered = output.section("bt");
        List<String> frames = filtered.lines().filter(l -> l.startsWith("#")).toList();
        assertThat(frames).as(filtered).isNotEmpty().noneMatch(l -> l.contains("__kmp"));
        assertThat(frames.getFirst()).as(filtered).contains("@thread 1: subdomain \"#pragma omp parallel\"");
        assertThat(filtered).contains("sub.omp_outlined").contains("@thread 1: main ()");
        String all = output.section("bt#2");
        assertThat(all).contains("__kmp_fork_call").contains(" subdomain (").contains(" main ()").doesNotContain("@thread");
        keptFramesAreGdbsOwn(frames, all);
    }

    /**
     * fibonacci.c stopped in its innermost task: that task runs at a taskwait of another task, which runs
     * at a taskwait ... of the implicit task; the tasks were often generated on another thread. With `ompd
     * bt on`, gdb's `bt` keeps every task's own frames down to the region's outlined function (and main on
     * the primary thread) and drops the runtime's in between; `ompd bt off` shows them all.
     */
    @Test
    void btFilterFollowsTheTasksRunAtTaskwaitsDownTheThreadsStack(@TempDir Path directory) throws IOException {
        Path suite = suite();
        Path source = suite.resolve("openmp_examples/fibonacci.c");
        Path lib = Runtimes.libraryDirectory(Runtimes.DEFAULT_VERSION);
        Path executable = directory.resolve("fibonacci");
        Commands.Result compiled = Commands.run(List.of("clang-19", "-fopenmp", "-g", "-gdwarf-4", source.toString(),
                "-o", executable.toString(), "-I", suite.toString(), "-L", lib.toString(), "-Wl,-rpath," + lib),
                Map.of(), directory, TIMEOUT);
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()),
                List.of("ompd init", "break ompd_tool_test", "continue", "ompd bt on", "bt", "ompd bt off", "bt"),
                List.of(executable.toString(), "7"), Map.of("OMP_DEBUG", "enabled", "OMP_NUM_THREADS", "3",
                        "JOMPD_HOME", GdbDriver.distribution().toString()), directory, TIMEOUT);
        Files.writeString(directory.resolve("gdb.log"), output.text());
        String filtered = output.section("bt");
        String all = output.section("bt#2");
        List<String> frames = filtered.lines().filter(l -> l.startsWith("#")).toList();
        assertThat(frames).as(output.text()).isNotEmpty().noneMatch(l -> l.contains("__kmp"));
        assertThat(frames.getFirst()).as(filtered).contains(": ompd_tool_test \"#pragma omp task\"");
        assertThat(filtered).as(filtered).contains(": fib \"#pragma omp task\"")
                .containsPattern(": main\\.omp_outlined \"#pragma omp parallel\"");
        assertThat(all).contains("__kmp_invoke_task").contains("main.omp_outlined (");
        keptFramesAreGdbsOwn(frames, all);
    }

    /** The filter drops, it does not invent: every frame it keeps is one of gdb's own, at its own level. */
    private static void keptFramesAreGdbsOwn(List<String> kept, String all) {
        for (String frame : kept) {
            String level = frame.substring(0, frame.indexOf(' '));
            String function = frame.replaceFirst("^.*@thread \\d+: (\\S+).*$", "$1");
            assertThat(all.lines().filter(l -> l.startsWith(level + " ")).findFirst().orElseThrow())
                    .as("%s among\n%s", frame, all).contains(" " + function + " (");
        }
    }

    private static void runOne(int version, Path suite, Path source, Path work) throws IOException {
        String name = "llvm-" + version + "/" + suite.relativize(source);
        String text = Files.readString(source);
        List<String> runLines = new ArrayList<>();
        Matcher run = RUN.matcher(text);
        while (run.find()) {
            runLines.add(run.group(1).strip());
        }
        String gdbLine = runLines.stream().filter(l -> l.contains("%gdb-run") || l.contains("%gdb-test")
                || l.contains("%gdb-compile-and-run")).findFirst()
                .orElseThrow(() -> new AssertionError(name + ": no gdb RUN line in " + runLines));
        Map<String, String> environment = new HashMap<>();
        Matcher env = ENVIRONMENT.matcher(gdbLine);
        if (env.find()) {
            for (String assignment : env.group(1).strip().split("\\s+")) {
                environment.put(assignment.substring(0, assignment.indexOf('=')), assignment.substring(assignment.indexOf('=') + 1));
            }
        }
        Path commands;
        Matcher x = COMMAND_FILE.matcher(gdbLine);
        if (x.find()) {
            commands = x.group(1).equals("%s.cmd") ? Path.of(source + ".cmd")
                    : source.getParent().resolve(x.group(1).substring("%S/".length()));
        } else {
            commands = suite.resolve("test.cmd"); // %gdb-run: the suite's common script
        }
        String script = Files.readString(commands);

        Path lib = Runtimes.libraryDirectory(version);
        Path executable = work.resolve(source.getFileName().toString().replace(".c", ""));
        Commands.Result compiled = Commands.run(List.of("clang-19", "-fopenmp", "-g", "-gdwarf-4", source.toString(),
                "-o", executable.toString(), "-I", suite.toString(), "-I", Runtimes.prefix(version).resolve("include").toString(),
                "-L", lib.toString(), "-Wl,-rpath," + lib), Map.of(), work, TIMEOUT);
        assertThat(compiled.exitCode()).as("%s: clang-19 says\n%s", name, compiled.output()).isZero();

        environment.put("OMP_DEBUG", "enabled");
        environment.put("LD_LIBRARY_PATH", lib.toString());
        // A program that dies by itself, with no debugger and no OMPD library, checks nothing of OMPD: LLVM 16's
        // ompt_plugin.h declares ompt_start_tool static, so the runtime never finds the tool, its OMPT entry
        // points stay NULL and every program calling ompd_tool_test jumps to address 0 (the reference's run
        // crashes the same way). Said as a skip with the signal, never counted as a pass.
        Commands.Result alone = Commands.run(List.of(executable.toString()), environment, work, TIMEOUT);
        Assumptions.assumeTrue(alone.exitCode() < 128, () -> name + " crashes by itself on libomp " + version
                + " (exit " + alone.exitCode() + ", signal " + (alone.exitCode() - 128) + ") without any debugger or OMPD "
                + "library: the program, not OMPD");
        environment.put("JOMPD_HOME", GdbDriver.distribution().toString());
        Commands.Result gdb = Commands.run(List.of("gdb", "-batch", "-nx", "-x", GdbDriver.bridgeScript().toString(),
                "-x", commands.toString(), executable.toString()), environment, work, TIMEOUT);
        String output = gdb.output();
        Path log = work.resolve(source.getFileName() + ".gdb.log");
        Files.writeString(log, output);

        List<FileChecks.Directive> directives = translate(FileChecks.parse(text, source.getFileName().toString()));
        List<FileChecks.Verdict> verdicts = FileChecks.evaluate(directives, output);
        boolean fileCheck = fileCheck(directives, log, work.resolve(source.getFileName() + ".checks"));
        boolean vacuous = script.contains("ompdtestapi");
        OUTCOMES.put(name, new Outcome(verdicts, vacuous, fileCheck,
                reference(version, text, source, commands, executable, environment, work)));

        // `ompd init` as the script's first command, before `run`: the program started and OMPD became ready.
        assertThat(output).as("%s (log %s)", name, log).contains(READY).doesNotContain("no process");
        // The scripts run to their end; an api_test's stops at its `ompdtestapi` line, which jompd lacks.
        assertThat(output.replace("Error in sourced command file:\nUndefined command: \"ompdtestapi\"", ""))
                .as("%s (log %s)", name, log).doesNotContain("Error in sourced command file");
        // Breakpoints set after `ompd init` are numbered from 3, as after the reference's (its `start` and
        // its stop where OMPD is ready take 1 and 2): the scripts' `d 3`, `d 4` rely on it.
        if (script.lines().anyMatch(l -> l.startsWith("b "))) {
            assertThat(output).as("%s (log %s)", name, log).containsPattern("(?m)^Breakpoint 3 at ");
            if (script.lines().anyMatch(l -> l.strip().equals("c"))) {
                assertThat(output).as("%s (log %s)", name, log).containsPattern("(?m)(hit |^)Breakpoint 3(\\.\\d+)?, ");
            }
        } else if (script.lines().anyMatch(l -> l.strip().equals("continue"))) { // test.cmd: on to the end
            assertThat(output).as("%s (log %s)", name, log).containsPattern("\\[Inferior 1 \\(process \\d+\\) exited normally\\]");
        }
        boolean allPassed = verdicts.stream().allMatch(FileChecks.Verdict::passed);
        assertThat(fileCheck).as("%s: FileCheck-19's verdict and ours (%s)", name, verdicts).isEqualTo(allPassed);
        for (FileChecks.Verdict verdict : verdicts) {
            if (verdict.directive().kind() == FileChecks.Kind.CHECK_NOT || name.endsWith("ompd_bt.c")
                    || name.endsWith("ompd_icvs.c")) {
                assertThat(verdict.passed()).as("%s: %s (%s; log %s)", verdict.directive().origin(),
                        verdict.directive().line(), verdict.why(), log).isTrue();
            }
        }
        if (vacuous) {
            assertThat(output).as(name).contains("Undefined command: \"ompdtestapi\"");
        }
    }

    /**
     * The same script with LLVM's reference plugin instead of jompd.py, its output checked against the
     * suite's own (untranslated) lines: recorded side by side, never asserted; empty if it cannot run.
     */
    private static List<FileChecks.Verdict> reference(int version, String text, Path source, Path commands, Path executable,
                                                      Map<String, String> bridgeEnvironment, Path work) {
        Map<String, String> environment = new HashMap<>(bridgeEnvironment);
        environment.remove("JOMPD_HOME");
        try {
            Commands.Result gdb = Commands.run(List.of("gdb", "-batch", "-nx", "-x", GdbDriver.referencePlugin(version).toString(),
                    "-x", commands.toString(), executable.toString()), environment, work, TIMEOUT);
            Files.writeString(work.resolve(source.getFileName() + ".reference.log"), gdb.output());
            return FileChecks.evaluate(FileChecks.parse(text, source.getFileName().toString()), gdb.output());
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** FileCheck-19 on the (translated) directives: whether it accepts the output. */
    private static boolean fileCheck(List<FileChecks.Directive> directives, Path output, Path checkFile) throws IOException {
        StringBuilder checks = new StringBuilder();
        directives.forEach(d -> checks.append(d.line()).append('\n'));
        Files.writeString(checkFile, checks);
        Commands.Result result = Commands.run(List.of("FileCheck-19", "--input-file=" + output, checkFile.toString()),
                Map.of(), null, TIMEOUT);
        return result.exitCode() == 0;
    }

    private static final Pattern NESTING = Pattern.compile("Nesting Level (\\d+): Team Size: (\\d+)");
    private static final Pattern ICV_ROW = Pattern.compile("([a-z-]+-var)\\s+(address_space|thread|parallel|task)\\s+(\\S+)");
    private static final List<String> SCOPE_ORDER = List.of("address_space", "thread", "parallel", "task");

    /**
     * The suite's expectations of the reference plugin's wording restated in jompd's:
     * <ul>
     * <li>"Loaded OMPD lib successfully!" (the plugin loaded libompd.so): jompd's "jompd: OMPD is ready for";
     * <li>"Nesting Level N: Team Size: M" (`ompd parallel`): jompd's "level N region, team of M";
     * <li>an ICV row "NAME SCOPE VALUE" (`ompd icvs`, one table): jompd's row "NAME VALUE" under its scope's
     *     heading; jompd prints the scopes in the order address_space, thread, parallel, task, so a run of
     *     consecutive rows is put in that order (the plugin's table lists task scope's run-sched-var first).
     * </ul>
     * Everything else (the CHECK-NOTs, `ompd bt on|off`'s messages, source locations) stays as written.
     */
    static List<FileChecks.Directive> translate(List<FileChecks.Directive> directives) {
        List<FileChecks.Directive> translated = new ArrayList<>();
        List<Map.Entry<String, FileChecks.Directive>> icvRun = new ArrayList<>();
        int previousLine = -2;
        for (FileChecks.Directive directive : directives) {
            int line = Integer.parseInt(directive.origin().substring(directive.origin().lastIndexOf(':') + 1));
            Matcher icv = ICV_ROW.matcher(directive.pattern());
            if (directive.kind() == FileChecks.Kind.CHECK && icv.matches()) {
                if (line != previousLine + 1) {
                    flush(icvRun, translated);
                }
                icvRun.add(Map.entry(icv.group(2), new FileChecks.Directive(directive.kind(),
                        "{{^ }}" + icv.group(1) + " " + icv.group(3) + "{{$}}", directive.origin())));
                previousLine = line;
                continue;
            }
            flush(icvRun, translated);
            previousLine = line;
            String pattern = directive.pattern();
            Matcher nesting = NESTING.matcher(pattern);
            if (pattern.equals("Loaded OMPD lib successfully!")) {
                pattern = READY.strip();
            } else if (nesting.matches()) {
                pattern = "level " + nesting.group(1) + " region, team of " + nesting.group(2);
            }
            translated.add(new FileChecks.Directive(directive.kind(), pattern, directive.origin()));
        }
        flush(icvRun, translated);
        return translated;
    }

    private static void flush(List<Map.Entry<String, FileChecks.Directive>> icvRun, List<FileChecks.Directive> translated) {
        icvRun.sort(Comparator.comparingInt(e -> SCOPE_ORDER.indexOf(e.getKey()))); // stable: rows of a scope keep their order
        icvRun.forEach(e -> translated.add(e.getValue()));
        icvRun.clear();
    }

    @AfterAll
    static void report() throws IOException {
        if (OUTCOMES.isEmpty()) {
            return;
        }
        int checks = 0;
        int passed = 0;
        int vacuousChecks = 0;
        int filesPassed = 0;
        int referenceChecks = 0;
        int referencePassedCount = 0;
        int agree = 0;
        List<String> onlyReference = new ArrayList<>();
        List<String> referenceFailures = new ArrayList<>();
        StringBuilder details = new StringBuilder();
        Map<String, String> failures = new LinkedHashMap<>();
        for (Map.Entry<String, Outcome> entry : OUTCOMES.entrySet()) {
            Outcome outcome = entry.getValue();
            filesPassed += outcome.fileCheckPassed() ? 1 : 0;
            Map<String, FileChecks.Verdict> reference = new HashMap<>();
            outcome.reference().forEach(v -> reference.put(v.directive().origin(), v));
            for (FileChecks.Verdict verdict : outcome.verdicts()) {
                FileChecks.Verdict theirs = reference.get(verdict.directive().origin());
                if (theirs != null) {
                    referenceChecks++;
                    referencePassedCount += theirs.passed() ? 1 : 0;
                    if (!theirs.passed()) {
                        referenceFailures.add(theirs.directive().origin() + "  " + theirs.directive().line() + "  -- " + theirs.why());
                    }
                    if (verdict.passed() || !theirs.passed()) {
                        agree++;
                    } else {
                        onlyReference.add(verdict.directive().origin() + "  " + theirs.directive().line());
                    }
                }
                if (outcome.vacuous()) {
                    vacuousChecks++;
                    continue;
                }
                checks++;
                passed += verdict.passed() ? 1 : 0;
                if (!verdict.passed()) {
                    failures.put(verdict.directive().origin(), verdict.directive().line() + "  -- " + verdict.why());
                }
            }
            details.append(entry.getKey()).append(": ").append(outcome.fileCheckPassed() ? "FileCheck-19 PASS" : "FileCheck-19 FAIL")
                    .append(outcome.vacuous() ? " (vacuous: ompdtestapi)" : "").append('\n');
        }
        StringBuilder text = new StringBuilder("# LLVM's OMPD test suite (openmp/libompd/test of LLVM "
                + SupportedRuntimes.testedWithReferencePlugin().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "))
                + ", each on its own runtime) through jompd's gdb bridge\n");
        text.append(String.format("%d of %d checks pass (programs whose scripts exercise the ompd commands); "
                        + "%d more checks of the api_tests hold vacuously (ompdtestapi: the reference's own C-API self-test)%n"
                        + "%d of %d test files pass FileCheck-19 as a whole%n",
                passed, checks, vacuousChecks, filesPassed, OUTCOMES.size()));
        text.append(String.format("side by side with LLVM's plugin (same scripts, the suite's own lines, ompdtestapi working there): "
                + "the plugin passes %d of %d; jompd passes every check the plugin passes but %d (%d of %d agree or jompd passes)%n",
                referencePassedCount, referenceChecks, onlyReference.size(), agree, referenceChecks));
        onlyReference.forEach(line -> text.append("only the plugin passes: ").append(line).append('\n'));
        referenceFailures.forEach(line -> text.append("the plugin fails: ").append(line).append('\n'));
        failures.forEach((origin, line) -> text.append("jompd fails: ").append(origin).append("  ").append(line).append('\n'));
        text.append(details);
        Files.writeString(Path.of("target", "llvm-ompd-suite.txt"), text);
        System.out.print(text);
    }
}
