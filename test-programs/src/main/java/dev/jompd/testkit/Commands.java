package dev.jompd.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs external commands (compilers, gdb) with a deadline, capturing their combined output. */
public final class Commands {
    private Commands() {}

    public record Result(int exitCode, String output) {}

    public static Result run(List<String> command, Map<String, String> environment, Path workingDirectory,
                             Duration timeout) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().putAll(environment);
        if (workingDirectory != null) {
            builder.directory(workingDirectory.toFile());
        }
        Process process = builder.start();
        // Its own thread, not the common pool (one thread on 2 cores, possibly busy elsewhere).
        CompletableFuture<String> output = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("jompd-command-output").start(() -> {
            try {
                output.complete(readAll(process.getInputStream()));
            } catch (RuntimeException e) {
                output.completeExceptionally(e);
            }
        });
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                throw new IOException("timed out after " + timeout + ": " + String.join(" ", command)
                        + "\n" + output.getNow(""));
            }
            return new Result(process.exitValue(), output.join());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
    }

    static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether an executable of that name is on the PATH. */
    public static boolean available(String executable) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && java.nio.file.Files.isExecutable(Path.of(dir, executable))) {
                return true;
            }
        }
        return false;
    }
}
