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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * LLVM's own OMPD API tests (openmp/libompd/test/api_tests: each program's gdb script ends in `ompdtestapi
 * ROUTINE`, the C self-tests of LLVM's gdb plugin, ompdAPITests.c, which call the library's routines with good
 * and bad arguments and pin their return codes), run with Debian's plugin in real gdb, once on jompd's
 * libompd.so and once on LLVM's, read strictly: each "Test:" line's verdict is the next line, which must start
 * with "Success" (the suite's own verdict, no "Failed" in the output, is nearly vacuous: a script that aborts
 * prints none). Every test LLVM's library passes, jompd's passes, but the one that pins LLVM's nthreads-var
 * defect; /proc/&lt;gdb&gt;/maps proves which library answered. The verdicts of both go to
 * target/llvm-api-tests.txt.
 */
class LlvmApiTestsIT {
    private static final Path PLUGIN = Path.of("/usr/lib/llvm-19/share/gdb/python/ompd/__init__.py");
    private static final Path JOMPD_LIBRARY = Path.of("target/lib/libompd.so").toAbsolutePath();
    /**
     * ompdAPITests.c expects ompd_rc_incomplete for the integer form of nthreads-var in a program that sets no
     * list (one element): LLVM's library answers it because of an unsigned underflow; jompd answers ok.
     */
    private static final String PINS_LLVM_DEFECT =
            "test_ompd_get_icv_from_scope.c.cmd#Test: with nthreads_var for ompd_rc_incomplete.";
    private static final String MAPS = "python import os; print('MAPS: ' + ' '.join(sorted({l.split()[-1] for l in "
            + "open('/proc/%d/maps' % os.getpid()) if l.rstrip().endswith('/libompd.so')})))";

    private static Path suite;
    private static Path runtime;

    @TempDir
    static Path work;

    @BeforeAll
    static void requirements() {
        assumeTrue(Commands.available("gdb") && Commands.available("clang-19"), "gdb and clang-19 are needed");
        assumeTrue(Files.isRegularFile(PLUGIN), "LLVM's gdb plugin (Debian's libomp-19-dev) is not at " + PLUGIN);
        assumeTrue(Files.isRegularFile(JOMPD_LIBRARY), JOMPD_LIBRARY + " is not built (mvn package builds it)");
        runtime = Runtimes.prefix(19);
        suite = Runtimes.cacheDirectory().resolve("src/llvm-19/src/openmp/libompd/test/api_tests");
        assumeTrue(Files.isDirectory(suite), "LLVM's OMPD test suite is not extracted at " + suite
                + " (scripts/build-runtime.sh 19 with JOMPD_REBUILD=1)");
    }

    @Test
    void everyApiTestLlvmsLibraryPassesJompdsPassesToo() throws IOException {
        List<Path> scripts;
        try (Stream<Path> files = Files.list(suite)) {
            scripts = files.filter(f -> f.getFileName().toString().matches(".*\\.c\\.cmd\\d*")).sorted().toList();
        }
        assertThat(scripts).as("the suite's API test scripts").hasSizeGreaterThan(30);
        Map<String, String> jompd = new LinkedHashMap<>();
        Map<String, String> llvm = new LinkedHashMap<>();
        StringBuilder report = new StringBuilder();
        int pythonErrorsJompd = 0;
        int pythonErrorsLlvm = 0;
        for (Path script : scripts) {
            String name = script.getFileName().toString();
            Path program = program(name.substring(0, name.indexOf(".c.cmd")));
            String ours = gdb(script, program, JOMPD_LIBRARY.getParent());
            String theirs = gdb(script, program, runtime.resolve("lib"));
            // (a script that never says `ompd init` loads no library, in either session)
            boolean loads = theirs.contains("Loaded OMPD lib successfully!");
            assertThat(ours.contains("Loaded OMPD lib successfully!")).as(name).isEqualTo(loads);
            assertThat(maps(ours)).as(name).isEqualTo(loads ? JOMPD_LIBRARY.toRealPath().toString() : "");
            assertThat(maps(theirs)).as(name).isEqualTo(loads ? runtime.resolve("lib/libompd.so").toRealPath().toString() : "");
            // no Python error in jompd's session beyond those LLVM's gets from the same script
            assertThat(pythonErrors(ours)).as(name + ": Python errors, jompd's library")
                    .isSubsetOf(pythonErrors(theirs));
            pythonErrorsJompd += pythonErrors(ours).size();
            pythonErrors(theirs).forEach(error -> report.append(name).append(": LLVM's session: ").append(error)
                    .append('\n'));
            pythonErrorsLlvm += pythonErrors(theirs).size();
            jompd.putAll(verdicts(name, ours));
            llvm.putAll(verdicts(name, theirs));
        }
        List<String> regressions = new ArrayList<>();
        int passedByLlvm = 0;
        int passedByJompd = 0;
        for (var test : llvm.entrySet()) {
            String ours = jompd.getOrDefault(test.getKey(), "(not run)");
            report.append(String.format("%-110s jompd: %-12s LLVM: %s%n", test.getKey(), ours, test.getValue()));
            passedByJompd += ours.equals("Success") ? 1 : 0;
            if (test.getValue().equals("Success")) {
                passedByLlvm++;
                if (!ours.equals("Success") && !test.getKey().equals(PINS_LLVM_DEFECT)) {
                    regressions.add(test.getKey() + ": " + ours);
                }
            }
        }
        report.append(String.format("%d tests: jompd passes %d, LLVM's library %d; Python errors: jompd %d, LLVM %d%n",
                llvm.size(), passedByJompd, passedByLlvm, pythonErrorsJompd, pythonErrorsLlvm));
        Files.writeString(Path.of("target/llvm-api-tests.txt"), report);
        assertThat(jompd.keySet()).isEqualTo(llvm.keySet());
        assertThat(llvm.size()).isGreaterThan(100);
        assertThat(regressions).as(report.toString()).isEmpty();
        assertThat(jompd.get(PINS_LLVM_DEFECT)).isEqualTo("Failed");
    }

    /** "script#Test: …" → the word the next line starts with (Success, Failed, Warning, …). */
    private static Map<String, String> verdicts(String script, String output) {
        Map<String, String> verdicts = new LinkedHashMap<>();
        List<String> lines = output.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("Test:")) {
                String next = i + 1 < lines.size() ? lines.get(i + 1).strip() : "";
                String verdict = next.isEmpty() ? "(nothing)" : next.split("[ .,]")[0];
                String key = script + "#" + lines.get(i);
                while (verdicts.containsKey(key)) {
                    key += "'";
                }
                verdicts.put(key, verdict);
            }
        }
        return verdicts;
    }

    /** The lines by which gdb reports an error in the plugin's Python. */
    private static List<String> pythonErrors(String output) {
        return output.lines().filter(l -> l.contains("Python Exception") || l.startsWith("Traceback")
                || l.contains("Error occurred in Python")).map(l -> l.replaceAll("0x\\p{XDigit}+", "0x…")).toList();
    }

    private static String maps(String output) {
        return output.lines().filter(l -> l.startsWith("MAPS: ")).findFirst().orElse("MAPS: (none)").substring(6).strip();
    }

    private static Path program(String name) throws IOException {
        Path executable = work.resolve(name);
        if (!Files.isExecutable(executable)) {
            Commands.Result compiled = Commands.run(List.of("clang-19", "-fopenmp", "-g", "-gdwarf-4",
                    suite.resolve(name + ".c").toString(), "-o", executable.toString(), "-L" + runtime.resolve("lib"),
                    "-Wl,-rpath," + runtime.resolve("lib")), Map.of(), work, Duration.ofMinutes(2));
            assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        }
        return executable;
    }

    private static String gdb(Path script, Path program, Path libraryDirectory) throws IOException {
        Commands.Result result = Commands.run(List.of("gdb", "-nx", "-batch", "-x", PLUGIN.toString(), "-x",
                script.toString(), "-ex", MAPS, program.toString()), Map.of("OMP_DEBUG", "enabled", "LD_LIBRARY_PATH",
                libraryDirectory.toString(), "XDG_CACHE_HOME", work.resolve("cache").toString()), work,
                Duration.ofMinutes(2));
        return result.output();
    }
}
