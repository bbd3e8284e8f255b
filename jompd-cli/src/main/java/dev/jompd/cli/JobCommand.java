package dev.jompd.cli;

import dev.jompd.core.target.TargetException;
import dev.jompd.job.model.JobSummary;
import dev.jompd.job.rendering.JobHtml;
import dev.jompd.job.rendering.JobPicture;
import dev.jompd.job.sources.JobOptions;
import dev.jompd.job.sources.JobSource;
import dev.jompd.job.sources.Jobs;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** {@code jompd job}: every rank of an MPI+OpenMP job at once, live (Slurm, mpirun) or from its cores. */
@Command(name = "job", mixinStandardHelpOptions = true,
        description = {"Inspects every rank of an MPI+OpenMP job at once, live or from its cores.",
                "A running Slurm job step (one agent per node, started inside the job by srun), a job started by "
                        + "mpirun/mpiexec (its ranks from the launcher's MPIR process table), processes on this host, or "
                        + "a set of core files (one per rank). Each rank resumes after it is read.",
                "Cores of a hung job: with core dumps on (ulimit -c unlimited), scancel --signal=ABRT JOBID; or gcore "
                        + "each rank (gdb's gcore) while it runs (docs/job.md)."})
class JobCommand extends StreamedCommand {
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

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "" + JobOptions.DEFAULT_AGENT_TIMEOUT_SECONDS, converter = Values.Seconds.class,
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


    @Override
    public Integer call() {
        PrintWriter out = out();
        PrintWriter err = err();
        Optional<String> ignored = ignoredOption();
        if (ignored.isPresent()) {
            err.println("jompd job: " + ignored.get());
            return ExitCode.USAGE;
        }
        JobOptions options = JobOptions.defaults()
                .withAgentTimeout(Duration.ofMillis((long) (timeoutSeconds * 1000)))
                .withAgentCommand(() -> agent != null ? agent : List.of(launcher()))
                // a runtime the ranks read here used is remembered for the training of the job's cache (JobTraining)
                .withInspected(inspections -> JobTraining.rememberRuntime(inspections, System.err::println));
        if (parallel != null) {
            options = options.withParallelism(parallel);
        }
        Optional<JobSummary> summary;
        try {
            summary = Jobs.summarize(source(), options, line -> {
                err.println("jompd: srun: " + line);
                err.flush();
            });
        } catch (Jobs.NoSuchProcess e) {
            err.println("jompd job: " + e.getMessage());
            return ExitCode.BAD_INPUT;
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
                Files.writeString(html, JobHtml.render(picture, source().title()));
            } catch (IOException e) {
                err.println("jompd: cannot write " + html + ": " + e.getMessage());
            }
        }
        out.print(json ? picture.toJson() + "\n" : picture.text());
    }

    /** The source the options name. */
    private JobSource source() {
        return source.cores != null ? new JobSource.Cores(source.cores, Optional.ofNullable(executable))
                : source.pids != null ? new JobSource.Pids(source.pids)
                : source.mpirun != null ? new JobSource.Mpirun(source.mpirun)
                : new JobSource.SlurmStep(source.slurm);
    }

    /** This jompd's launcher script, which the agents run on every node (a shared file system, as for the program). */
    private static String launcher() {
        String home = System.getProperty("jompd.home");
        if (home == null) {
            throw new IllegalStateException("jompd.home is not set (not started by bin/jompd): give --agent COMMAND");
        }
        return Path.of(home).resolve("bin/jompd").toString();
    }
}
