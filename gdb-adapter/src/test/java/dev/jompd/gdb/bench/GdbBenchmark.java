package dev.jompd.gdb.bench;

import dev.jompd.gdb.GdbDriver;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * `ompd threads` (and `ompd parallel`) in gdb on the 256-thread fixture (nested 16 16, a core file):
 * jompd's bridge against LLVM's reference plugin, each in fresh gdb sessions. "First" is the first
 * command after gdb has loaded the core, everything included (jompd: engine start; reference: its
 * `ompd init`); "later" are the same command repeated at the same stop. Run by scripts/bench-gdb.sh.
 *
 * <p>Arguments: [sessions (5)] [repeats per session (20)].
 */
public final class GdbBenchmark {
    private static final double FIRST_TARGET_SECONDS = 1.5;
    private static final double LATER_TARGET_MILLIS = 50;

    /** Times commands inside gdb with time.perf_counter and prints one JSON line. */
    private static final String TIMER = """
            import gdb, json, os, time
            REPEATS = int(os.environ["JOMPD_BENCH_REPEATS"])
            REFERENCE = os.environ.get("JOMPD_BENCH_REFERENCE") == "1"
            def timed(command):
                begin = time.perf_counter()
                out = gdb.execute(command, to_string=True)
                return time.perf_counter() - begin, out
            result = {}
            init = 0.0
            if REFERENCE:
                init, _ = timed("ompd init")
            result["init"] = init
            first, out = timed("ompd threads")
            result["threads_first"] = first
            result["threads_output"] = out
            result["threads_later"] = [timed("ompd threads")[0] for _ in range(REPEATS)]
            first, out = timed("ompd parallel")
            result["parallel_first"] = first
            result["parallel_output"] = out
            result["parallel_later"] = [timed("ompd parallel")[0] for _ in range(REPEATS)]
            print("JOMPD_BENCH " + json.dumps(result))
            """;

    private GdbBenchmark() {}

    record Session(double init, double threadsFirst, List<Double> threadsLater, double parallelFirst,
                   List<Double> parallelLater, String threadsOutput, String parallelOutput, double wallSeconds) {}

    public static void main(String[] args) throws IOException {
        int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "16", "16"));
        int threads = fixture.facts().threadCount();
        Path directory = Files.createDirectories(Path.of("target", "bench-gdb")).toAbsolutePath();
        Path timer = Files.writeString(directory.resolve("timer.py"), TIMER);

        List<Session> jompd = new ArrayList<>();
        List<Session> reference = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            // Alternate, so that machine noise hits both alike.
            jompd.add(session(GdbDriver.withBridge(List.of("-x", timer.toString())), fixture, repeats, false, directory));
            reference.add(session(GdbDriver.withReference(List.of("-x", timer.toString())), fixture, repeats, true, directory));
        }
        print(threads, sessions, repeats, jompd, reference);
    }

    private static Session session(List<String> setup, StoppedFixture fixture, int repeats, boolean isReference, Path directory) {
        long begin = System.nanoTime();
        GdbDriver.Output output = GdbDriver.run(setup, List.of(),
                List.of(fixture.executable().toString(), fixture.core().toString()),
                Map.of("JOMPD_BENCH_REPEATS", Integer.toString(repeats), "JOMPD_BENCH_REFERENCE", isReference ? "1" : "0"),
                directory, Duration.ofMinutes(30));
        double wall = (System.nanoTime() - begin) / 1e9;
        String line = output.text().lines().filter(l -> l.startsWith("JOMPD_BENCH ")).findFirst()
                .orElseThrow(() -> new IllegalStateException((isReference ? "reference" : "jompd")
                        + " benchmark session printed no result (gdb exit " + output.exitCode() + "):\n" + output.text()));
        JsonObject json = JsonParser.parseString(line.substring("JOMPD_BENCH ".length())).getAsJsonObject();
        return new Session(json.get("init").getAsDouble(), json.get("threads_first").getAsDouble(),
                doubles(json.getAsJsonArray("threads_later")), json.get("parallel_first").getAsDouble(),
                doubles(json.getAsJsonArray("parallel_later")), json.get("threads_output").getAsString(),
                json.get("parallel_output").getAsString(), wall);
    }

    private static List<Double> doubles(JsonArray array) {
        List<Double> values = new ArrayList<>();
        array.forEach(e -> values.add(e.getAsDouble()));
        return values;
    }

    private static void print(int threads, int sessions, int repeats, List<Session> jompd, List<Session> reference) {
        System.out.printf(Locale.ROOT, "gdb bridge benchmark: nested 16 16 core (%d OpenMP threads), %d gdb sessions each, "
                + "%d repeats per session; medians (max)%n%n", threads, sessions, repeats);
        String format = "%-44s %-22s %-22s %s%n";
        System.out.printf(Locale.ROOT, format, "", "jompd", "reference plugin", "reference / jompd");
        row(format, "first `ompd threads` (start/init included)", jompd.stream().map(s -> s.init() + s.threadsFirst()).toList(),
                reference.stream().map(s -> s.init() + s.threadsFirst()).toList());
        row(format, "  of which `ompd init` (reference)", jompd.stream().map(Session::init).toList(),
                reference.stream().map(Session::init).toList());
        row(format, "later `ompd threads`", jompd.stream().flatMap(s -> s.threadsLater().stream()).toList(),
                reference.stream().flatMap(s -> s.threadsLater().stream()).toList());
        row(format, "first `ompd parallel`", jompd.stream().map(Session::parallelFirst).toList(),
                reference.stream().map(Session::parallelFirst).toList());
        row(format, "later `ompd parallel`", jompd.stream().flatMap(s -> s.parallelLater().stream()).toList(),
                reference.stream().flatMap(s -> s.parallelLater().stream()).toList());
        row(format, "whole gdb session (load core, all commands)", jompd.stream().map(Session::wallSeconds).toList(),
                reference.stream().map(Session::wallSeconds).toList());
        System.out.printf(Locale.ROOT, format, "OpenMP threads identified by `ompd threads`",
                identified(jompd.getFirst().threadsOutput(), false) + "/" + threads,
                identified(reference.getFirst().threadsOutput(), true) + "/" + threads, "");

        double first = median(jompd.stream().map(s -> s.init() + s.threadsFirst()).toList());
        double later = median(jompd.stream().flatMap(s -> s.threadsLater().stream()).toList());
        double laterMax = Collections.max(jompd.stream().flatMap(s -> s.threadsLater().stream()).toList());
        System.out.printf(Locale.ROOT, "%ntargets: first < %.1f s: %s (%.2f s); later < %.0f ms: %s (median %.1f ms, max %.1f ms)%n",
                FIRST_TARGET_SECONDS, first < FIRST_TARGET_SECONDS ? "met" : "NOT met", first,
                LATER_TARGET_MILLIS, later * 1000 < LATER_TARGET_MILLIS ? "met" : "NOT met", later * 1000, laterMax * 1000);
    }

    private static void row(String format, String label, List<Double> jompd, List<Double> reference) {
        double a = median(jompd);
        double b = median(reference);
        System.out.printf(Locale.ROOT, format, label, duration(a) + " (" + duration(Collections.max(jompd)) + ")",
                duration(b) + " (" + duration(Collections.max(reference)) + ")",
                a > 0 && b > 0 ? String.format(Locale.ROOT, "%.2fx", b / a) : "-");
    }

    private static String duration(double seconds) {
        return seconds == 0 ? "-" : seconds >= 1 ? String.format(Locale.ROOT, "%.2f s", seconds)
                : String.format(Locale.ROOT, "%.1f ms", seconds * 1000);
    }

    static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n == 0 ? 0 : n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** How many threads the output names as OpenMP threads. */
    private static long identified(String output, boolean reference) {
        if (reference) {
            return output.lines().filter(l -> l.startsWith("Thread ")).filter(l -> !l.contains("is no OpenMP thread")).count();
        }
        return output.lines().filter(l -> l.matches("^\\s*\\*?\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+.*")).count();
    }
}
