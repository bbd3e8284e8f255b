package dev.jompd.cli;

import dev.jompd.job.RankInspection;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An OpenMP process for the training of {@code jompd job}'s ahead-of-time cache (bin/jompd: {@code job-agent
 * --aot-training}, after a job's front end is done), so that the cache holds the classes of the OpenMP read path
 * — the lambdas and string concatenations the JVM otherwise generates in every agent of every job (~550 classes,
 * ~0.5 CPU-s of an agent's ~2.3 at two ranks, measured against a cache trained without one). Never a rank of the
 * job: {@code lib/jompd-aot-team} (a C program of the distribution) on a libomp the last job's ranks used, which
 * the agents and front ends remember in the launcher's cache directory ({@code -Djompd.cache}).
 */
final class JobTraining {
    /** The file in the cache directory that names a libomp a job's ranks used. */
    static final String RUNTIME_FILE = "jompd-job-training-runtime";

    private JobTraining() {}

    /**
     * Remembers the runtime of the first live rank read (the file its memory maps under the runtime's name, from
     * {@code /proc/PID/maps}); nothing without a cache directory or when it is already the one remembered.
     */
    static void rememberRuntime(List<RankInspection> inspections) {
        Optional<Path> cache = cacheDirectory();
        if (cache.isEmpty()) {
            return;
        }
        for (RankInspection inspection : inspections) {
            if (inspection instanceof RankInspection.Seen seen && seen.id().pid() > 0) {
                Optional<String> runtime = mappedFile(seen.id().pid(), seen.picture().target().runtime());
                if (runtime.isPresent()) {
                    remember(cache.get(), runtime.get());
                    return;
                }
            }
        }
    }

    /** The file process {@code pid} maps whose name is {@code name} (or ends in "/" + name). */
    private static Optional<String> mappedFile(long pid, String name) {
        if (name == null || name.isEmpty()) {
            return Optional.empty();
        }
        try (var maps = Files.lines(Path.of("/proc/" + pid + "/maps"))) {
            return maps.map(line -> line.indexOf('/') < 0 ? "" : line.substring(line.indexOf('/')))
                    .filter(file -> file.equals(name) || file.endsWith("/" + name))
                    .filter(file -> Files.isRegularFile(Path.of(file)))
                    .findFirst();
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // the rank has gone meanwhile
        }
    }

    private static void remember(Path cache, String runtime) {
        Path file = cache.resolve(RUNTIME_FILE);
        try {
            if (Files.isRegularFile(file) && Files.readString(file).equals(runtime)) {
                return;
            }
            // several agents of one job may write at once (a shared home): each its own file, then one rename
            Path mine = cache.resolve(RUNTIME_FILE + "." + ProcessHandle.current().pid());
            Files.writeString(mine, runtime);
            Files.move(mine, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            // only the next training's coverage is at stake
        }
    }

    private static Optional<Path> cacheDirectory() {
        String cache = System.getProperty("jompd.cache");
        return cache == null || cache.isBlank() || !Files.isDirectory(Path.of(cache)) ? Optional.empty()
                : Optional.of(Path.of(cache));
    }

    /** The team process: its pid, and the shell to end it with. */
    record Team(long pid, Process shell) implements AutoCloseable {
        @Override
        public void close() {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            shell.destroy();
        }
    }

    /**
     * Starts {@code lib/jompd-aot-team} on the remembered runtime and waits (at most 10 s) until its team is in
     * place; empty when there is no remembered runtime, no program, or it does not get there.
     */
    static Optional<Team> startTeam() {
        Optional<Path> runtime = cacheDirectory().map(cache -> cache.resolve(RUNTIME_FILE)).filter(Files::isRegularFile)
                .flatMap(JobTraining::readPath).filter(Files::isRegularFile);
        Path program = Path.of(System.getProperty("jompd.home", "."), "lib", "jompd-aot-team");
        if (runtime.isEmpty() || !Files.isExecutable(program)) {
            return Optional.empty();
        }
        // a grandchild of this JVM (a JVM cannot trace its own children: its process reaper waits on them)
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", "\"$0\" \"$1\" & echo $!; wait",
                program.toString(), runtime.get().toString())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("OMP_DEBUG", "enabled");
        builder.environment().put("KMP_BLOCKTIME", "0"); // the waiting threads sleep rather than spin
        Process shell;
        try {
            shell = builder.start();
        } catch (IOException e) {
            return Optional.empty();
        }
        BufferedReader lines = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<OptionalLong> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String pid = lines.readLine();
                String line = lines.readLine();
                return pid != null && pid.strip().matches("\\d+") && "ready".equals(line)
                        ? OptionalLong.of(Long.parseLong(pid.strip())) : OptionalLong.empty();
            } catch (IOException e) {
                return OptionalLong.empty();
            }
        });
        try {
            OptionalLong pid = ready.get(10, TimeUnit.SECONDS);
            if (pid.isPresent()) {
                return Optional.of(new Team(pid.getAsLong(), shell));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // not there: trained without it
        }
        shell.descendants().forEach(ProcessHandle::destroyForcibly);
        shell.destroy();
        return Optional.empty();
    }

    private static Optional<Path> readPath(Path file) {
        try {
            String text = Files.readString(file).strip();
            return text.startsWith("/") ? Optional.of(Path.of(text)) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
