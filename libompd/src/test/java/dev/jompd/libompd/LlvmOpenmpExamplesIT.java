package dev.jompd.libompd;

import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The other half of LLVM's OMPD test suite, openmp/libompd/test/openmp_examples: OpenMP programs run in real gdb
 * under Debian's plugin, each with its own gdb script, checked with the test's own FileCheck lines — once on
 * jompd's libompd.so and once on LLVM's, /proc/&lt;gdb&gt;/maps proving which library answered.
 *
 * <p>The suite's own verdict means little. Nine examples include ompt_plugin.h, whose OMPT tool records each
 * thread's view (state, wait id, thread number, team size, levels, ICVs, frames, tool data) where the program
 * calls `ompd_tool_test`, for the plugin to compare with the OMPD library's answers at a breakpoint on
 * `ompd_tool_break`; their FileCheck lines are only CHECK-NOTs (no mismatch, no Python exception, the program
 * ran). But the header makes `ompd_tool_break` static and the plugin looks it up with gdb's
 * `lookup_global_symbol`, so the comparisons never run and FileCheck passes whatever the library answers (proved
 * below). Here a gdb prelude lets that lookup find the static symbol, so the plugin's own comparisons run, and
 * each example must compare exactly as often as its program reaches `ompd_tool_test` (counted from its source),
 * skip only its non-OpenMP threads, and report no mismatch. Of the three scripted examples, ompd_icvs's RUN line
 * is broken in two (its FileCheck never runs under lit) and ompd_bt and ompd_parallel require a lit feature
 * ("determinism") no configuration sets; here each one's FileCheck runs, and ompd_parallel's, which fails for
 * both libraries (its expected lines are two off the program's), is replaced by the program's truth.
 */
class LlvmOpenmpExamplesIT {
    private static final Path PLUGIN = Path.of("/usr/lib/llvm-19/share/gdb/python/ompd/__init__.py");
    private static final Path JOMPD_LIBRARY = Path.of("target/lib/libompd.so").toAbsolutePath();
    /** Lets the plugin find the header's static ompd_tool_break, and prints the libompd.so gdb loaded at exit. */
    private static final String PRELUDE = """
            import gdb, os
            _lookup_global_symbol = gdb.lookup_global_symbol
            def _lookup(name, *rest):
                symbol = _lookup_global_symbol(name, *rest)
                if symbol is None and name == "ompd_tool_break":
                    symbol = gdb.lookup_static_symbol(name)
                return symbol
            gdb.lookup_global_symbol = _lookup
            def _maps(event):
                print("MAPS: " + " ".join(sorted({l.split()[-1] for l in open("/proc/%d/maps" % os.getpid())
                                                  if l.rstrip().endswith("/libompd.so")})))
            gdb.events.exited.connect(_maps)
            """;
    private static final String MAPS_ONLY = PRELUDE.substring(PRELUDE.indexOf("def _maps"));
    /** The prelude, and at each ompd_tool_break stop (before the plugin compares) a wrong level in the OMPT record. */
    private static final String WRONG_LEVEL = PRELUDE + """
            def _wrong_level(event):
                if isinstance(event, gdb.BreakpointEvent) and gdb.selected_frame().name() == "ompd_tool_break":
                    gdb.execute("set var thread_data.omp_level = 7")
            gdb.events.stop.connect(_wrong_level)
            """;
    /** Output no run may show: the plugin's errors and the suite's own CHECK-NOTs. */
    private static final List<String> NEVER = List.of("OMPT-OMPD mismatch", "Python Exception", "Traceback",
            "Error occurred in Python", "The program is not being run.", "No such file or directory");
    private static final String COMPARING = "Comparing OMPT data to OMPD data...";
    private static final String SKIPPING = "Skipping OMPT-OMPD checks for non-LWP thread.";

    /**
     * The OMPT examples, with how often each program reaches ompd_tool_test (from its source) and how many
     * non-OpenMP threads stop at ompd_tool_break (example_1's two pthreads start there; OMPD has no handle for them).
     */
    private static final Map<String, int[]> COMPARISONS = Map.of(
            "example_1", new int[] {4, 2},      // one region of omp_set_num_threads(4)
            "example_2", new int[] {60, 0},     // 3 × 2 innermost teams of 2 share a loop of 10
            "example_3", new int[] {11, 0},     // thread 0 of 2 once, thread 1's team of 2 a loop of 10
            "example_4", new int[] {12, 0},     // every thread of 3 × 2 teams of 2
            "example_5", new int[] {45, 0},     // 3 × 1 innermost teams of 2 share a loop of 15
            "example_task", new int[] {81, 0},  // f(4): 3^4 leaf tasks
            "fibonacci", new int[] {8, 0},      // fib(5): 8 calls with n < 2
            "nested", new int[] {120, 0},       // 3 × 2 innermost teams of 2 share a loop of 20
            "parallel", new int[] {100, 0});    // 100 tasks

    private static Path examples;
    private static Path runtime;

    @TempDir
    static Path work;

    @BeforeAll
    static void requirements() throws IOException {
        assumeTrue(Commands.available("gdb") && Commands.available("clang-19") && Commands.available("FileCheck-19"),
                "gdb, clang-19 and FileCheck-19 are needed");
        assumeTrue(Files.isRegularFile(PLUGIN), "LLVM's gdb plugin (Debian's libomp-19-dev) is not at " + PLUGIN);
        assumeTrue(Files.isRegularFile(JOMPD_LIBRARY), JOMPD_LIBRARY + " is not built (mvn package builds it)");
        runtime = Runtimes.prefix(19);
        examples = Runtimes.cacheDirectory().resolve("src/llvm-19/src/openmp/libompd/test/openmp_examples");
        assumeTrue(Files.isDirectory(examples), "LLVM's OMPD test suite is not extracted at " + examples
                + " (scripts/build-runtime.sh 19 with JOMPD_REBUILD=1)");
        Files.writeString(work.resolve("prelude.py"), PRELUDE);
        Files.writeString(work.resolve("maps-only.py"), MAPS_ONLY);
        Files.writeString(work.resolve("wrong-level.py"), WRONG_LEVEL);
    }

    @Test
    void theOmptExamplesCompareEveryCallAndFindNoMismatchWithEitherLibrary() throws IOException {
        // the suite as written: the comparisons never run, and FileCheck passes anyway
        Run vacuous = gdb("example_1", "maps-only.py", runtime.resolve("lib"));
        assertThat(vacuous.output()).contains("Loaded OMPD lib successfully!", "Finished 4 testsuites.")
                .doesNotContain(COMPARING);
        assertThat(fileCheck("example_1", vacuous)).as("FileCheck of example_1 without comparisons").isZero();
        // the comparisons, once running, see a wrong value: each of the 4 reports the level the OMPT record was given
        Run wrong = gdb("example_1", "wrong-level.py", JOMPD_LIBRARY.getParent());
        assertThat(count(wrong.output(), COMPARING)).isEqualTo(4);
        assertThat(wrong.output().lines().filter(l -> l.startsWith("OMPT-OMPD mismatch: omp_level (7) does not match"
                + " OMPD levels according to ICVs (1)!")).count()).isEqualTo(4);
        assertThat(fileCheck("example_1", wrong)).as("FileCheck of example_1 with a wrong level").isOne();

        StringBuilder report = new StringBuilder();
        for (var example : COMPARISONS.keySet().stream().sorted().toList()) {
            int comparisons = COMPARISONS.get(example)[0];
            int foreign = COMPARISONS.get(example)[1];
            for (Path library : List.of(JOMPD_LIBRARY.getParent(), runtime.resolve("lib"))) {
                Run run = gdb(example, "prelude.py", library);
                String what = example + " on " + library;
                checkStrictly(what, run, library);
                assertThat(count(run.output(), COMPARING)).as(what + ": comparisons").isEqualTo(comparisons);
                assertThat(count(run.output(), SKIPPING)).as(what + ": threads OMPD does not know").isEqualTo(foreign);
                // the program's own count (`checks++` from every thread, unsynchronized: at most the true one)
                Matcher finished = Pattern.compile("Finished (\\d+) testsuites\\.").matcher(run.output());
                assertThat(finished.find()).as(what + ": the program finished").isTrue();
                assertThat(Integer.parseInt(finished.group(1))).as(what).isBetween(1, comparisons);
                assertThat(fileCheck(example, run)).as(what + ": the test's own FileCheck").isZero();
                report.append(String.format("%-14s %-60s %4d comparisons, %d skipped, %5.1f s%n", example, library,
                        comparisons, foreign, run.seconds()));
            }
        }
        Files.writeString(Path.of("target/llvm-openmp-examples.txt"), report);
    }

    @Test
    void theScriptedExamplesAnswerAsTheProgramSaysWithEitherLibrary() throws IOException {
        Map<Path, List<String>> icvs = new HashMap<>();
        for (Path library : List.of(JOMPD_LIBRARY.getParent(), runtime.resolve("lib"))) {
            Run bt = gdb("ompd_bt", "prelude.py", library);
            checkStrictly("ompd_bt on " + library, bt, library);
            assertThat(fileCheck("ompd_bt", bt)).as("ompd_bt's FileCheck on " + library).isZero();
            // with the filter on, the worker's stack is the program's frames, each marked with its OpenMP thread
            assertThat(bt.output()).containsPattern("#0  @thread \\d+: subdomain \"#pragma omp parallel\"")
                    .containsPattern("#2  0x\\p{XDigit}+ in @thread \\d+: sub.omp_outlined \"#pragma omp parallel\"");

            Run icv = gdb("ompd_icvs", "prelude.py", library);
            checkStrictly("ompd_icvs on " + library, icv, library);
            assertThat(fileCheck("ompd_icvs", icv)).as("ompd_icvs's FileCheck on " + library).isZero();
            icvs.put(library, icv.output().lines().filter(l -> l.matches("[a-z-]+-var\\s+\\S+\\s+.*")).toList());
            assertThat(icvs.get(library)).as("three listings of ICVs").hasSizeGreaterThan(3 * 15);

            Run parallel = gdb("ompd_parallel", "prelude.py", library);
            checkStrictly("ompd_parallel on " + library, parallel, library);
            // its FileCheck expects the regions at lines 16, 13 and 10: the test's header grew two lines after
            // they were written (the program's regions start at 18, 15 and 12); it fails for both libraries
            assertThat(fileCheck("ompd_parallel", parallel)).as("ompd_parallel's FileCheck on " + library).isOne();
            // stops at lines 17 (level 2), 19 (level 3) and 21 (level 2): omp_set_num_threads 7, then 5, then 3
            assertThat(regions(parallel.output())).as("ompd_parallel on " + library)
                    .containsExactly("2:5 1:7", "3:3 2:5 1:7", "2:5 1:7");
        }
        // The stops are in `#pragma omp single` blocks: which thread of the team runs one differs from run to run,
        // so the thread's number is checked against its team's size in each listing, and the rest compared.
        assertThat(withoutThreadNumbers(icvs.get(JOMPD_LIBRARY.getParent()))).as("ompd icvs, jompd's against LLVM's")
                .isEqualTo(withoutThreadNumbers(icvs.get(runtime.resolve("lib"))));
        for (List<String> listings : icvs.values()) {
            threadNumbersWithinTheirTeams(listings);
        }
    }

    private static List<String> withoutThreadNumbers(List<String> listings) {
        return listings.stream().filter(line -> !line.matches("(ompd-)?thread-num-var\\s.*")).toList();
    }

    /** Each listing's thread-num-var is a thread of that listing's team (team-size-var comes after it). */
    private static void threadNumbersWithinTheirTeams(List<String> listings) {
        Integer threadNumber = null;
        int checked = 0;
        for (String line : listings) {
            String[] columns = line.trim().split("\\s+");
            if (columns[0].equals("thread-num-var")) {
                threadNumber = Integer.parseInt(columns[2]);
            } else if (columns[0].equals("team-size-var")) {
                assertThat(threadNumber).as("thread-num-var before team-size-var in %s", listings).isNotNull();
                assertThat(threadNumber).as("thread-num-var within team-size-var %s", columns[2])
                        .isBetween(0, Integer.parseInt(columns[2]) - 1);
                threadNumber = null;
                checked++;
            }
        }
        assertThat(checked).as("three listings with a thread number").isEqualTo(3);
    }

    /**
     * Each `ompd parallel` listing as "level:size …", innermost first; each region lists as many threads as its
     * size, every one in the outlined function of the program's parallel directive of its level (lines 12, 15, 18).
     */
    private static List<String> regions(String output) {
        List<String> stops = new ArrayList<>();
        List<String> lines = output.lines().toList();
        Pattern header = Pattern.compile("Parallel Region: Nesting Level (\\d+): Team Size: (\\d+)");
        StringBuilder stop = new StringBuilder();
        int previous = Integer.MAX_VALUE;
        for (int i = 0; i < lines.size(); i++) {
            Matcher region = header.matcher(lines.get(i));
            if (!region.find()) {
                continue;
            }
            int level = Integer.parseInt(region.group(1));
            int size = Integer.parseInt(region.group(2));
            if (level > previous) {  // a listing goes outward: a deeper level starts the next stop's
                stops.add(stop.toString().strip());
                stop.setLength(0);
            }
            previous = level;
            int threads = 0;
            for (int j = i + 1; j < lines.size() && !header.matcher(lines.get(j)).find(); j++) {
                if (lines.get(j).matches("\\s+\\d+ .*")) {
                    assertThat(lines.get(j)).endsWith("ompd_parallel.c:" + (9 + 3 * level));
                    threads++;
                }
            }
            assertThat(threads).as(lines.get(i)).isEqualTo(size);
            stop.append(level).append(':').append(size).append(' ');
        }
        stops.add(stop.toString().strip());
        return stops;
    }

    private static void checkStrictly(String what, Run run, Path library) throws IOException {
        assertThat(run.output()).as(what).contains("Loaded OMPD lib successfully!");
        for (String never : NEVER) {
            assertThat(run.output()).as(what).doesNotContain(never);
        }
        String maps = run.output().lines().filter(l -> l.startsWith("MAPS: ")).findFirst().orElse("MAPS: (none)");
        assertThat(maps.substring(6).strip()).as(what + ": the library gdb loaded")
                .isEqualTo(library.resolve("libompd.so").toRealPath().toString());
    }

    private static int count(String output, String line) {
        return (int) output.lines().filter(l -> l.strip().equals(line)).count();
    }

    private record Run(Path transcript, String output, double seconds) {
    }

    private static Run gdb(String example, String prelude, Path libraryDirectory) throws IOException {
        Path source = examples.resolve(example + ".c");
        String test = Files.readString(source);
        Path program = work.resolve(example);
        if (!Files.isExecutable(program)) {
            // %gdb-compile
            Commands.Result compiled = Commands.run(List.of("clang-19", "-fopenmp", "-g", "-gdwarf-4",
                    source.toString(), "-o", program.toString(), "-I", examples.getParent().toString(), "-I",
                    runtime.resolve("include").toString(), "-L" + runtime.resolve("lib"),
                    "-Wl,-rpath," + runtime.resolve("lib")), Map.of(), work, Duration.ofMinutes(2));
            assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        }
        // %gdb-run runs test.cmd (ompd init, continue, quit), %gdb-test -x %S/NAME.cmd the example's own script
        Path script = Files.isRegularFile(examples.resolve(example + ".cmd")) ? examples.resolve(example + ".cmd")
                : examples.getParent().resolve("test.cmd");
        Map<String, String> environment = new HashMap<>(Map.of("OMP_DEBUG", "enabled", "LD_LIBRARY_PATH",
                libraryDirectory.toString(), "XDG_CACHE_HOME", work.resolve("cache").toString(),
                "JOMPD_LIBOMPD_TIMEOUT_MS", "120000"));
        Matcher schedule = Pattern.compile("RUN: env OMP_SCHEDULE=(\\S+) ").matcher(test);
        if (schedule.find()) {
            environment.put("OMP_SCHEDULE", schedule.group(1));
        }
        long start = System.nanoTime();
        Commands.Result result = Commands.run(List.of("gdb", "-nx", "-batch", "-x", work.resolve(prelude).toString(),
                "-x", PLUGIN.toString(), "-x", script.toString(), program.toString()), environment, work,
                Duration.ofMinutes(4));
        double seconds = (System.nanoTime() - start) / 1e9;
        Path transcript = work.resolve(example + "-" + prelude + "-" + Integer.toHexString(libraryDirectory.hashCode()) + ".out");
        Files.writeString(transcript, result.output());
        return new Run(transcript, result.output(), seconds);
    }

    /** FileCheck-19 with the test's own CHECK lines over the transcript: its exit code. */
    private static int fileCheck(String example, Run run) throws IOException {
        return Commands.run(List.of("FileCheck-19", "--input-file", run.transcript().toString(),
                examples.resolve(example + ".c").toString()), Map.of(), work, Duration.ofMinutes(1)).exitCode();
    }
}
