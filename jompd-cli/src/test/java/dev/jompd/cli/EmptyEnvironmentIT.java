package dev.jompd.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The distribution's launchers started with an empty environment ({@code env -i}, as some service managers,
 * cron and sandboxes start programs): no HOME, no PATH, no JAVA_HOME. They once stopped at once on
 * "HOME: unbound variable"; they must answer as with the user's environment, their cache where ~ is (the
 * user's passwd entry).
 */
class EmptyEnvironmentIT {
    private static final Path BIN = Path.of("target/jompd/bin").toAbsolutePath();

    private record Run(int exitCode, String out, String err) {}

    private static Run run(List<String> command, Map<String, String> environment, Path directory)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile(directory, "out-", ".txt");
        Path err = Files.createTempFile(directory, "err-", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        if (environment != null) {
            builder.environment().clear();
            builder.environment().putAll(environment);
        }
        Process process = builder.start();
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("%s finished", command).isTrue();
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void jompdAnswersItsVersionWithNoEnvironmentAsWithTheUsers(@TempDir Path directory) throws Exception {
        List<String> command = List.of(BIN.resolve("jompd").toString(), "--version");
        Run withUsers = run(command, null, directory);
        assertThat(withUsers.exitCode()).as(withUsers.err()).isZero();
        assertThat(withUsers.out()).startsWith("jompd ");
        // JOMPD_NO_CDS: this test leaves no class-data archive in the user's real cache
        Run empty = run(command, Map.of("JOMPD_NO_CDS", "1"), directory);
        assertThat(empty.err()).isEmpty();
        assertThat(empty.exitCode()).isZero();
        assertThat(empty.out()).isEqualTo(withUsers.out());
    }

    @Test
    void theRecorderLauncherBuildsIntoTheCacheOfTheUsersHome(@TempDir Path directory) throws Exception {
        List<String> command = List.of(BIN.resolve("jompd-recorder").toString());
        Run empty = run(command, Map.of(), directory);
        assertThat(empty.exitCode()).as(empty.err()).isZero();
        Path library = Path.of(empty.out().strip());
        assertThat(library).isRegularFile().hasFileName("libjompd-recorder.so");
        Path home = Path.of(System.getProperty("user.home")); // the JVM's: from the passwd entry, as bash's ~
        assertThat(library.startsWith(home.resolve(".cache/jompd/recorder"))).as("%s", library).isTrue();
    }
}
