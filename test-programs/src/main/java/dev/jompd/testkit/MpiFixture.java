package dev.jompd.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The hybrid MPI+OpenMP fixture {@code mpi_hybrid.c} (FIXTURES.md, "MPI fixtures"), built with Open MPI's
 * mpicc over clang-19 against the OMPD-enabled libomp, once per (sources, runtime): kept in the cache
 * directory like the other fixtures.
 */
public final class MpiFixture {
    public static final String SOURCE = "mpi_hybrid.c";
    public static final String PROGRAM = "mpi_hybrid";

    private MpiFixture() {}

    /** Why the MPI fixture cannot be built or run here (no mpicc, no srun, not root); empty when it can. */
    public static Optional<String> unavailable() {
        if (!Commands.available("mpicc")) {
            return Optional.of("Open MPI's mpicc is not installed (scripts/setup-system.sh installs libopenmpi-dev)");
        }
        return Optional.empty();
    }

    /** The exact build command; @SRC@ is the source directory, @OUT@ the output one. */
    static List<String> compileCommand(Path runtime) {
        return List.of("mpicc", "-fopenmp", "-g", "-O0", "-fno-omit-frame-pointer", "-I" + runtime.resolve("include"),
                "-L" + runtime.resolve("lib"), "-Wl,-rpath," + runtime.resolve("lib"), "-o", "@OUT@/" + PROGRAM,
                "@SRC@/" + SOURCE, "@SRC@/fixture.c", "-lpthread");
    }

    public static Path executable() {
        return executable(Runtimes.DEFAULT_VERSION);
    }

    public static synchronized Path executable(int runtimeVersion) {
        Path runtime = Runtimes.prefix(runtimeVersion);
        Map<String, byte[]> sources = FixtureBuilder.fixtureSources();
        List<String> command = compileCommand(runtime);
        Path directory = Runtimes.cacheDirectory().resolve("fixtures").resolve("llvm-" + runtimeVersion)
                .resolve(FixtureBuilder.hash(sources, List.of(command)));
        Path executable = directory.resolve(PROGRAM);
        if (Files.isExecutable(executable)) {
            return executable;
        }
        try {
            Files.createDirectories(directory);
            for (var source : sources.entrySet()) {
                Files.write(directory.resolve(source.getKey()), source.getValue());
            }
            Path scratch = Files.createTempDirectory(directory, "build-");
            List<String> resolved = command.stream()
                    .map(a -> a.replace("@SRC@", directory.toString()).replace("@OUT@", scratch.toString())).toList();
            // mpicc's compiler is clang-19 (libomp's OpenMP), not the gcc Open MPI was configured with
            Commands.Result result = Commands.run(resolved, Map.of("OMPI_CC", "clang-19"), scratch, Duration.ofMinutes(3));
            if (result.exitCode() != 0) {
                throw new IllegalStateException("compiling " + SOURCE + " failed: OMPI_CC=clang-19 "
                        + String.join(" ", resolved) + "\n" + result.output());
            }
            Files.move(scratch.resolve(PROGRAM), executable, StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            return executable;
        } catch (IOException e) {
            throw new UncheckedIOException("building " + SOURCE, e);
        }
    }

    /**
     * The environment every rank runs with: OMPD on, libomp's pools asleep (KMP_BLOCKTIME=0) and Open MPI
     * not yielding in its polls, so that the stacks are stable to sample and idle ranks burn no core.
     */
    public static Map<String, String> rankEnvironment(Path factsDirectory) {
        return Map.of("OMP_DEBUG", "enabled", "KMP_BLOCKTIME", "0", "OMPI_MCA_mpi_yield_when_idle", "0",
                "OMPI_ALLOW_RUN_AS_ROOT", "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1",
                "OMPI_MCA_btl_tcp_if_include", "lo", "OMPI_MCA_oob_tcp_if_include", "lo",
                "MALLOC_ARENA_MAX", "2", "JOMPD_FACTS_DIR", factsDirectory.toString());
    }

    /** Waits until every rank 0..ranks-1 wrote its facts file; their facts by rank. */
    public static List<Facts> awaitFacts(Path factsDirectory, int ranks, Duration timeout, ProcessHandle launcher) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean all = true;
            for (int r = 0; r < ranks && all; r++) {
                Path file = factsDirectory.resolve("rank-" + r + ".properties");
                all = Files.isRegularFile(file);
            }
            if (all) {
                try {
                    Thread.sleep(300); // the last writer's file complete, every waiting rank in its poll's sleep
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return java.util.stream.IntStream.range(0, ranks)
                        .mapToObj(r -> Facts.read(factsDirectory.resolve("rank-" + r + ".properties"))).toList();
            }
            if (!launcher.isAlive()) {
                throw new IllegalStateException("the MPI job ended before all " + ranks + " ranks wrote their facts in "
                        + factsDirectory);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not all " + ranks + " ranks wrote their facts in " + factsDirectory
                        + " within " + timeout);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
