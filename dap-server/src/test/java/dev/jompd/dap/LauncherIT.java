package dev.jompd.dap;

import com.google.gson.JsonObject;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The distribution's launcher as a client starts it, one process per session over standard streams:
 * the first session records the ahead-of-time cache, later ones run on it, a broken cache is passed
 * over, and nothing but DAP ever reaches standard output (the JVM's own warnings go to stderr).
 */
class LauncherIT {
    private static final Path LAUNCHER = Path.of(System.getProperty("jompd.dap.distribution", "target/jompd-dap"),
            "bin", "jompd-dap");
    private static final Duration STOP = Duration.ofSeconds(120);

    /** One jompd-dap process in stdio mode, its standard error kept in a file. */
    private record Server(Process process, DapTestClient client, Path stderr) implements AutoCloseable {
        static Server start(Path cache, Path stderr, Map<String, String> environment) throws IOException {
            ProcessBuilder builder = new ProcessBuilder(LAUNCHER.toString()).redirectError(stderr.toFile());
            builder.environment().put("XDG_CACHE_HOME", cache.toString());
            builder.environment().remove("JOMPD_DAP_AOT");
            builder.environment().putAll(environment);
            Process process = builder.start();
            return new Server(process, new DapTestClient(process.getInputStream(), process.getOutputStream(),
                    () -> process.getOutputStream().close()), stderr);
        }

        /** Ends the session as a client does (disconnect, end of input); true when the process is gone. */
        boolean end() throws Exception {
            client.body("disconnect", args("terminateDebuggee", true));
            client.close();
            return process.waitFor(2, TimeUnit.MINUTES); // the recording session writes the cache now
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }

    /** A session to the marker of `parallel 4`: OpenMP thread names checked against the program's facts. */
    private static void sessionToTheMarker(DapTestClient client, Path work) throws Exception {
        Path facts = work.resolve("facts-" + System.nanoTime() + ".properties");
        client.body("initialize", args("adapterID", "jompd"));
        client.body("launch", args("program", FixtureBuilder.executable(Fixture.PARALLEL).toString(), "args", array("4"),
                "environment", array(args("name", "JOMPD_FACTS", "value", facts.toString()))));
        client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", "jompd_marker"))));
        client.body("configurationDone", null);
        client.event("stopped", STOP);
        OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), Facts.read(facts));
    }

    private static List<Path> cacheFiles(Path cache) throws IOException {
        Path directory = cache.resolve("jompd");
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> f.getFileName().toString().startsWith("jompd-dap-")).sorted().toList();
        }
    }

    @Test
    void firstSessionRecordsTheCacheLaterOnesUseItABrokenOneIsPassedOver(@TempDir Path work) throws Exception {
        Path cache = Files.createDirectories(work.resolve("cache"));

        try (Server first = Server.start(cache, work.resolve("first.err"), Map.of())) {
            sessionToTheMarker(first.client(), work);
            assertThat(first.end()).as("the recording session ends").isTrue();
            assertThat(first.client().strayLines()).as("standard output is DAP only").isEmpty();
        }
        List<Path> files = cacheFiles(cache);
        assertThat(files).as("one complete cache, no leftovers of the recording").hasSize(1);
        assertThat(files.getFirst().getFileName().toString()).endsWith(".aot");
        assertThat(Files.size(files.getFirst())).isGreaterThan(1 << 20);

        // AOTMode=on: the JVM refuses to start unless it can use the cache
        try (Server second = Server.start(cache, work.resolve("second.err"),
                Map.of("JOMPD_DAP_JAVA_OPTIONS", "-XX:AOTMode=on"))) {
            sessionToTheMarker(second.client(), work);
            assertThat(second.end()).isTrue();
            assertThat(second.process().exitValue()).as(Files.readString(second.stderr())).isZero();
            assertThat(second.client().strayLines()).isEmpty();
        }

        byte[] whole = Files.readAllBytes(files.getFirst());
        Files.write(files.getFirst(), Arrays.copyOf(whole, whole.length / 3));
        try (Server broken = Server.start(cache, work.resolve("broken.err"), Map.of())) {
            sessionToTheMarker(broken.client(), work);
            assertThat(broken.end()).isTrue();
            assertThat(broken.client().strayLines()).as("the JVM's complaint stays off the DAP stream").isEmpty();
            assertThat(Files.readString(broken.stderr())).contains("AOT cache");
        }
    }

    @Test
    void aRecordingSessionEndedBySigtermStillLeavesTheCacheAndOnlyTheNewestThreeStay(@TempDir Path work)
            throws Exception {
        Path cache = Files.createDirectories(work.resolve("cache"));
        Path directory = Files.createDirectories(cache.resolve("jompd"));
        List<Path> older = new ArrayList<>();
        for (int age = 1; age <= 3; age++) { // caches of other installations, one to three days old
            Path old = Files.writeString(directory.resolve("jompd-dap-old" + age + ".aot"), "x");
            Files.setLastModifiedTime(old, FileTime.from(
                    Instant.now().minus(Duration.ofDays(age))));
            older.add(old);
        }
        try (Server server = Server.start(cache, work.resolve("err"), Map.of())) {
            sessionToTheMarker(server.client(), work);
            server.process().destroy(); // SIGTERM to the launcher, as a client stopping its adapter sends
            assertThat(server.process().waitFor(2, TimeUnit.MINUTES)).isTrue();
        }
        List<Path> files = cacheFiles(cache);
        assertThat(files).hasSize(3).allMatch(f -> f.getFileName().toString().endsWith(".aot"))
                .contains(older.get(0), older.get(1)).doesNotContain(older.get(2));
    }

    @Test
    void withoutTheCacheNothingIsRecorded(@TempDir Path work) throws Exception {
        Path cache = Files.createDirectories(work.resolve("cache"));
        try (Server server = Server.start(cache, work.resolve("err"), Map.of("JOMPD_DAP_AOT", "off"))) {
            JsonObject capabilities = server.client().body("initialize", args("adapterID", "jompd"));
            assertThat(capabilities.get("supportsConfigurationDoneRequest").getAsBoolean()).isTrue();
            server.client().close();
            assertThat(server.process().waitFor(1, TimeUnit.MINUTES)).isTrue();
        }
        assertThat(cacheFiles(cache)).isEmpty();
    }

    /**
     * Started with an empty environment (env -i: no HOME, no PATH), the launcher once stopped on "HOME: unbound
     * variable" before the server started; now a session reaches the marker as with the user's environment.
     * (No cache, so that the test records none in the user's real one: the cache's directory is computed first.)
     */
    @Test
    void withAnEmptyEnvironmentASessionReachesTheMarker(@TempDir Path work) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(LAUNCHER.toAbsolutePath().toString())
                .redirectError(work.resolve("err").toFile());
        builder.environment().clear();
        builder.environment().put("JOMPD_DAP_AOT", "off");
        Process process = builder.start();
        try {
            try (DapTestClient client = new DapTestClient(process.getInputStream(), process.getOutputStream(),
                    () -> process.getOutputStream().close())) {
                sessionToTheMarker(client, work);
                client.body("disconnect", args("terminateDebuggee", true));
            }
            assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
        } finally {
            process.destroyForcibly();
        }
        assertThat(Files.readString(work.resolve("err"))).doesNotContain("unbound variable");
    }

    /**
     * A cache others can write (a shared XDG_CACHE_HOME): the ahead-of-time cache is code the JVM runs, so the
     * session neither records nor uses one there, and says so once on stderr (never on stdout, the DAP stream).
     */
    @Test
    void aCacheOthersCanWriteIsNeitherRecordedNorUsed(@TempDir Path work) throws Exception {
        Path cache = Files.createDirectories(work.resolve("shared"));
        Path directory = Files.createDirectories(cache.resolve("jompd"));
        Files.setPosixFilePermissions(directory, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        try (Server server = Server.start(cache, work.resolve("err"), Map.of())) {
            JsonObject capabilities = server.client().body("initialize", args("adapterID", "jompd"));
            assertThat(capabilities.get("supportsConfigurationDoneRequest").getAsBoolean()).isTrue();
            server.client().close();
            assertThat(server.process().waitFor(1, TimeUnit.MINUTES)).isTrue();
            assertThat(server.client().strayLines()).isEmpty();
        }
        try (Stream<Path> files = Files.list(directory)) {
            assertThat(files.toList()).as("written in the shared cache").isEmpty();
        }
        assertThat(Files.readString(work.resolve("err"))).isEqualTo("jompd-dap: not using the cache directory "
                + directory + ": " + directory + " can be written by its group or others (mode 777); running without it "
                + "(no ahead-of-time cache)\njompd-dap: connection stdio closed: end of input\n");
    }
}
