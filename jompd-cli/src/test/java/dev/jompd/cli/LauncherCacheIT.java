package dev.jompd.cli;

import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The distribution's scripts (bin/jompd, bin/jompd-recorder) keep class archives, the recorder library and notes
 * in a cache directory: code that later runs. They use it only when it is the user's alone, else run without it
 * and say so once on stderr: a shared XDG_CACHE_HOME, and root under {@code sudo -E} with another user's HOME.
 */
class LauncherCacheIT {
    private static final int NOBODY = 65534;
    private static final Path DISTRIBUTION = Runtimes.repositoryRoot().resolve("jompd-cli/target/jompd");

    @TempDir
    static Path work;

    @BeforeAll
    static void built() {
        Assumptions.assumeTrue(Files.isExecutable(DISTRIBUTION.resolve("bin/jompd")), "mvn package builds " + DISTRIBUTION);
    }

    private record Run(int exit, String stdout, String stderr) {}

    private static Run run(Map<String, String> environment, List<String> unset, String... command) throws Exception {
        Path out = Files.createTempFile(work, "out-", ".txt");
        Path err = Files.createTempFile(work, "err-", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().keySet().removeAll(List.of("JOMPD_NO_CDS", "JOMPD_NO_AOT", "JOMPD_CACHE", "XDG_CACHE_HOME",
                "JOMPD_RECORDER", "JOMPD_JAVA_OPTIONS"));
        builder.environment().keySet().removeAll(unset);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().putAll(environment);
        Process process = builder.start();
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("%s ended", List.of(command)).isTrue();
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private static List<String> names(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(path -> path.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aCacheOthersCanWriteIsNotUsedAndSaidOnce() throws Exception {
        Path shared = Files.createDirectories(work.resolve("shared/jompd"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Run run = run(Map.of("XDG_CACHE_HOME", shared.getParent().toString()), List.of(),
                DISTRIBUTION.resolve("bin/jompd").toString(), "--help");
        assertThat(run.exit()).isZero();
        assertThat(run.stdout()).startsWith("Usage: jompd");
        assertThat(run.stderr()).isEqualTo("jompd: not using the cache directory " + shared + ": " + shared
                + " can be written by its group or others (mode 777); running without it (no start-up archive, nothing "
                + "kept)\n");
        assertThat(names(shared)).as("written in the shared cache").isEmpty();
    }

    @Test
    void rootWithAnotherUsersHomeMakesNoCacheThere() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "needs root, to give a home to nobody");
        Path home = Files.createDirectories(work.resolve("home-of-nobody"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setAttribute(home, "unix:uid", NOBODY);
        Run run = run(Map.of("HOME", home.toString()), List.of(), DISTRIBUTION.resolve("bin/jompd").toString(), "--help");
        assertThat(run.exit()).isZero();
        assertThat(run.stderr()).isEqualTo("jompd: not using the cache directory " + home.resolve(".cache/jompd")
                + ": its directory " + home + " belongs to user nobody (uid 65534), who can replace what it holds; "
                + "running without it (no start-up archive, nothing kept)\n");
        assertThat(names(home)).as("made in nobody's home").isEmpty();
    }

    @Test
    void aCacheOfTheUsersAloneIsMadeAndUsedSilently() throws Exception {
        Path base = work.resolve("mine");
        Run run = run(Map.of("XDG_CACHE_HOME", base.toString()), List.of(), DISTRIBUTION.resolve("bin/jompd").toString(),
                "--help");
        assertThat(run.exit()).isZero();
        assertThat(run.stderr()).isEmpty();
        Path cache = base.resolve("jompd");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cache))).isEqualTo("rwx------");
        String jarStamp = Long.toString(Files.getLastModifiedTime(DISTRIBUTION.resolve("lib/jompd-cli.jar")).toMillis() / 1000);
        assertThat(names(cache)).contains("jompd-" + jarStamp + ".jsa")
                .anyMatch(name -> name.startsWith("java-ok-")).hasSize(2);
    }

    @Test
    void theRecorderIsNeitherBuiltNorLoadedFromACacheOthersCanWrite() throws Exception {
        Path shared = Files.createDirectories(work.resolve("shared-recorder"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Run run = run(Map.of("JOMPD_CACHE", shared.toString()), List.of(),
                DISTRIBUTION.resolve("bin/jompd-recorder").toString());
        assertThat(run.exit()).isEqualTo(1);
        assertThat(run.stdout()).isEmpty();
        assertThat(run.stderr()).isEqualTo("jompd-recorder: not building or loading the recorder in " + shared + ": "
                + shared + " can be written by its group or others (mode 777) (set JOMPD_CACHE to a directory of yours "
                + "alone, or JOMPD_RECORDER to a built libjompd-recorder.so)\n");
        assertThat(names(shared)).as("written in the shared cache").isEmpty();
    }
}
