package dev.jompd.core.bench;

import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.core.unwind.NativeStack;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Times jompd's native stacks of every thread of a core against gdb's {@code thread apply all bt} on the
 * same core, printed side by side with ratios: warm (repeats inside one JVM, and inside one gdb
 * session), cold (a fresh JVM or gdb process, start included), for 256 threads (nested 16 16) and 1024
 * threads (nested 32 32) to show the cost per thread.
 *
 * <p>Usage: {@code StackBenchmark [--repeats N]} runs everything (through {@code scripts/bench-stacks.sh});
 * {@code StackBenchmark --cold CORE EXECUTABLE} is the cold run itself: open, unwind all, print a line.
 */
public final class StackBenchmark {
    private static final String GDB_WARM = """
            import gdb, time
            gdb.execute("set pagination off")
            times = []
            for i in range(REPEATS):
                start = time.perf_counter()
                text = gdb.execute("thread apply all bt", to_string=True)
                times.append(time.perf_counter() - start)
            frames = sum(1 for line in text.splitlines() if line.startswith("#"))
            times.sort()
            print("GDB_WARM %.3f %.3f %d" % (times[len(times) // 2] * 1000, times[0] * 1000, frames))
            """;

    private StackBenchmark() {}

    public static void main(String[] args) throws IOException {
        if (args.length == 3 && args[0].equals("--cold")) {
            cold(Path.of(args[1]), Path.of(args[2]));
            return;
        }
        int repeats = args.length >= 2 && args[0].equals("--repeats") ? Integer.parseInt(args[1]) : 20;
        List<String[]> rows = new ArrayList<>();
        double perThread256 = 0;
        for (String[] shape : List.of(new String[] {"16", "16"}, new String[] {"32", "32"})) {
            StoppedFixture stopped = Fixtures.core(FixtureRun.of(Fixture.NESTED, shape));
            Warm ours = warm(stopped, repeats);
            double[] gdbWarm = gdbWarm(stopped, Math.max(3, repeats / 4));
            double oursCold = median(coldRuns(stopped, 5, true));
            double gdbCold = median(coldRuns(stopped, 5, false));
            String label = "nested %s %s (%d threads)".formatted(shape[0], shape[1], ours.threads);
            rows.add(new String[] {label + ", warm", "%.1f ms (%d frames)".formatted(ours.medianMillis, ours.frames),
                    "%.1f ms (%d frames)".formatted(gdbWarm[0], (long) gdbWarm[2]), ratio(gdbWarm[0], ours.medianMillis)});
            rows.add(new String[] {label + ", cold", "%.0f ms".formatted(oursCold), "%.0f ms".formatted(gdbCold),
                    ratio(gdbCold, oursCold)});
            double perThread = ours.medianMillis / ours.threads * 1000;
            if (ours.threads == 256) {
                perThread256 = perThread;
            }
            rows.add(new String[] {label + ", warm per thread", "%.1f µs".formatted(perThread),
                    "%.1f µs".formatted(gdbWarm[0] / ours.threads * 1000),
                    perThread256 > 0 ? "jompd %.2f× the 256-thread cost per thread".formatted(perThread / perThread256) : ""});
        }
        System.out.printf(Locale.ROOT, "%-44s %-22s %-22s %s%n", "native stacks of every thread", "jompd", "gdb bt", "gdb / jompd");
        for (String[] row : rows) {
            System.out.printf(Locale.ROOT, "%-44s %-22s %-22s %s%n", (Object[]) row);
        }
    }

    private record Warm(double medianMillis, int threads, long frames) {}

    private static Warm warm(StoppedFixture stopped, int repeats) {
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(stopped.core())
                .withExecutable(stopped.executable()).open(); DebugInfoCache cache = new DebugInfoCache()) {
            double[] times = new double[repeats];
            long frames = 0;
            int threads = 0;
            // Warm-up stops first, at least 30 of them and 10 s: the JIT needs them (more on a busy machine).
            long warmUntil = System.nanoTime() + 10_000_000_000L;
            int warmUps = 0;
            while (warmUps < 30 || System.nanoTime() < warmUntil) {
                try (Unwinder unwinder = new Unwinder(space, cache)) {
                    unwinder.unwindAll();
                }
                warmUps++;
            }
            for (int i = 0; i < repeats; i++) {
                long start = System.nanoTime();
                // A new Unwinder per repeat: a new stop, with the module data cached across stops.
                try (Unwinder unwinder = new Unwinder(space, cache)) {
                    List<NativeStack> stacks = unwinder.unwindAll();
                    frames = stacks.stream().mapToLong(stack -> stack.frames().size()).sum();
                    threads = stacks.size();
                }
                times[i] = (System.nanoTime() - start) / 1e6;
            }
            return new Warm(median(times), threads, frames);
        }
    }

    private static double[] gdbWarm(StoppedFixture stopped, int repeats) throws IOException {
        Path script = Files.createTempFile("jompd-bench-bt", ".py");
        try {
            Files.writeString(script, "REPEATS = " + repeats + "\n" + GDB_WARM);
            Commands.Result result = Commands.run(List.of("gdb", "-batch", "-nx", stopped.executable().toString(),
                    stopped.core().toString(), "-x", script.toString()), Map.of(), null, Duration.ofMinutes(10));
            String line = result.output().lines().filter(l -> l.startsWith("GDB_WARM")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("gdb did not time its backtraces:\n" + result.output()));
            String[] fields = line.split(" ");
            return new double[] {Double.parseDouble(fields[1]), Double.parseDouble(fields[2]), Double.parseDouble(fields[3])};
        } finally {
            Files.deleteIfExists(script);
        }
    }

    /** Wall-clock times of fresh processes: this class's --cold mode in a new JVM, or gdb -batch bt. */
    private static double[] coldRuns(StoppedFixture stopped, int runs, boolean jompd) throws IOException {
        List<String> command;
        if (jompd) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            command = List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    StackBenchmark.class.getName(), "--cold", stopped.core().toString(), stopped.executable().toString());
        } else {
            command = List.of("gdb", "-batch", "-nx", "-ex", "set pagination off", "-ex", "thread apply all bt",
                    stopped.executable().toString(), stopped.core().toString());
        }
        double[] times = new double[runs];
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            Commands.Result result = Commands.run(command, Map.of(), null, Duration.ofMinutes(10));
            times[i] = (System.nanoTime() - start) / 1e6;
            if (result.exitCode() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + result.output());
            }
        }
        return times;
    }

    private static void cold(Path core, Path executable) {
        try (CoreFileAddressSpace space = CoreFileAddressSpace.builder(core).withExecutable(executable).open();
             DebugInfoCache cache = new DebugInfoCache(); Unwinder unwinder = new Unwinder(space, cache)) {
            List<NativeStack> stacks = unwinder.unwindAll();
            long frames = stacks.stream().mapToLong(stack -> stack.frames().size()).sum();
            long jvmMillis = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
            System.out.printf("%d threads, %d frames, %d ms since JVM start%n", stacks.size(), frames, jvmMillis);
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String ratio(double gdb, double jompd) {
        return "%.1f×".formatted(gdb / jompd);
    }
}
