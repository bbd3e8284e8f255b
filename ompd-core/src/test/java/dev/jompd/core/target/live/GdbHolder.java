package dev.jompd.core.target.live;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * gdb attached to a process in batch mode, holding it stopped until released: it runs the given
 * commands, prints {@code JOMPD_GDB_HOLDING} and blocks reading a line of its stdin (no sleeping);
 * released, it quits and so detaches.
 */
final class GdbHolder implements AutoCloseable {
    private static final String HOLDING = "JOMPD_GDB_HOLDING";

    private final Process gdb;
    private final String outputBeforeHolding;

    private GdbHolder(Process gdb, String outputBeforeHolding) {
        this.gdb = gdb;
        this.outputBeforeHolding = outputBeforeHolding;
    }

    static GdbHolder attach(long pid, List<String> commands) {
        List<String> command = new ArrayList<>(List.of("gdb", "-batch", "-nx", "-p", Long.toString(pid),
                "-ex", "set confirm off", "-ex", "set pagination off"));
        for (String gdbCommand : commands) {
            command.add("-ex");
            command.add(gdbCommand);
        }
        command.addAll(List.of("-ex", "python print('" + HOLDING + "', flush=True)",
                "-ex", "python import sys; sys.stdin.readline()"));
        try {
            Process gdb = new ProcessBuilder(command).redirectErrorStream(true).start();
            BufferedReader stdout = new BufferedReader(new InputStreamReader(gdb.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> untilHolding = CompletableFuture.supplyAsync(() -> {
                StringBuilder seen = new StringBuilder();
                try {
                    for (String line; (line = stdout.readLine()) != null; ) {
                        if (line.equals(HOLDING)) {
                            // Keep draining so that gdb never blocks on a full pipe.
                            Thread.ofPlatform().daemon().start(() -> stdout.lines().forEach(unused -> { }));
                            return seen.toString();
                        }
                        seen.append(line).append('\n');
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                throw new IllegalStateException("gdb ended before holding the process:\n" + seen);
            });
            return new GdbHolder(gdb, untilHolding.get(60, TimeUnit.SECONDS));
        } catch (Exception e) {
            throw new IllegalStateException("gdb could not attach to " + pid, e);
        }
    }

    long pid() { return gdb.pid(); }

    /** What gdb printed before it began holding (the output of the commands). */
    String output() { return outputBeforeHolding; }

    /** Lets gdb quit (it detaches, the process runs on) and waits for it. */
    void release() {
        try {
            gdb.getOutputStream().write('\n');
            gdb.getOutputStream().flush();
            if (!gdb.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("gdb did not quit");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (gdb.isAlive()) {
            release();
        }
    }
}
