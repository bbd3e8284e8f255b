package dev.jompd.core.target.live;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.FixtureRun;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fixture held at its marker ({@code JOMPD_HOLD=1}), like the test kit's {@code LiveFixture}, but
 * started as a {@link DetachedProcess} so that this JVM can ptrace it (LiveFixture's program is the
 * JVM's child, whose ptrace stops the JDK's process reaper would take).
 */
final class HeldFixture implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private final FixtureRun run;
    private final DetachedProcess process;
    private final Facts facts;
    private final Path executable;

    private HeldFixture(FixtureRun run, DetachedProcess process, Facts facts, Path executable) {
        this.run = run;
        this.process = process;
        this.facts = facts;
        this.executable = executable;
    }

    static HeldFixture start(FixtureRun run, Path directory) {
        Path executable = FixtureBuilder.executable(run.fixture(), run.runtimeVersion());
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path factsFile = directory.resolve("facts.properties");
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("OMP_DEBUG", "enabled");
        environment.putAll(run.environment());
        environment.put("JOMPD_HOLD", "1");
        environment.put("JOMPD_FACTS", factsFile.toString());
        List<String> command = new ArrayList<>(List.of(executable.toString()));
        command.addAll(run.arguments());
        DetachedProcess process = DetachedProcess.start(command, environment, directory, directory.resolve("stderr.txt"));
        try {
            String marker = process.awaitLine("JOMPD_AT_MARKER", TIMEOUT);
            long announced = Long.parseLong(marker.substring("JOMPD_AT_MARKER".length()).strip());
            if (announced != process.pid()) {
                throw new IllegalStateException("fixture announced pid " + announced + ", started " + process.pid());
            }
            return new HeldFixture(run, process, Facts.read(factsFile), executable);
        } catch (RuntimeException e) {
            process.close();
            throw e;
        }
    }

    long pid() { return process.pid(); }

    Facts facts() { return facts; }

    FixtureRun run() { return run; }

    Path executable() { return executable; }

    boolean isAlive() { return process.isAlive(); }

    /** Lets the program go on past its marker; its stdout (with the JOMPD_RESULT line) and exit status. */
    Finished release() {
        process.writeLine("");
        int exitCode = process.waitFor(TIMEOUT);
        return new Finished(exitCode, process.output());
    }

    record Finished(int exitCode, String output) {}

    @Override
    public void close() {
        process.close();
    }
}
