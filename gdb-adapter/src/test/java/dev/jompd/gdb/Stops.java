package dev.jompd.gdb;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.StoppedFixture;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One fixture stopped at its marker, as gdb reaches it on each kind of target: the gdb options and
 * commands that get there, and the facts the program recorded. A stop serves one gdb run.
 */
final class Stops {
    private Stops() {}

    /** How gdb gets at the program. */
    enum Backend {
        /** {@code gdb prog core}: a core file gcore wrote at the marker. */
        CORE("core:"),
        /** gdb runs the program to {@code break jompd_marker}. */
        LIVE("pid:"),
        /** {@code gdb -p PID} on a process held at its marker. */
        ATTACHED("pid:"),
        /** gdbserver on loopback runs the program; gdb connects with {@code target remote}. */
        REMOTE("remote:");

        /** How the bridge names its backend: the prefix of the address space's name. */
        final String backendPrefix;

        Backend(String backendPrefix) {
            this.backendPrefix = backendPrefix;
        }
    }

    /** One stop for one gdb run. */
    interface Stop extends AutoCloseable {
        List<String> setup();

        List<String> arguments();

        Map<String, String> environment();

        /** The program's facts (for a program gdb runs itself, readable once gdb has reached the marker). */
        Facts facts();

        Backend backend();

        @Override
        void close();
    }

    static Stop at(Backend backend, FixtureRun run, Path directory) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return switch (backend) {
            case CORE -> core(run);
            case LIVE -> live(run, directory);
            case ATTACHED -> attached(run);
            case REMOTE -> remote(run, directory);
        };
    }

    static Map<String, String> programEnvironment(FixtureRun run, Path facts) {
        Map<String, String> env = new HashMap<>();
        env.put("OMP_DEBUG", "enabled");
        env.put("MALLOC_ARENA_MAX", "1"); // as the test kit runs fixtures: small cores, OpenMP unaffected
        env.putAll(run.environment());
        env.put("JOMPD_FACTS", facts.toString());
        return env;
    }

    private static Stop core(FixtureRun run) {
        StoppedFixture fixture = Fixtures.core(run);
        return new Stop() {
            public List<String> setup() { return List.of(); }
            public List<String> arguments() { return List.of(fixture.executable().toString(), fixture.core().toString()); }
            public Map<String, String> environment() { return Map.of(); }
            public Facts facts() { return fixture.facts(); }
            public Backend backend() { return Backend.CORE; }
            public void close() {}
        };
    }

    private static Stop live(FixtureRun run, Path directory) {
        Path executable = FixtureBuilder.executable(run.fixture(), run.runtimeVersion());
        Path facts = directory.resolve("facts-" + System.nanoTime() + ".properties");
        List<String> arguments = new ArrayList<>(List.of("--args", executable.toString()));
        arguments.addAll(run.arguments());
        return new Stop() {
            public List<String> setup() {
                return List.of("-ex", "set startup-with-shell off", "-ex", "break jompd_marker", "-ex", "run");
            }
            public List<String> arguments() { return arguments; }
            public Map<String, String> environment() { return programEnvironment(run, facts); }
            public Facts facts() { return Facts.read(facts); }
            public Backend backend() { return Backend.LIVE; }
            public void close() {}
        };
    }

    private static Stop attached(FixtureRun run) {
        LiveFixture held = Fixtures.live(run);
        Path executable = FixtureBuilder.executable(run.fixture(), run.runtimeVersion());
        return new Stop() {
            public List<String> setup() { return List.of(); }
            public List<String> arguments() { return List.of(executable.toString(), "-p", Long.toString(held.pid())); }
            public Map<String, String> environment() { return Map.of(); }
            public Facts facts() { return held.facts(); }
            public Backend backend() { return Backend.ATTACHED; }
            public void close() {
                try {
                    if (held.isAlive()) {
                        String output = held.release();
                        if (!output.contains("JOMPD_RESULT ok")) {
                            throw new AssertionError("the attached program did not finish correctly after gdb "
                                    + "detached:\n" + output);
                        }
                    }
                } finally {
                    held.close();
                }
            }
        };
    }

    private static Stop remote(FixtureRun run, Path directory) {
        Path executable = FixtureBuilder.executable(run.fixture(), run.runtimeVersion());
        Path facts = directory.resolve("facts-" + System.nanoTime() + ".properties");
        int port = freePort();
        List<String> command = new ArrayList<>(List.of("gdbserver", "--once", "127.0.0.1:" + port, executable.toString()));
        command.addAll(run.arguments());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).directory(directory.toFile());
        builder.environment().putAll(programEnvironment(run, facts));
        Process server;
        try {
            server = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("starting gdbserver", e);
        }
        StringBuilder log = new StringBuilder();
        CompletableFuture<Boolean> listening = CompletableFuture.supplyAsync(() -> {
            try {
                BufferedReader reader = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
                boolean seen = false;
                for (String line; (line = reader.readLine()) != null; ) {
                    synchronized (log) {
                        log.append(line).append('\n');
                    }
                    if (line.contains("Listening on port") && !seen) {
                        seen = true;
                        synchronized (log) {
                            log.notifyAll();
                        }
                    }
                }
                return seen;
            } catch (IOException e) {
                return false;
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        synchronized (log) {
            while (!log.toString().contains("Listening on port") && System.nanoTime() < deadline && !listening.isDone()) {
                try {
                    log.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (!log.toString().contains("Listening on port")) {
                server.destroyForcibly();
                throw new IllegalStateException("gdbserver did not start:\n" + log);
            }
        }
        return new Stop() {
            public List<String> setup() {
                return List.of("-ex", "target remote 127.0.0.1:" + port, "-ex", "break jompd_marker", "-ex", "continue");
            }
            public List<String> arguments() { return List.of(executable.toString()); }
            public Map<String, String> environment() { return Map.of(); }
            public Facts facts() { return Facts.read(facts); }
            public Backend backend() { return Backend.REMOTE; }
            public void close() {
                server.descendants().forEach(ProcessHandle::destroyForcibly);
                server.destroyForcibly();
            }
        };
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
