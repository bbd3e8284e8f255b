package dev.jompd.cli.bench;

import dev.jompd.cli.Jompd;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * `jompd inspect --core --json` cold (a new JVM per run: on the ahead-of-time cache the launcher trains, on
 * the AppCDS archive alone, on neither) and warm (in one JVM), beside gdb with LLVM's reference plugin
 * loading the same core and dumping what it can, in one run, as ratios; on a 30-thread core (nested 5 6,
 * the anchor of the cold-start goal: no slower than the reference) and the 256-thread one (nested 16 16).
 * Usage: CliBenchmark DISTRIBUTION_DIR [runs]
 */
public final class CliBenchmark {
    public static void main(String[] args) throws Exception {
        Path distribution = Path.of(args.length > 0 ? args[0] : "jompd-cli/target/jompd");
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        for (String[] shape : List.of(new String[] {"5", "6"}, new String[] {"16", "16"})) {
            measure(distribution, runs, FixtureRun.of(Fixture.NESTED, shape));
        }
        System.exit(0);
    }

    private static void measure(Path distribution, int runs, FixtureRun run) throws Exception {
        StoppedFixture fixture = Fixtures.core(run);
        String core = fixture.core().toString();
        Path launcher = distribution.resolve("bin/jompd");
        List<String> inspect = List.of(launcher.toString(), "inspect", "--core", core, "--json");
        System.out.printf("%nfixture %s: %d OpenMP threads recorded, core %s (%d MiB)%n", run.label(),
                fixture.facts().threadCount(), core, Files.size(fixture.core()) >> 20);

        command(inspect, Map.of()); // makes the CDS archive and starts training the ahead-of-time cache
        Path cache = Path.of(System.getProperty("user.home"), ".cache", "jompd");
        for (int wait = 0; wait < 120 && !hasAotCache(cache); wait++) {
            Thread.sleep(500);
        }
        double coldAot = median(runs, () -> command(inspect, Map.of()));
        double coldCds = median(runs, () -> command(inspect, Map.of("JOMPD_NO_AOT", "1")));
        double coldNoCds = median(runs, () -> command(inspect, Map.of("JOMPD_NO_CDS", "1")));
        PrintStream stdout = System.out;
        for (int i = 0; i < 10; i++) {
            inProcess(core);
        }
        double warm = median(runs * 4, () -> inProcess(core));
        System.setOut(stdout);

        // The reference: gdb loads the same core and LLVM's libompd answers, through its own plugin,
        // everything it can (ompd-core's dump_reference.py: threads, regions, tasks, every ICV).
        Path script = Runtimes.repositoryRoot().resolve("ompd-core/src/test/resources/reference/dump_reference.py");
        Path out = Files.createTempFile("jompd-reference", ".tsv");
        List<String> gdb = List.of("gdb", "-batch", "-nx", "-x", script.toString(),
                fixture.executable().toString(), core);
        List<Double> referenceTimes = new ArrayList<>();
        ProcessResult reference = null;
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            reference = run(gdb, Map.of(
                    "JOMPD_REF_PLUGIN", Runtimes.referenceGdbPluginDirectory(Runtimes.DEFAULT_VERSION).toString(),
                    "JOMPD_REF_OUT", out.toString()));
            referenceTimes.add((System.nanoTime() - start) / 1e6);
        }
        Collections.sort(referenceTimes);
        double referenceMs = referenceTimes.get(referenceTimes.size() / 2);
        boolean crashed = reference.exitCode() != 0;
        List<String> records = Files.readAllLines(out).stream().filter(line -> !line.startsWith("?")
                && !line.startsWith("#")).toList();
        long answered = records.stream().filter(line -> line.split("\t", -1).length > 3
                && line.split("\t", -1)[3].equals("0")).count();
        Files.deleteIfExists(out);

        System.out.printf("%-58s %12s%n", "measurement (median of " + runs + ")", "ms");
        System.out.printf("%-58s %12.1f%n", "jompd inspect --core --json, cold, AOT cache", coldAot);
        System.out.printf("%-58s %12.1f%n", "jompd inspect --core --json, cold, AppCDS only", coldCds);
        System.out.printf("%-58s %12.1f%n", "jompd inspect --core --json, cold, no CDS", coldNoCds);
        System.out.printf("%-58s %12.1f%n", "jompd inspect --core --json, warm JVM", warm);
        System.out.printf("%-58s %12.1f%s%n", "gdb + reference libompd: load core, dump everything", referenceMs,
                crashed ? "  (gdb crashed or failed: exit " + reference.exitCode() + ")" : "");
        System.out.printf("ratio jompd cold (AOT) / reference: %.2f (goal <= 1); reference / jompd warm: %.1fx%n",
                coldAot / referenceMs, referenceMs / warm);
        System.out.printf("reference answered %d of %d queries; jompd reports all %d OpenMP threads, every ICV with a string%n",
                answered, records.size(), fixture.facts().threadCount());
    }

    private static boolean hasAotCache(Path cache) throws IOException {
        try (var files = Files.list(cache)) {
            return files.anyMatch(f -> f.getFileName().toString().startsWith("jompd-cli-")
                    && f.getFileName().toString().endsWith(".aot"));
        }
    }

    private static double inProcess(String core) {
        PrintStream stdout = System.out;
        long start = System.nanoTime();
        System.setOut(new PrintStream(new ByteArrayOutputStream()));
        try {
            if (Jompd.run("inspect", "--core", core, "--json") != 0) {
                throw new IllegalStateException("jompd failed");
            }
        } finally {
            System.setOut(stdout);
        }
        return (System.nanoTime() - start) / 1e6;
    }

    private static double command(List<String> command, Map<String, String> env) {
        long start = System.nanoTime();
        ProcessResult result = run(command, env);
        if (result.exitCode() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + result.output());
        }
        return (System.nanoTime() - start) / 1e6;
    }

    record ProcessResult(int exitCode, String output) {}

    private static ProcessResult run(List<String> command, Map<String, String> env) {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(env);
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes());
            return new ProcessResult(process.waitFor(), output);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private interface Timed {
        double run();
    }

    private static double median(int runs, Timed timed) {
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            times.add(timed.run());
        }
        Collections.sort(times);
        return times.get(times.size() / 2);
    }
}
