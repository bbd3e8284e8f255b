package dev.jompd.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A real Slurm cluster of emulated nodes on this host: munged, slurmctld and N slurmd in Slurm's
 * multiple-slurmd mode on loopback, with a generated slurm.conf in a temporary directory; started and
 * stopped (by pid) by {@code scripts/slurm-cluster.sh}, which the demo and the benchmark use too.
 */
public final class SlurmCluster implements AutoCloseable {
    private final Path directory;
    private final int nodes;
    private final List<Process> launchers = new ArrayList<>();

    private SlurmCluster(Path directory, int nodes) {
        this.directory = directory;
        this.nodes = nodes;
    }

    /** Why no cluster can start here (a missing package, not root); empty when one can. */
    public static Optional<String> unavailable() {
        for (String tool : List.of("srun", "sinfo", "scontrol", "squeue", "scancel")) {
            if (!Commands.available(tool)) {
                return Optional.of(tool + " is not installed (scripts/setup-system.sh installs slurm-wlm, munge)");
            }
        }
        for (String daemon : List.of("/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged")) {
            if (!Files.isExecutable(Path.of(daemon))) {
                return Optional.of(daemon + " is not installed (scripts/setup-system.sh installs slurm-wlm, munge)");
            }
        }
        if (!Files.isReadable(Path.of("/etc/munge/munge.key"))) {
            return Optional.of("/etc/munge/munge.key is not readable: the cluster's munged needs it (root, munge package)");
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("a Slurm cluster of emulated nodes needs root (slurmd starts job steps as their users)");
        }
        return Optional.empty();
    }

    /** Starts a cluster of {@code nodes} nodes (n1..nN) and waits until all are idle. */
    public static SlurmCluster start(int nodes) {
        try {
            Path directory = Files.createTempDirectory("jompd-slurm-");
            // ports of our own, so that clusters of concurrent test runs do not meet
            int portBase = 20000 + ThreadLocalRandom.current().nextInt(400) * 100;
            Commands.Result result = Commands.run(List.of("bash", script().toString(), "start", directory.toString(),
                    Integer.toString(nodes), Integer.toString(portBase)), Map.of(), directory, Duration.ofMinutes(1));
            SlurmCluster cluster = new SlurmCluster(directory, nodes);
            if (result.exitCode() != 0 || !result.output().contains("ready")) {
                cluster.close();
                throw new IllegalStateException("the Slurm cluster did not start:\n" + result.output());
            }
            return cluster;
        } catch (IOException e) {
            throw new UncheckedIOException("starting a Slurm cluster", e);
        }
    }

    static Path script() {
        return Runtimes.repositoryRoot().resolve("scripts/slurm-cluster.sh");
    }

    public int nodes() {
        return nodes;
    }

    public Path directory() {
        return directory;
    }

    /** What a Slurm client (srun, squeue, jompd job --slurm) needs in its environment to reach this cluster. */
    public Map<String, String> clientEnvironment() {
        return Map.of("SLURM_CONF", directory.resolve("slurm.conf").toString());
    }

    /** A running job step started by {@link #launch}. */
    public record Job(long jobId, Process srun, Path output) {
        /** The job's first step, where srun started the ranks. */
        public String step() {
            return jobId + ".0";
        }
    }

    /**
     * Starts {@code command} as an MPI job (srun --mpi=pmix) of {@code nodes} × {@code tasksPerNode} ranks,
     * each rank with {@code environment} and its node's own Open MPI shared-memory directory (on emulated
     * nodes the segments would otherwise meet: they are named by host name); answers once Slurm gave the job
     * an id. Output goes to {@code output}.
     */
    public Job launch(String name, int nodes, int tasksPerNode, List<String> command, Map<String, String> environment,
                      Path output) {
        List<String> full = new ArrayList<>(List.of("srun", "--mpi=pmix", "-J", name, "-N", Integer.toString(nodes),
                "--ntasks-per-node=" + tasksPerNode, "--kill-on-bad-exit=0", "sh", "-c",
                "export OMPI_MCA_btl_vader_backing_directory=" + sharedMemoryPrefix() + "$SLURM_JOB_ID-$SLURMD_NODENAME; "
                        + "mkdir -p $OMPI_MCA_btl_vader_backing_directory; exec \"$@\"", "rank"));
        full.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().putAll(clientEnvironment());
        builder.environment().putAll(environment);
        try {
            Process srun = builder.start();
            launchers.add(srun);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                Commands.Result queue = client(List.of("squeue", "-h", "-n", name, "-o", "%i"));
                String id = queue.output().strip();
                if (queue.exitCode() == 0 && !id.isEmpty() && id.lines().count() == 1) {
                    return new Job(Long.parseLong(id), srun, output);
                }
                if (!srun.isAlive()) {
                    throw new IllegalStateException("srun ended at once:\n" + Files.readString(output));
                }
                Thread.sleep(100);
            }
            throw new IllegalStateException("Slurm gave job " + name + " no id within 60 s");
        } catch (IOException e) {
            throw new UncheckedIOException("launching " + full, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Where this cluster's jobs keep Open MPI's shared-memory segments: per cluster, job and node (job ids restart per cluster). */
    private String sharedMemoryPrefix() {
        return "/dev/shm/" + directory.getFileName() + "-ompi-";
    }

    /** Runs a Slurm client command against this cluster. */
    public Commands.Result client(List<String> command) {
        try {
            return Commands.run(command, clientEnvironment(), directory, Duration.ofSeconds(60));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ends a job (scancel) and waits for its srun. */
    public void cancel(Job job) {
        client(List.of("scancel", Long.toString(job.jobId())));
        try {
            if (!job.srun().waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                job.srun().destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The pids of a step's processes on one node, as {@code scontrol listpids STEP NODE} gives them. */
    public Map<Long, Integer> listPids(String step, String node) {
        Commands.Result result = client(List.of("scontrol", "listpids", step, node));
        Map<Long, Integer> pids = new HashMap<>();
        for (String line : result.output().lines().skip(1).toList()) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length >= 5 && columns[4].matches("\\d+")) {
                pids.put(Long.parseLong(columns[0]), Integer.parseInt(columns[4]));
            }
        }
        return pids;
    }

    @Override
    public void close() {
        // jobs first: slurmstepd and the ranks outlive a stopped slurmd
        client(List.of("scancel", "--full", "--quiet", "--partition=debug"));
        for (Process srun : launchers) {
            try {
                if (!srun.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                    srun.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (var entries = Files.list(Path.of("/dev/shm"))) {
            for (Path entry : entries.filter(p -> p.getFileName().toString().startsWith(directory.getFileName() + "-ompi-")).toList()) {
                try (var files = Files.walk(entry)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        } catch (IOException e) {
            // shared memory left behind is only space
        }
        try {
            Commands.run(List.of("bash", script().toString(), "stop", directory.toString()), Map.of(), directory,
                    Duration.ofMinutes(1));
            try (var files = Files.walk(directory)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("stopping the Slurm cluster in " + directory, e);
        }
    }
}
