package dev.jompd.job.sources;

import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.model.RankSet;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Reads a job from its source into its summary: the one entry point of the job module ({@link #summarize}), which
 * the command line's {@code jompd job} only calls and renders. Cores and processes on this host are read here
 * ({@link RankInspector}); a Slurm step through its agents, one per node ({@link SlurmFanOut}, each agent a
 * {@link NodeAgent}); a launcher's ranks from its MPIR table ({@link MpirProctable}), those on other nodes of its
 * Slurm allocation through that allocation's agents, checked against the table.
 */
public final class Jobs {
    private final JobOptions options;
    private final Consumer<String> srunSays;

    private Jobs(JobOptions options, Consumer<String> srunSays) {
        this.options = options;
        this.srunSays = srunSays;
    }

    /** Some processes given as ranks do not exist (the message names them). */
    public static final class NoSuchProcess extends IllegalArgumentException {
        NoSuchProcess(List<Long> gone) {
            super("no such process: " + gone.stream().map(String::valueOf).collect(Collectors.joining(", ")));
        }
    }

    /**
     * The job's summary: every rank of {@code source}, read or named missing with why; empty when the source has no
     * ranks. What srun says on its own (not an agent's answer) goes to {@code srunSays}, line by line.
     *
     * @throws NoSuchProcess            when a process given as a rank does not exist
     * @throws IllegalArgumentException when the source cannot be a job (no cores, cores of several programs)
     * @throws IllegalStateException    when the agents found other ranks than the launcher's
     * @throws IOException              when Slurm or the launcher cannot be asked
     */
    public static Optional<JobSummary> summarize(JobSource source, JobOptions options, Consumer<String> srunSays)
            throws IOException {
        Jobs job = new Jobs(options, srunSays);
        return switch (source) {
            case JobSource.Cores cores -> job.fromCores(cores);
            case JobSource.Pids pids -> job.fromPids(pids);
            case JobSource.Mpirun mpirun -> job.fromLauncher(mpirun.launcher());
            case JobSource.SlurmStep slurm -> job.fromSlurm(SlurmFanOut.resolve(slurm.step()));
        };
    }

    private Optional<JobSummary> fromPids(JobSource.Pids source) {
        List<Long> gone = source.pids().stream().filter(pid -> !Files.isDirectory(Path.of("/proc/" + pid))).toList();
        if (!gone.isEmpty()) {
            throw new NoSuchProcess(gone);
        }
        String host = localHost();
        return JobSummary.of(inspect(source.pids().stream().map(pid -> RankInspector.Target.live(
                RankId.live(RankEnvironment.rankOf(pid), host, pid))).toList()));
    }

    private Optional<JobSummary> fromCores(JobSource.Cores source) throws IOException {
        List<Path> cores = CoreFiles.find(source.pattern());
        if (cores.isEmpty()) {
            throw new IllegalArgumentException("no core files in " + source.pattern());
        }
        List<RankInspector.Target> targets = new ArrayList<>();
        Map<String, List<Path>> byProgram = new TreeMap<>();
        Map<String, String> programPaths = new HashMap<>();
        for (Path core : cores) {
            CoreFiles.CoreOrigin origin = CoreFiles.originOf(core);
            // a core whose environment names no node shows none (never a guess)
            targets.add(RankInspector.Target.core(RankId.core(origin.rank().rank(), origin.node().orElse(""), core), core, source.executable()));
            origin.program().ifPresent(program -> {
                byProgram.computeIfAbsent(program.identity(), p -> new ArrayList<>()).add(core);
                programPaths.putIfAbsent(program.identity(), program.path());
            });
        }
        if (byProgram.size() > 1) {
            throw new IllegalArgumentException(differentPrograms(source, byProgram, programPaths));
        }
        return JobSummary.of(inspect(targets));
    }

    /**
     * Why cores of more than one program are not read as one job (a directory that also holds other programs' cores
     * would otherwise be merged into the job without a word): each program with its cores.
     */
    private static String differentPrograms(JobSource.Cores source, Map<String, List<Path>> byProgram,
                                            Map<String, String> paths) {
        StringBuilder message = new StringBuilder("the cores in " + source.pattern() + " come from " + byProgram.size()
                + " different programs:");
        byProgram.forEach((identity, cores) -> {
            message.append("\n  ").append(paths.get(identity))
                    .append(identity.startsWith("build-id ") ? " (" + identity + ")" : "").append(": ");
            message.append(cores.size() <= 4 ? cores.stream().map(Path::toString)
                    .collect(java.util.stream.Collectors.joining(", "))
                    : cores.getFirst() + " and " + (cores.size() - 1) + " more");
        });
        return message.append("\ngive the cores of one job's program: a directory or a glob of them alone").toString();
    }

    /** The ranks read here, each once; whoever the options name is told of them. */
    private List<RankInspection> inspect(List<RankInspector.Target> targets) {
        List<RankInspection> inspections = new RankInspector(options.stopTimeout(), options.parallelism()).inspectAll(targets);
        options.inspected().accept(inspections);
        return inspections;
    }

    /**
     * The ranks of the launcher's MPIR table: those on this host read here; the others, when the launcher runs in a
     * Slurm allocation (mpirun starts its orted daemons as a step of the job, the ranks under them), through that
     * step's agents on their nodes, checked against the table (a rank the agents did not find is named missing, a
     * class shown by a process the table does not name is refused); outside an allocation they are named missing.
     * jompd runs where the launcher runs (it reads the table with ptrace): ranks that mpirun started on its own node
     * (outside any step, as Open MPI does there) are local.
     */
    private Optional<JobSummary> fromLauncher(long launcher) throws IOException {
        List<MpirProctable.Entry> table = MpirProctable.read(launcher);
        Set<String> local = localNames();
        List<RankInspector.Target> targets = new ArrayList<>();
        List<MpirProctable.Entry> remote = new ArrayList<>();
        for (MpirProctable.Entry entry : table) {
            if (local.contains(entry.host())) {
                targets.add(RankInspector.Target.live(RankId.live(OptionalInt.of(entry.rank()), entry.host(), entry.pid())));
            } else {
                remote.add(entry);
            }
        }
        Optional<JobSummary> summary = JobSummary.of(inspect(targets));
        if (remote.isEmpty()) {
            return summary;
        }
        String job = RankEnvironment.of(launcher).get("SLURM_JOB_ID");
        if (job == null) {
            List<RankInspection> missing = remote.stream().<RankInspection>map(entry -> new RankInspection.Missing(
                    idOf(entry), RankInspection.MissingReason.NO_ANSWER, "rank " + entry.rank() + " runs on host "
                    + entry.host() + ", and the launcher is not in a Slurm allocation: run jompd job --mpirun there, or "
                    + "inside the job's allocation")).toList();
            return merge(summary, JobSummary.of(missing));
        }
        return merge(summary, fromAllocation(job, remote));
    }

    /** The launcher's ranks on other nodes of Slurm job {@code job}: through its first step (mpirun's orted daemons). */
    private Optional<JobSummary> fromAllocation(String job, List<MpirProctable.Entry> remote) throws IOException {
        SlurmFanOut.Step daemons = SlurmFanOut.resolve(job);
        Map<String, List<MpirProctable.Entry>> byHost = new TreeMap<>();
        remote.forEach(entry -> byHost.computeIfAbsent(entry.host(), h -> new ArrayList<>()).add(entry));
        List<String> nodes = byHost.keySet().stream().filter(daemons.nodes()::contains).toList();
        List<RankInspection> unreached = new ArrayList<>();
        byHost.forEach((host, entries) -> {
            if (!nodes.contains(host)) {
                entries.forEach(entry -> unreached.add(new RankInspection.Missing(idOf(entry),
                        RankInspection.MissingReason.NO_ANSWER, "rank " + entry.rank() + " runs on host " + host
                        + ", which is not a node of job " + job + "'s step " + daemons.name() + " ("
                        + String.join(",", daemons.nodes()) + "): give the step that runs mpirun's daemons, jompd job --slurm JOBID.STEP")));
            }
        });
        Optional<JobSummary> reached = nodes.isEmpty() ? Optional.empty()
                : fromSlurm(new SlurmFanOut.Step(daemons.jobId(), daemons.stepId(), nodes));
        // what the agents found must be the launcher's own ranks: each class shown by a process the table names
        Map<Integer, MpirProctable.Entry> byRank = new HashMap<>();
        remote.forEach(entry -> byRank.put(entry.rank(), entry));
        RankSet found = RankSet.empty();
        if (reached.isPresent()) {
            for (JobSummary.RankClass rankClass : reached.get().classes()) {
                RankId shown = rankClass.representative();
                MpirProctable.Entry expected = shown.rank().isPresent() ? byRank.get(shown.rank().getAsInt()) : null;
                if (expected == null || expected.pid() != shown.pid()) {
                    throw new IllegalStateException("job " + job + "'s step " + daemons.name() + " runs other ranks "
                            + "than this launcher's: on " + shown.host() + " pid " + shown.pid() + " is rank "
                            + (shown.rank().isPresent() ? shown.rank().getAsInt() : "?") + ", which the launcher's MPIR table "
                            + (expected == null ? "does not name" : "names as pid " + expected.pid() + " on " + expected.host())
                            + ": give the step that runs this mpirun's daemons, jompd job --slurm JOBID.STEP");
                }
                found = found.union(rankClass.ranks());
            }
        }
        // a node whose agent did not answer is named as a whole (every rank of that node missing, SlurmFanOut)
        Set<String> silent = new HashSet<>();
        for (JobSummary.MissingRanks missing : reached.map(JobSummary::missing).orElse(List.of())) {
            found = found.union(missing.ranks());
            missing.unnumbered().forEach(id -> silent.add(id.host()));
        }
        for (MpirProctable.Entry entry : remote) {
            if (nodes.contains(entry.host()) && !silent.contains(entry.host()) && !found.contains(entry.rank())) {
                unreached.add(new RankInspection.Missing(idOf(entry), RankInspection.MissingReason.NO_ANSWER,
                        "rank " + entry.rank() + " (pid " + entry.pid() + " on " + entry.host() + ") is in the launcher's "
                        + "MPIR table, but its node's agent did not find it among step " + daemons.name() + "'s ranks"));
            }
        }
        return merge(reached, JobSummary.of(unreached));
    }

    private static RankId idOf(MpirProctable.Entry entry) {
        return RankId.live(OptionalInt.of(entry.rank()), entry.host(), entry.pid());
    }

    private static Optional<JobSummary> merge(Optional<JobSummary> a, Optional<JobSummary> b) {
        return a.isEmpty() ? b : b.isEmpty() ? a : Optional.of(a.get().merge(b.get()));
    }

    /** Through the step's agents, one per node; what srun says on its own goes to {@code srunSays}, line by line. */
    private Optional<JobSummary> fromSlurm(SlurmFanOut.Step step) throws IOException {
        StringBuilder diagnostics = new StringBuilder();
        Optional<JobSummary> summary = SlurmFanOut.inspect(step, options.agentCommand().get(), options.agentTimeout(),
                diagnostics);
        diagnostics.toString().lines().forEach(srunSays);
        return summary;
    }

    private static String localHost() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException e) {
            return "localhost";
        }
    }

    private static Set<String> localNames() {
        Set<String> names = new HashSet<>(Set.of("localhost", "127.0.0.1"));
        try {
            String host = InetAddress.getLocalHost().getHostName();
            names.add(host);
            names.add(host.contains(".") ? host.substring(0, host.indexOf('.')) : host);
        } catch (IOException e) {
            // the names above
        }
        try {
            names.add(Files.readString(Path.of("/proc/sys/kernel/hostname")).strip());
        } catch (IOException e) {
            // the names above
        }
        return names;
    }
}
