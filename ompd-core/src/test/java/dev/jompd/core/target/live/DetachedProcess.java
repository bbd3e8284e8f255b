package dev.jompd.core.target.live;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A program started so that it is <em>not</em> this JVM's child: a shell forks it and waits for it.
 * The JDK's process reaper waits on every child the JVM starts, and a thread of the tracer's process
 * waiting on the tracee takes the tracee's ptrace stops; as the shell's child, the program is safe to
 * ptrace from here. Its stdin and stdout are still ours (through the shell), and its exit status is
 * the shell's.
 */
final class DetachedProcess implements AutoCloseable {
    private static final String CHILD_LINE = "JOMPD_CHILD ";
    /** The explicit {@code <&3} keeps stdin: a non-interactive shell gives background jobs /dev/null. */
    private static final String LAUNCHER = "exec 3<&0; \"$@\" <&3 3<&- & echo \"" + CHILD_LINE + "$!\"; wait $!";

    private final Process shell;
    private final long pid;
    /** Every line so far; {@link #awaitLine} takes each at most once, and leaves the others. */
    private final List<String> lines = new ArrayList<>();
    private final List<Boolean> taken = new ArrayList<>();
    private final StringBuilder output = new StringBuilder();
    private final Thread drainer;

    private DetachedProcess(Process shell, BufferedReader stdout) {
        this.shell = shell;
        this.drainer = Thread.ofPlatform().daemon().name("detached-process-stdout").start(() -> drain(stdout));
        String first = awaitLine(CHILD_LINE, Duration.ofSeconds(30));
        this.pid = Long.parseLong(first.substring(CHILD_LINE.length()).strip());
    }

    static DetachedProcess start(List<String> command, Map<String, String> environment, Path directory, Path stderr) {
        List<String> full = new ArrayList<>(List.of("/bin/sh", "-c", LAUNCHER, "sh"));
        full.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(full).directory(directory.toFile())
                .redirectError(stderr.toFile());
        builder.environment().putAll(environment);
        try {
            Process shell = builder.start();
            return new DetachedProcess(shell, new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("starting " + command, e);
        }
    }

    private void drain(BufferedReader stdout) {
        try (stdout) {
            for (String line; (line = stdout.readLine()) != null; ) {
                synchronized (output) {
                    output.append(line).append('\n');
                }
                synchronized (lines) {
                    lines.add(line);
                    taken.add(false);
                    lines.notifyAll();
                }
            }
        } catch (IOException ignored) {
            // the process went away; what was read is kept
        }
    }

    /** The program's process id (not the shell's). */
    long pid() {
        return pid;
    }

    /** Waits for the first line not taken yet that starts with {@code prefix}, and takes it. */
    String awaitLine(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            try {
                while (true) {
                    for (int i = 0; i < lines.size(); i++) {
                        if (!taken.get(i) && lines.get(i).startsWith(prefix)) {
                            taken.set(i, true);
                            return lines.get(i);
                        }
                    }
                    long remaining = deadline - System.nanoTime();
                    if (remaining <= 0) {
                        throw new IllegalStateException("no line starting with " + prefix + " within " + timeout
                                + "; output so far:\n" + output());
                    }
                    TimeUnit.NANOSECONDS.timedWait(lines, remaining);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    void writeLine(String line) {
        try {
            OutputStream stdin = shell.getOutputStream();
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to process " + pid, e);
        }
    }

    /** Waits for the program to end; its exit status. */
    int waitFor(Duration timeout) {
        try {
            if (!shell.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("process " + pid + " did not finish within " + timeout + "; output:\n" + output());
            }
            drainer.join(Duration.ofSeconds(10));
            return shell.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    boolean isAlive() {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Override
    public void close() {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        shell.destroyForcibly();
        try {
            shell.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
