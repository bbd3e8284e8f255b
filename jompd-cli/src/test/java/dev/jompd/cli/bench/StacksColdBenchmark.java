package dev.jompd.cli.bench;

import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Cold stacks as a user gets them: {@code jompd inspect --core CORE --stacks} through the distribution's
 * launcher (a new JVM per run, on the ahead-of-time cache the launcher trains; its first run, which trains
 * the cache, is not counted, as in {@link CliBenchmark}) beside gdb's {@code thread apply all bt} in a new gdb
 * per run, on the same core (its first run not counted either: both read the files from the page cache),
 * for 256 threads (nested 16 16) and 1024 threads (nested 32 32): medians with min–max and the ratio.
 * Usage: StacksColdBenchmark DISTRIBUTION_DIR [runs]
 */
public final class StacksColdBenchmark {
    private StacksColdBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path distribution = Path.of(args.length > 0 ? args[0] : "jompd-cli/target/jompd");
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        List<String[]> rows = new ArrayList<>();
        for (String[] shape : List.of(new String[] {"16", "16"}, new String[] {"32", "32"})) {
            StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, shape));
            String core = fixture.core().toString();
            List<String> jompd = List.of(distribution.resolve("bin/jompd").toString(), "inspect", "--core", core,
                    "--stacks", "--color=never");
            List<String> gdb = List.of("gdb", "-batch", "-nx", "-ex", "set pagination off", "-ex", "thread apply all bt",
                    fixture.executable().toString(), core);

            String first = run(jompd); // makes the class-data archive, then trains the AOT cache in the background
            if (!first.contains("Parallel stacks: " + fixture.facts().threadCount() + " OpenMP threads")) {
                throw new IllegalStateException("jompd did not print every thread's stack:\n" + first);
            }
            waitForAotCache();
            run(gdb);
            double[] ours = new double[runs];
            double[] theirs = new double[runs];
            for (int i = 0; i < runs; i++) { // interleaved: both see the same moments of a shared machine
                ours[i] = timed(jompd);
                theirs[i] = timed(gdb);
            }
            String label = "nested %s %s (%d threads), cold".formatted(shape[0], shape[1], fixture.facts().threadCount());
            rows.add(new String[] {label, spread(ours), spread(theirs),
                    "%.2f× (jompd %s gdb)".formatted(median(theirs) / median(ours),
                            median(ours) <= median(theirs) ? "faster than" : "slower than")});
        }
        System.out.printf(Locale.ROOT, "%n%-40s %-26s %-26s %s%n", "stacks of every thread (median [min–max] of " + runs + ")",
                "jompd inspect --stacks", "gdb thread apply all bt", "gdb / jompd");
        for (String[] row : rows) {
            System.out.printf(Locale.ROOT, "%-40s %-26s %-26s %s%n", (Object[]) row);
        }
        System.exit(0);
    }

    private static void waitForAotCache() throws IOException, InterruptedException {
        Path cache = Path.of(System.getProperty("user.home"), ".cache", "jompd");
        for (int wait = 0; wait < 240; wait++) {
            List<String> names;
            try (var files = Files.list(cache)) {
                names = files.map(f -> f.getFileName().toString()).toList();
            }
            boolean training = names.stream().anyMatch(name -> name.endsWith(".aot.lock"));
            if (!training && names.stream().anyMatch(name -> name.startsWith("jompd-cli-") && name.endsWith(".aot"))) {
                return;
            }
            Thread.sleep(500);
        }
        System.err.println("note: no ahead-of-time cache after 2 minutes: measuring without it");
    }

    private static String spread(double[] times) {
        double[] sorted = times.clone();
        Arrays.sort(sorted);
        return "%.0f ms [%.0f–%.0f]".formatted(median(times), sorted[0], sorted[sorted.length - 1]);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static double timed(List<String> command) {
        long start = System.nanoTime();
        run(command);
        return (System.nanoTime() - start) / 1e6;
    }

    private static String run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            int exit = process.waitFor();
            if (exit != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (exit " + exit + "):\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
