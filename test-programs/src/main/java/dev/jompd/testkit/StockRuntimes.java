package dev.jompd.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The runtimes people actually have, for the tests of stripped libomp: Debian's own {@code libomp5-NN}
 * (fetched untouched by scripts/stock-runtimes.sh) and our OMPD builds after {@code strip --strip-all}.
 */
public final class StockRuntimes {
    private StockRuntimes() {}

    /** The directory holding Debian's libomp5-NN ({@code libomp.so.5}), fetched once into the cache. */
    public static Path debian(int version) {
        return Path.of(script("stock-runtimes.sh", Integer.toString(version)));
    }

    /** A run of {@code run} on Debian's libomp5-NN (the fixture's RUNPATH yields to LD_LIBRARY_PATH). */
    public static FixtureRun onDebian(FixtureRun run, int version) {
        return run.onRuntime(version).withEnvironment("LD_LIBRARY_PATH", debian(version).toString());
    }

    /** Our build of libomp NN after strip --strip-all, as libomp.so in a directory of its own. */
    public static Path strippedCopy(int version) throws IOException {
        Path directory = Runtimes.cacheDirectory().resolve("stripped").resolve("llvm-" + version);
        Path stripped = directory.resolve("libomp.so");
        if (!Files.isRegularFile(stripped)) {
            Files.createDirectories(directory);
            Path scratch = directory.resolve("libomp.so.tmp");
            Commands.Result result = Commands.run(List.of("strip", "--strip-all", "-o", scratch.toString(),
                    Runtimes.libraryDirectory(version).resolve("libomp.so").toString()), Map.of(), directory,
                    Duration.ofMinutes(1));
            if (result.exitCode() != 0) {
                throw new IllegalStateException("strip failed:\n" + result.output());
            }
            Files.move(scratch, stripped, StandardCopyOption.ATOMIC_MOVE);
        }
        return directory;
    }

    /** Runs one of the repository's scripts and answers the last line it printed. */
    public static String script(String name, String... arguments) {
        Path script = Runtimes.repositoryRoot().resolve("scripts").resolve(name);
        try {
            List<String> command = new ArrayList<>(List.of("bash", script.toString()));
            command.addAll(List.of(arguments));
            Commands.Result result = Commands.run(command, Map.of("JOMPD_CACHE", Runtimes.cacheDirectory().toString()),
                    null, Duration.ofMinutes(5));
            if (result.exitCode() != 0) {
                throw new IllegalStateException(script + " failed:\n" + result.output());
            }
            String[] lines = result.output().strip().split("\n");
            return lines[lines.length - 1].strip();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + script, e);
        }
    }
}
