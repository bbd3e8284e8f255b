package dev.jompd.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Builds the jompd-recorder ({@code recorder/} of the repository, an OMPT tool library) once per source
 * content, with its own Makefile, into the cache directory, and runs fixtures with it loaded.
 */
public final class RecorderLibrary {
    /** The library's file name. */
    public static final String FILE_NAME = "libjompd-recorder.so";
    private static Path built;

    private RecorderLibrary() {}

    /** The recorder's source directory in the repository. */
    public static Path sourceDirectory() {
        return Runtimes.repositoryRoot().resolve("recorder");
    }

    /** libjompd-recorder.so, built (with make, against the default runtime's omp-tools.h) on first use. */
    public static synchronized Path library() {
        if (built != null && Files.isRegularFile(built)) {
            return built;
        }
        Path sources = sourceDirectory();
        Path runtime = Runtimes.prefix();
        try {
            Path directory = Runtimes.cacheDirectory().resolve("recorder").resolve(hash(sources, runtime));
            Path library = directory.resolve(FILE_NAME);
            if (!Files.isRegularFile(library)) {
                Files.createDirectories(directory);
                Path scratch = Files.createTempDirectory(directory, "build-");
                Commands.Result result = Commands.run(List.of("make", "-C", sources.toString(), "RT=" + runtime,
                        "OUT=" + scratch), Map.of(), scratch, Duration.ofMinutes(3));
                if (result.exitCode() != 0) {
                    throw new IllegalStateException("building the jompd-recorder failed:\n" + result.output());
                }
                Files.move(scratch.resolve(FILE_NAME), library, StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            }
            built = library;
            return library;
        } catch (IOException e) {
            throw new UncheckedIOException("building the jompd-recorder", e);
        }
    }

    /** {@code run} with the recorder loaded through OMP_TOOL_LIBRARIES (OpenMP 5.0 §4.2.1). */
    public static FixtureRun with(FixtureRun run) {
        return run.withEnvironment("OMP_TOOL_LIBRARIES", library().toString());
    }

    /**
     * What "why is this thread here" must say of thread {@code k} (1 or 2) of {@code recorder_deadlock}, from
     * what the program recorded (its locks' addresses, which one each thread holds and waits for, the other
     * thread's LWP) and its source text (the lines of its two {@code omp_set_lock} calls): fragments each
     * sentence list must contain.
     */
    public static List<String> deadlockWhyHere(Facts facts, int k) {
        Facts.ThreadFacts thread = facts.thread(k);
        Facts.ThreadFacts other = facts.thread(3 - k);
        long waitsFor = facts.number("lock_" + thread.get("waits_for").toLowerCase(java.util.Locale.ROOT));
        long holds = facts.number("lock_" + thread.get("holds").toLowerCase(java.util.Locale.ROOT));
        String source = "recorder_deadlock.c:";
        return List.of("waits for lock 0x" + Long.toHexString(waitsFor) + ", asked for at " + source + sourceLine("omp_set_lock(second)"),
                "which LWP " + other.lwp() + " (",
                "acquired at " + source + sourceLine("omp_set_lock(first)"),
                "holds lock 0x" + Long.toHexString(holds) + ", acquired at " + source + sourceLine("omp_set_lock(first)"));
    }

    /** The line number of the one line of recorder_deadlock.c holding {@code text}. */
    private static int sourceLine(String text) {
        Path file = Runtimes.repositoryRoot().resolve("test-programs/src/main/c/recorder_deadlock.c");
        try {
            List<String> lines = Files.readAllLines(file);
            int found = -1;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains(text)) {
                    if (found != -1) {
                        throw new IllegalStateException(text + " appears twice in " + file);
                    }
                    found = i + 1;
                }
            }
            if (found == -1) {
                throw new IllegalStateException(text + " is not in " + file);
            }
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String hash(Path sources, Path runtime) throws IOException {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            try (var files = Files.list(sources)) {
                for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                    digest.update(file.getFileName().toString().getBytes());
                    digest.update(Files.readAllBytes(file));
                }
            }
            digest.update(runtime.toString().getBytes());
            return HexFormat.of().formatHex(digest.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
