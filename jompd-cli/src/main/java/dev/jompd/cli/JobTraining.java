package dev.jompd.cli;

import dev.jompd.core.launch.OpenMpLaunch;
import dev.jompd.core.launch.OwnedPaths;
import dev.jompd.core.target.live.ProcFs;
import dev.jompd.job.model.RankInspection;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * An OpenMP process for the training of {@code jompd job}'s ahead-of-time cache (bin/jompd: {@code job-agent
 * --aot-training}, after a job's front end is done), so that the cache holds the classes of the OpenMP read path
 * — the lambdas and string concatenations the JVM otherwise generates in every agent of every job (~550 classes,
 * ~0.5 CPU-s of an agent's ~2.3 at two ranks, measured against a cache trained without one). Never a rank of the
 * job: {@code lib/jompd-aot-team} (a C program of the distribution) on a libomp the last job's ranks used, which
 * the agents and front ends remember in the launcher's cache directory ({@code -Djompd.cache}). The team loads
 * that libomp, so only one a rank of this user maps and that nobody but root or this user can change is
 * remembered ({@link OwnedPaths}), else jompd's own: root reading another user's job must never run their code.
 */
final class JobTraining {
    /** The file in the cache directory that names a libomp a job's ranks used. */
    static final String RUNTIME_FILE = "jompd-job-training-runtime";

    private JobTraining() {}

    /**
     * Remembers the runtime of the first live rank read that is safe to load later (see {@link #trainable}), else
     * jompd's own libomp when it is built; nothing without a cache directory or when it is already the one
     * remembered. When a rank's runtime was refused and there is nothing else to remember, {@code say} hears why,
     * once per process and only while the job cache is still to be trained (bin/jompd trains it after the first
     * job).
     */
    static void rememberRuntime(List<RankInspection> inspections, Consumer<String> say) {
        Optional<Path> cache = cacheDirectory();
        if (cache.isEmpty()) {
            return;
        }
        String refused = "";
        for (RankInspection inspection : inspections) {
            if (inspection instanceof RankInspection.Seen seen && seen.id().pid() > 0) {
                Optional<String> runtime = mappedFile(seen.id().pid(), seen.picture().target().runtime());
                if (runtime.isPresent()) {
                    OwnedPaths.Verdict verdict = trainable(seen.id().pid(), Path.of(runtime.get()));
                    if (verdict.trusted()) {
                        remember(cache.get(), verdict.path().orElseThrow().toString());
                        return;
                    }
                    refused = refused.isEmpty() ? runtime.get() + ": " + verdict.why() : refused;
                }
            }
        }
        Optional<Path> own = ownRuntime();
        if (own.isPresent()) {
            remember(cache.get(), own.get().toString());
        } else if (!refused.isEmpty() && trainingFollows(cache.get()) && !WARNED.getAndSet(true)) {
            say.accept("jompd: the job cache's training will run without an OpenMP process: the ranks' runtime is not "
                    + "loaded by jompd (" + refused + ") and jompd's own libomp is not built");
        }
    }

    private static final AtomicBoolean WARNED = new AtomicBoolean();

    /**
     * Whether the training may load {@code runtime}, which rank {@code pid} maps: the rank is this user's (a rank
     * of another user says nothing of what this user may run) and only root or this user can change the file and
     * every directory above it. Root reading user B's job must not run B's code.
     */
    static OwnedPaths.Verdict trainable(long pid, Path runtime) {
        int self = OwnedPaths.effectiveUid();
        Optional<Integer> owner = OwnedPaths.processOwner(pid);
        if (owner.isEmpty() || owner.get() != self) {
            return new OwnedPaths.Verdict(Optional.empty(), "the rank (process " + pid + ") "
                    + owner.map(uid -> "belongs to uid " + uid + ", not to uid " + self + " that jompd runs as")
                    .orElse("has gone"));
        }
        return OwnedPaths.file(runtime);
    }

    /** jompd's own libomp (JOMPD_RUNTIME, else the one scripts/build-runtime.sh made in the cache), when safe to load. */
    private static Optional<Path> ownRuntime() {
        try {
            return OpenMpLaunch.findRuntime(System.getenv()).flatMap(runtime -> OwnedPaths.file(runtime).path());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Whether bin/jompd trains the job cache after this front end: no cache yet, none turned off, not in a job step. */
    private static boolean trainingFollows(Path cache) {
        if (Stream.of("JOMPD_NO_AOT", "JOMPD_NO_CDS", "SLURM_STEP_ID").map(System::getenv)
                .anyMatch(value -> value != null && !value.isEmpty())) {
            return false;
        }
        try (var names = Files.newDirectoryStream(cache, "jompd-job-*.aot")) {
            return !names.iterator().hasNext();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The file process {@code pid} maps whose name is {@code name} (or ends in "/" + name). */
    private static Optional<String> mappedFile(long pid, String name) {
        if (name == null || name.isEmpty()) {
            return Optional.empty();
        }
        try {
            return ProcFs.mappings((int) pid).stream().filter(ProcFs.Mapping::fileBacked).map(ProcFs.Mapping::path)
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
     * place; empty when there is no remembered runtime, no program, or it does not get there. A remembered runtime
     * that another user can change (remembered before this check existed, or changed since) is refused, said on
     * {@code err}: the training runs without it.
     */
    static Optional<Team> startTeam(PrintWriter err) {
        Optional<Path> remembered = cacheDirectory().map(cache -> cache.resolve(RUNTIME_FILE)).filter(Files::isRegularFile)
                .flatMap(JobTraining::readPath).filter(Files::isRegularFile);
        Path program = Path.of(System.getProperty("jompd.home", "."), "lib", "jompd-aot-team");
        if (remembered.isEmpty() || !Files.isExecutable(program)) {
            return Optional.empty();
        }
        OwnedPaths.Verdict runtime = OwnedPaths.file(remembered.get());
        if (!runtime.trusted()) {
            err.println("jompd: the training does not load " + remembered.get() + ": " + runtime.why());
            err.flush();
            return Optional.empty();
        }
        // a grandchild of this JVM (a JVM cannot trace its own children: its process reaper waits on them)
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", "\"$0\" \"$1\" & echo $!; wait",
                program.toString(), runtime.path().orElseThrow().toString())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        // nothing else loaded into it from the environment (sudo -E keeps the user's): no OMPT tool, no preload
        builder.environment().keySet().removeAll(List.of("OMP_TOOL_LIBRARIES", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT"));
        builder.environment().put("OMP_TOOL", "disabled");
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
