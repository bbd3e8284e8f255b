package dev.jompd.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A fixture process running live with {@code JOMPD_HOLD=1}: it reaches its marker, announces
 * {@code JOMPD_AT_MARKER <pid>} and blocks reading stdin. A test attaches meanwhile, then
 * {@link #release()}s it and checks that it finished correctly. Closing kills whatever is left.
 *
 * <p>The program is started by a shell, not by the JVM: the JDK's process reaper waits on every child
 * of the JVM, and in the same process as a ptrace tracer it would take the tracee's stops. So the
 * JVM's child is {@code sh}, the program is the shell's child, and its pid comes from its own
 * announcement.
 */
public final class LiveFixture implements AutoCloseable {
    private static final long MARKER_TIMEOUT_SECONDS = 120;

    private final FixtureRun run;
    private final Process process;
    private final long programPid;
    private final Facts facts;
    private final StringBuilder output = new StringBuilder();
    private final CompletableFuture<Void> drained;

    private LiveFixture(FixtureRun run, Process process, long programPid, Facts facts, BufferedReader stdout) {
        this.run = run;
        this.process = process;
        this.programPid = programPid;
        this.facts = facts;
        // A thread of its own: on a 2-core machine the common pool has one thread, and a drain parked
        // there for the program's whole life would starve every other async task (Commands.run's).
        this.drained = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("jompd-fixture-drain-" + run.label()).start(() -> {
            drain(stdout);
            drained.complete(null);
        });
    }

    static LiveFixture start(FixtureRun run, Path executable, Path directory) {
        return start(run, List.of(), executable, directory);
    }

    /** Starts the program through {@code launcher} (such as {@code jompd run --}), which must exec it. */
    static LiveFixture start(FixtureRun run, List<String> launcher, Path executable, Path directory) {
        try {
            Files.createDirectories(directory);
            Path facts = directory.resolve("facts.properties");
            // sh keeps our stdin pipe on fd 3 for the program, runs it in the background (so it is the
            // shell's child, not the JVM's) and waits for it, passing its exit status on.
            List<String> command = new ArrayList<>(List.of("/bin/sh", "-c",
                    "exec 3<&0; \"$@\" <&3 3<&- & wait $!", "sh"));
            command.addAll(launcher);
            command.add(executable.toString());
            command.addAll(run.arguments());
            ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectError(directory.resolve("stderr.txt").toFile());
            builder.environment().putAll(run.programEnvironment());
            builder.environment().put("JOMPD_HOLD", "1");
            builder.environment().put("JOMPD_FACTS", facts.toString());
            Process process = builder.start();
            BufferedReader stdout = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            CompletableFuture<String> announcement = new CompletableFuture<>();
            Thread.ofPlatform().daemon().name("jompd-fixture-marker").start(() -> {
                try {
                    for (String line; (line = stdout.readLine()) != null; ) {
                        if (line.startsWith("JOMPD_AT_MARKER")) {
                            announcement.complete(line);
                            return;
                        }
                    }
                    announcement.complete(null);
                } catch (IOException e) {
                    announcement.completeExceptionally(new UncheckedIOException(e));
                }
            });
            String line;
            try {
                line = announcement.get(MARKER_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException e) {
                process.destroyForcibly();
                throw new IllegalStateException("fixture " + run + " did not reach its marker", e);
            }
            if (line == null) {
                process.waitFor(10, TimeUnit.SECONDS);
                throw new IllegalStateException("fixture " + run + " exited before its marker: "
                        + Files.readString(directory.resolve("stderr.txt")));
            }
            long programPid = Long.parseLong(line.substring("JOMPD_AT_MARKER".length()).trim());
            return new LiveFixture(run, process, programPid, Facts.read(facts), stdout);
        } catch (IOException e) {
            throw new UncheckedIOException("starting " + run, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void drain(BufferedReader stdout) {
        try (stdout) {
            for (String line; (line = stdout.readLine()) != null; ) {
                synchronized (output) {
                    output.append(line).append('\n');
                }
            }
        } catch (IOException ignored) {
            // the process went away; what was read is kept
        }
    }

    /** The fixture program's pid (not the shell's that started it). */
    public long pid() {
        return programPid;
    }

    public Facts facts() {
        return facts;
    }

    public FixtureRun run() {
        return run;
    }

    public boolean isAlive() {
        return ProcessHandle.of(programPid).map(ProcessHandle::isAlive).orElse(false);
    }

    /**
     * Lets the program go on past its marker and waits for it to finish.
     *
     * @return its standard output after the marker (with its {@code JOMPD_RESULT} line)
     */
    public String release() {
        try {
            OutputStream stdin = process.getOutputStream();
            stdin.write('\n');
            stdin.flush();
            if (!process.waitFor(MARKER_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("fixture " + run + " did not finish after release");
            }
            drained.get(10, TimeUnit.SECONDS);
            synchronized (output) {
                return output.toString();
            }
        } catch (IOException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("releasing " + run, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public int exitCode() {
        return process.exitValue();
    }

    @Override
    public void close() {
        ProcessHandle.of(programPid).ifPresent(ProcessHandle::destroyForcibly);
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
