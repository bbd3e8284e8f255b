package dev.jompd.job.sources;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a short command (squeue, scontrol) and takes its output with a bounded wait: the output is read
 * while the command runs, by a thread of its own, so that neither a command that fills its pipe nor one
 * that never ends holds the caller past the timeout.
 */
final class Commands {
    /** More output than any squeue or scontrol answer of a job's steps: the rest is not kept. */
    static final int MAX_OUTPUT = 16 << 20;
    /** How long the output may take to end once the command has (a child of it may hold the pipe). */
    private static final Duration DRAIN = Duration.ofSeconds(1);

    private Commands() {}

    /** What the command said (standard output and error together) and how it ended. */
    record Result(int exitCode, String output) {}

    /**
     * Runs {@code command} with no input.
     *
     * @throws IOException when it cannot be started, does not end within {@code timeout} (it is killed), or
     *                     says more than {@link #MAX_OUTPUT} bytes
     */
    static Result run(List<String> command, Duration timeout) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        boolean[] overflowed = {false};
        Thread reader = Thread.ofPlatform().daemon().name("jompd-" + command.getFirst()).start(() -> {
            try (InputStream in = process.getInputStream()) {
                byte[] buffer = new byte[8192];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    synchronized (output) {
                        if (output.size() + n > MAX_OUTPUT) {
                            overflowed[0] = true;
                        } else {
                            output.write(buffer, 0, n);
                        }
                    }
                }
            } catch (IOException ignored) {
                // the command ended, or was killed
            }
        });
        String name = String.join(" ", command);
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException(name + " did not answer in " + timeout.toMillis() / 1000.0 + " s");
            }
            reader.join(DRAIN);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(name + ": interrupted", e);
        }
        synchronized (output) {
            if (overflowed[0]) {
                throw new IOException(name + " said more than " + (MAX_OUTPUT >> 20) + " MiB");
            }
            return new Result(process.exitValue(), output.toString(StandardCharsets.UTF_8));
        }
    }
}
