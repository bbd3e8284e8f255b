package dev.jompd.cli;

import dev.jompd.job.CoreFiles;
import dev.jompd.job.JobHtml;
import dev.jompd.job.JobPicture;
import dev.jompd.job.JobSummary;
import dev.jompd.job.MpirProctable;
import dev.jompd.job.NodeAgent;
import dev.jompd.job.RankEnvironment;
import dev.jompd.job.RankId;
import dev.jompd.job.RankInspection;
import dev.jompd.job.RankInspector;
import dev.jompd.job.RankSet;
import dev.jompd.job.SlurmFanOut;
import dev.jompd.core.target.TargetException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/** {@code jompd job}: every rank of an MPI+OpenMP job at once, live (Slurm, mpirun) or from its cores. */
@Command(name = "job", mixinStandardHelpOptions = true,
        description = {"Inspects every rank of an MPI+OpenMP job at once, live or from its cores.",
                "A running Slurm job step (one agent per node, started inside the job by srun), a job started by "
                        + "mpirun/mpiexec (its ranks from the launcher's MPIR process table), processes on this host, or "
                        + "a set of core files (one per rank). Each rank resumes after it is read.",
                "Cores of a hung job: with core dumps on (ulimit -c unlimited), scancel --signal=ABRT JOBID; or gcore "
                        + "each rank (gdb's gcore) while it runs (docs/job.md)."})
class JobCommand implements Callable<Integer> {
    static final class Source {
        @Option(names = "--slurm", paramLabel = "JOBID[.STEP]", description = "a running Slurm job (its first step) or job step")
        String slurm;

        @Option(names = "--mpirun", paramLabel = "PID", converter = Values.ProcessId.class, description = "the pid of the job's mpirun/mpiexec (or srun): the ranks from its MPIR process table")
        Long mpirun;

        @Option(names = "--pids", paramLabel = "PID[,PID...]", split = ",", converter = Values.ProcessId.class,
                description = "the ranks' processes on this host (their ranks from their environments)")
        List<Long> pids;

        @Option(names = "--cores", paramLabel = "DIR|GLOB", description = "core files, one per rank: a directory or a glob; the rank from each process's environment (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID), else from the file name (rank3, rank-3)")
        String cores;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    @Option(names = "--exe", paramLabel = "PROGRAM", description = "with --cores: the program the cores came from (default: as each core records it)")
    Path executable;

    static final double DEFAULT_TIMEOUT_SECONDS = 60;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60", converter = Values.Seconds.class,
            description = "how long to wait for a node's agent (--slurm), default ${DEFAULT-VALUE} s; a node that does not answer is named as missing")
    double timeoutSeconds;

    @Option(names = "--json", description = "print the job's picture as one JSON document (schema jompd-job/1, job/src/main/resources/dev/jompd/job/jompd-job.schema.json)")
    boolean json;

    @Option(names = "--html", paramLabel = "FILE", description = "also write the job's picture as one self-contained HTML page (opens in any browser)")
    Path html;

    @Option(names = "--parallel", paramLabel = "N", converter = Values.Count.class, description = "ranks read at once in one JVM (default: the processors, at least 2)")
    Integer parallel;

    @Option(names = "--agent", paramLabel = "COMMAND", split = " ", hidden = true,
            description = "the command that starts jompd on a node (default: this jompd's bin/jompd)")
    List<String> agent;

    @Spec
    CommandSpec spec;

    /** The streams when {@link DirectCommandLine} read the command line (no picocli model, so no {@link #spec}). */
    PrintWriter directOut;
    PrintWriter directErr;

    @Override
    public Integer call() {
        PrintWriter out = spec != null ? spec.commandLine().getOut() : directOut;
        PrintWriter err = spec != null ? spec.commandLine().getErr() : directErr;
        Optional<String> ignored = ignoredOption();
        if (ignored.isPresent()) {
            err.println("jompd job: " + ignored.get());
            return ExitCode.USAGE;
        }
        Duration timeout = Duration.ofMillis((long) (timeoutSeconds * 1000));
        RankInspector inspector = parallel == null ? new RankInspector()
                : new RankInspector(RankInspector.DEFAULT_STOP_TIMEOUT, parallel);
        Optional<JobSummary> summary;
        try {
            if (source.cores != null) {
                summary = fromCores(inspector);
            } else if (source.pids != null) {
                List<Long> gone = source.pids.stream().filter(pid -> !Files.isDirectory(Path.of("/proc/" + pid))).toList();
                if (!gone.isEmpty()) {
                    err.println("jompd job: no such process: " + gone.stream().map(String::valueOf)
                            .collect(java.util.stream.Collectors.joining(", ")));
                    return ExitCode.BAD_INPUT;
                }
                summary = NodeAgent.summarize(inspect(inspector, source.pids.stream()
                        .map(pid -> RankInspector.Target.live(new RankId(RankEnvironment.rankOf(pid), localHost(), pid,
                                "pid " + pid))).toList()));
            } else if (source.mpirun != null) {
                summary = fromLauncher(source.mpirun, inspector, timeout, err);
            } else {
                SlurmFanOut.Step step = SlurmFanOut.resolve(source.slurm);
                summary = fromSlurm(step, timeout, err);
            }
        } catch (IOException | IllegalArgumentException | IllegalStateException | TargetException e) {
            err.println("jompd: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        if (summary.isEmpty()) {
            err.println("jompd: no ranks found");
            return ExitCode.BAD_INPUT;
        }
        render(summary.get(), json, out, err);
        out.flush();
        return ExitCode.OK;
    }

    /** An option given that this source of ranks would not use, said as a usage error; empty when there is none. */
    private Optional<String> ignoredOption() {
        if (executable != null && source.cores == null) {
            return Optional.of("--exe applies to --cores only (a live rank's program is its process's own)");
        }
        // DirectCommandLine reads --timeout with --slurm and --mpirun only, and no --parallel
        boolean given = spec != null && spec.commandLine().getParseResult() != null;
        if (given && spec.commandLine().getParseResult().hasMatchedOption("--timeout")
                && (source.cores != null || source.pids != null)) {
            return Optional.of("--timeout applies to --slurm and --mpirun only (how long to wait for a node's agent)");
        }
        if (given && parallel != null && source.slurm != null) {
            return Optional.of("--parallel applies to ranks read here (--mpirun, --pids, --cores), not to --slurm, "
                    + "whose agents read their nodes' ranks");
        }
        return Optional.empty();
    }

    /**
     * The job's picture: text (classes of ranks, outliers first, merged stacks, diagnosis across ranks, missing
     * ranks with why), or the {@code jompd-job/1} document; with {@code --html FILE} also a self-contained page.
     */
    void render(JobSummary summary, boolean json, PrintWriter out, PrintWriter err) {
        JobPicture picture = JobPicture.of(summary);
        if (html != null) {
            try {
                Files.writeString(html, JobHtml.render(picture, jobTitle()));
            } catch (IOException e) {
                err.println("jompd: cannot write " + html + ": " + e.getMessage());
            }
        }
        out.print(json ? picture.toJson() + "\n" : picture.text());
    }

    private String jobTitle() {
        return source.slurm != null ? "Slurm job " + source.slurm
                : source.mpirun != null ? "mpirun " + source.mpirun
                : source.cores != null ? "cores " + source.cores : "ranks " + source.pids;
    }

    private Optional<JobSummary> fromCores(RankInspector inspector) throws IOException {
        List<Path> cores = CoreFiles.find(source.cores);
        if (cores.isEmpty()) {
            throw new IllegalArgumentException("no core files in " + source.cores);
        }
        List<RankInspector.Target> targets = new ArrayList<>();
        Map<String, List<Path>> byProgram = new TreeMap<>();
        Map<String, String> programPaths = new HashMap<>();
        for (Path core : cores) {
            CoreFiles.CoreOrigin origin = CoreFiles.originOf(core);
            // a core whose environment names no node shows none (never a guess)
            targets.add(RankInspector.Target.core(new RankId(origin.rank().rank(), origin.node().orElse(""), 0,
                    core.toString()), core, Optional.ofNullable(executable)));
            origin.program().ifPresent(program -> {
                byProgram.computeIfAbsent(program.identity(), p -> new ArrayList<>()).add(core);
                programPaths.putIfAbsent(program.identity(), program.path());
            });
        }
        if (byProgram.size() > 1) {
            throw new IllegalArgumentException(differentPrograms(byProgram, programPaths));
        }
        return NodeAgent.summarize(inspect(inspector, targets));
    }

    /**
     * Why cores of more than one program are not read as one job (a directory that also holds other programs' cores
     * would otherwise be merged into the job without a word): each program with its cores.
     */
    private String differentPrograms(Map<String, List<Path>> byProgram, Map<String, String> paths) {
        StringBuilder message = new StringBuilder("the cores in " + source.cores + " come from " + byProgram.size()
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

    /** The ranks read here; a runtime they used is remembered for the training of the job's cache (JobTraining). */
    private static List<RankInspection> inspect(RankInspector inspector, List<RankInspector.Target> targets) {
        List<RankInspection> inspections = inspector.inspectAll(targets);
        JobTraining.rememberRuntime(inspections, System.err::println);
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
    private Optional<JobSummary> fromLauncher(long launcher, RankInspector inspector, Duration timeout, PrintWriter err)
            throws IOException {
        List<MpirProctable.Entry> table = MpirProctable.read(launcher);
        Set<String> local = localNames();
        List<RankInspector.Target> targets = new ArrayList<>();
        List<MpirProctable.Entry> remote = new ArrayList<>();
        for (MpirProctable.Entry entry : table) {
            if (local.contains(entry.host())) {
                targets.add(RankInspector.Target.live(new RankId(OptionalInt.of(entry.rank()), entry.host(), entry.pid(),
                        "pid " + entry.pid())));
            } else {
                remote.add(entry);
            }
        }
        List<RankInspection> all = new ArrayList<>(inspect(inspector, targets));
        Optional<JobSummary> summary = NodeAgent.summarize(all);
        if (remote.isEmpty()) {
            return summary;
        }
        String job = RankEnvironment.of(launcher).get("SLURM_JOB_ID");
        if (job == null) {
            List<RankInspection> missing = remote.stream().<RankInspection>map(entry -> new RankInspection.Missing(
                    idOf(entry), RankInspection.MissingReason.NO_ANSWER, "rank " + entry.rank() + " runs on host "
                    + entry.host() + ", and the launcher is not in a Slurm allocation: run jompd job --mpirun there, or "
                    + "inside the job's allocation")).toList();
            return merge(summary, NodeAgent.summarize(missing));
        }
        return merge(summary, fromAllocation(job, remote, timeout, err));
    }

    /** The launcher's ranks on other nodes of Slurm job {@code job}: through its first step (mpirun's orted daemons). */
    private Optional<JobSummary> fromAllocation(String job, List<MpirProctable.Entry> remote, Duration timeout,
                                                PrintWriter err) throws IOException {
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
                : fromSlurm(new SlurmFanOut.Step(daemons.jobId(), daemons.stepId(), nodes), timeout, err);
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
        return merge(reached, NodeAgent.summarize(unreached));
    }

    private static RankId idOf(MpirProctable.Entry entry) {
        return new RankId(OptionalInt.of(entry.rank()), entry.host(), entry.pid(), "pid " + entry.pid());
    }

    private static Optional<JobSummary> merge(Optional<JobSummary> a, Optional<JobSummary> b) {
        return a.isEmpty() ? b : b.isEmpty() ? a : Optional.of(a.get().merge(b.get()));
    }

    private Optional<JobSummary> fromSlurm(SlurmFanOut.Step step, Duration timeout, PrintWriter err) throws IOException {
        List<String> agentCommand = agent != null ? agent : List.of(launcher());
        StringBuilder diagnostics = new StringBuilder();
        Optional<JobSummary> summary = SlurmFanOut.inspect(step, agentCommand, timeout, diagnostics);
        if (!diagnostics.isEmpty()) {
            diagnostics.toString().lines().forEach(line -> err.println("jompd: srun: " + line));
            err.flush();
        }
        return summary;
    }

    /** This jompd's launcher script, which the agents run on every node (a shared file system, as for the program). */
    private static String launcher() {
        String home = System.getProperty("jompd.home");
        if (home == null) {
            throw new IllegalStateException("jompd.home is not set (not started by bin/jompd): give --agent COMMAND");
        }
        return Path.of(home).resolve("bin/jompd").toString();
    }

    private static String localHost() {
        try {
            return java.nio.file.Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException e) {
            return "localhost";
        }
    }

    private static Set<String> localNames() {
        Set<String> names = new java.util.HashSet<>(Set.of("localhost", "127.0.0.1"));
        try {
            String host = InetAddress.getLocalHost().getHostName();
            names.add(host);
            names.add(host.contains(".") ? host.substring(0, host.indexOf('.')) : host);
        } catch (IOException e) {
            // the names above
        }
        try {
            names.add(java.nio.file.Files.readString(Path.of("/proc/sys/kernel/hostname")).strip());
        } catch (IOException e) {
            // the names above
        }
        return names;
    }
}
