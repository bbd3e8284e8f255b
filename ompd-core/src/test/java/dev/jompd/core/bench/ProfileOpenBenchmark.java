package dev.jompd.core.bench;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Opening a stripped libomp through its runtime profile against opening the same core through the
 * runtime's symbols: the first open in a fresh JVM (what a {@code jompd inspect} pays), each measured in
 * child JVMs, medians printed side by side with their ratio and the time the profile adds; then, in one
 * JVM, a second open of the same runtime (the breadcrumb block cached per build-id).
 *
 * <p>Usage: {@code ProfileOpenBenchmark [--runs N] [--version V]} (default 9 runs, libomp 19). Run through
 * {@code scripts/bench-profile.sh}.
 */
public final class ProfileOpenBenchmark {
    private ProfileOpenBenchmark() {}

    public static void main(String[] args) throws Exception {
        if (args.length >= 3 && args[0].equals("--child")) {
            child(args[1], Path.of(args[2]), args.length > 3 ? Optional.of(Path.of(args[3])) : Optional.empty());
            return;
        }
        int runs = 9;
        int version = 19;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[i + 1]);
                case "--version" -> version = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("usage: ProfileOpenBenchmark [--runs N] [--version V]");
            }
        }
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4").onRuntime(version));
        Path stripped = strippedCopy(version);
        double[] bySymbols = new double[runs];
        double[] byProfile = new double[runs];
        double[] secondOpen = new double[runs];
        for (int run = 0; run < runs; run++) {
            bySymbols[run] = childMillis("symbols", fixture.core(), null)[0];
            double[] profile = childMillis("profile", fixture.core(), stripped);
            byProfile[run] = profile[0];
            secondOpen[run] = profile[1];
        }
        double symbols = median(bySymbols);
        double profile = median(byProfile);
        System.out.printf("first open of libomp %d on a core of nested 4 4 (median of %d fresh JVMs)%n", version, runs);
        System.out.printf("  %-34s %10s%n", "", "ms");
        System.out.printf("  %-34s %10.1f%n", "by symbols (unstripped libomp)", symbols);
        System.out.printf("  %-34s %10.1f%n", "by profile (strip --strip-all)", profile);
        System.out.printf("  %-34s %10.2fx   (+%.1f ms; target < 50 ms added)%n", "profile / symbols", profile / symbols, profile - symbols);
        System.out.printf("  %-34s %10.1f%n", "profile, second open (cached)", median(secondOpen));
    }

    /** One child JVM: its first open, then a second open of the same core; prints both in ms. */
    private static void child(String mode, Path core, Optional<Path> strippedDirectory) {
        double first = openMillis(core, strippedDirectory, mode);
        double second = openMillis(core, strippedDirectory, mode);
        System.out.println("RESULT " + first + " " + second);
    }

    private static double openMillis(Path core, Optional<Path> strippedDirectory, String mode) {
        long started = System.nanoTime();
        CoreFileAddressSpace.Builder builder = CoreFileAddressSpace.builder(core).withDebuginfod(Optional.empty())
                .withDebugFileDirectories(List.of());
        strippedDirectory.ifPresent(directory -> builder.withSolibSearchPath(List.of(directory)));
        try (AddressSpace target = builder.open()) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            Ompd.threads(process); // the thread array: read through the profile's validated placement
            String reading = process.layout().reading().toString();
            if (!reading.startsWith(mode)) {
                throw new IllegalStateException("expected a reading by " + mode + ", got " + reading);
            }
        }
        return (System.nanoTime() - started) / 1e6;
    }

    private static double[] childMillis(String mode, Path core, Path stripped) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                ProfileOpenBenchmark.class.getName(), "--child", mode, core.toString()));
        if (stripped != null) {
            command.add(stripped.toString());
        }
        Commands.Result result = Commands.run(command, Map.of(), null, Duration.ofMinutes(2));
        String line = result.output().lines().filter(l -> l.startsWith("RESULT ")).findFirst()
                .orElseThrow(() -> new IllegalStateException("child failed:\n" + result.output()));
        String[] parts = line.split(" ");
        return new double[] {Double.parseDouble(parts[1]), Double.parseDouble(parts[2])};
    }

    private static Path strippedCopy(int version) throws IOException {
        Path directory = Runtimes.cacheDirectory().resolve("stripped").resolve("llvm-" + version);
        Path stripped = directory.resolve("libomp.so");
        if (!Files.isRegularFile(stripped)) {
            Files.createDirectories(directory);
            Commands.Result result = Commands.run(List.of("strip", "--strip-all", "-o", stripped.toString(),
                    Runtimes.libraryDirectory(version).resolve("libomp.so").toString()), Map.of(), directory, Duration.ofMinutes(1));
            if (result.exitCode() != 0) {
                throw new IllegalStateException(result.output());
            }
        }
        return directory;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
