package dev.jompd.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs fixtures to their marker under gdb and hands out core files of that state (once per run
 * configuration and JVM), or starts them live, held at the marker.
 */
public final class Fixtures {
    private static final Map<FixtureRun, StoppedFixture> CORES = new ConcurrentHashMap<>();

    private Fixtures() {}

    /** A core file of {@code run} stopped at its marker, made by gdb's gcore; shared within the JVM. */
    public static StoppedFixture core(FixtureRun run) {
        StoppedFixture cached = CORES.get(run);
        if (cached != null && Files.exists(cached.core())) {
            return cached;
        }
        StoppedFixture made = makeCore(run, workDirectory().resolve(run.label()));
        CORES.put(run, made);
        return made;
    }

    public static StoppedFixture core(Fixture fixture, String... arguments) {
        return core(FixtureRun.of(fixture, arguments));
    }

    /** Makes a fresh core of {@code run} in {@code directory} (not cached). */
    public static StoppedFixture makeCore(FixtureRun run, Path directory) {
        return makeCore(run, FixtureBuilder.executable(run.fixture(), run.runtimeVersion()), directory);
    }

    /** Makes a fresh core of {@code run} of a given build of its program (another optimization level). */
    public static StoppedFixture makeCore(FixtureRun run, Path executable, Path directory) {
        requireTool("gdb");
        try {
            Files.createDirectories(directory);
            Path core = directory.resolve("core");
            Path facts = directory.resolve("facts.properties");
            Files.deleteIfExists(core);
            Files.deleteIfExists(facts);
            List<String> command = new ArrayList<>(List.of("gdb", "-batch", "-nx",
                    "-ex", "set pagination off", "-ex", "set confirm off",
                    "-ex", "set startup-with-shell off",
                    "-ex", "break jompd_marker", "-ex", "run",
                    "-ex", "gcore " + core, "-ex", "kill", "--args", executable.toString()));
            command.addAll(run.arguments());
            Map<String, String> env = new java.util.HashMap<>(run.programEnvironment());
            env.put("JOMPD_FACTS", facts.toString());
            Commands.Result result = Commands.run(command, env, directory, Duration.ofMinutes(3));
            if (!result.output().contains("Breakpoint 1, ") || !Files.isRegularFile(core)
                    || !Files.isRegularFile(facts)) {
                throw new IllegalStateException("fixture " + run + " did not reach its marker under gdb:\n"
                        + result.output());
            }
            return new StoppedFixture(run, executable, core, Facts.read(facts));
        } catch (IOException e) {
            throw new UncheckedIOException("running " + run + " under gdb", e);
        }
    }

    /** Starts {@code run} live and waits until it holds at its marker (see {@link LiveFixture}). */
    public static LiveFixture live(FixtureRun run) {
        return LiveFixture.start(run, FixtureBuilder.executable(run.fixture(), run.runtimeVersion()),
                workDirectory().resolve(run.label() + "-live-" + System.nanoTime()));
    }

    /** Starts {@code run} of a given build of its program live, held at its marker. */
    public static LiveFixture live(FixtureRun run, Path executable) {
        return LiveFixture.start(run, executable, workDirectory().resolve(run.label() + "-live-" + System.nanoTime()));
    }

    /** Where cores and facts go (a directory for a test's own files, such as a stripped library). */
    public static Path workDirectory(String name) {
        try {
            return Files.createDirectories(workDirectory().resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts {@code run} live through {@code launcher}, a command that execs the program it is given
     * (such as {@code jompd run --}), and waits until it holds at its marker.
     */
    public static LiveFixture live(FixtureRun run, List<String> launcher) {
        return LiveFixture.start(run, launcher, FixtureBuilder.executable(run.fixture(), run.runtimeVersion()),
                workDirectory().resolve(run.label() + "-live-" + System.nanoTime()));
    }

    /** The executable of {@code run}'s fixture, built once. */
    public static Path executable(FixtureRun run) {
        return FixtureBuilder.executable(run.fixture(), run.runtimeVersion());
    }

    /**
     * Where cores and facts go: the module's target directory under Maven (kept for inspection, gone
     * with mvn clean), otherwise a temporary directory deleted when the JVM exits (cores can be GBs).
     */
    static synchronized Path workDirectory() {
        Path target = Path.of("target");
        try {
            if (Files.isDirectory(target)) {
                return Files.createDirectories(target.resolve("jompd-fixtures")).toAbsolutePath();
            }
            if (temporaryWorkDirectory == null) {
                temporaryWorkDirectory = Files.createTempDirectory("jompd-fixtures-");
                Path doomed = temporaryWorkDirectory;
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteRecursively(doomed)));
            }
            return temporaryWorkDirectory;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path temporaryWorkDirectory;

    /** Deletes {@code directory} and what it holds, as far as it can (a test's own scratch directory, at its end). */
    public static void deleteRecursively(Path directory) {
        try (var files = Files.walk(directory)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // best effort at exit
        }
    }

    static void requireTool(String tool) {
        if (!Commands.available(tool)) {
            throw new IllegalStateException(tool + " is not installed: run scripts/setup-system.sh");
        }
    }
}
