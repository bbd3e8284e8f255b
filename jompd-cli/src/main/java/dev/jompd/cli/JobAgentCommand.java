package dev.jompd.cli;

import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.sources.JobOptions;
import dev.jompd.job.sources.NodeAgent;
import dev.jompd.job.wire.NodeMessages;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code jompd job-agent}: what {@code jompd job --slurm} runs on each node, inside the job (srun --overlap):
 * inspects that node's ranks of the step in this one JVM and writes the node's summary to stdout in the framed
 * lines of {@link NodeMessages}, which srun carries back to the front end.
 */
@Command(name = "job-agent", hidden = true, mixinStandardHelpOptions = true,
        description = "One node's part of jompd job --slurm (started by it through srun; not for direct use).")
class JobAgentCommand extends StreamedCommand {
    @Option(names = "--step", paramLabel = "JOBID.STEP")
    String step;

    /**
     * Trains the ahead-of-time cache of {@code jompd job} and its agents (bin/jompd starts this, after a front end's
     * first run, outside any job): the agent's path and the front end's over processes of its own — attach, module
     * and symbol reading, the summary, its framing and the job's picture — never the job's ranks.
     */
    @Option(names = "--aot-training", hidden = true)
    boolean aotTraining;

    @Option(names = "--node", paramLabel = "NODE", description = "the Slurm node name (default: SLURMD_NODENAME)")
    String node;

    @Option(names = "--stop-timeout", paramLabel = "SECONDS", defaultValue = "" + JobOptions.DEFAULT_STOP_TIMEOUT_SECONDS,
            converter = Values.Seconds.class)
    double stopTimeout;

    @Option(names = "--parallel", paramLabel = "N", converter = Values.Count.class)
    Integer parallel;


    @Override
    public Integer call() {
        PrintWriter out = out();
        PrintWriter err = err();
        if (aotTraining) {
            return AotTraining.job(out, err);
        }
        if (step == null) {
            err.println("jompd job-agent: --step JOBID.STEP is required");
            return ExitCode.USAGE;
        }
        String nodeName = node != null ? node : System.getenv("SLURMD_NODENAME");
        if (nodeName == null || nodeName.isBlank()) {
            err.println("jompd job-agent: no node name (SLURMD_NODENAME unset: not started by srun; give --node)");
            return ExitCode.BAD_INPUT;
        }
        int readers = parallel != null ? parallel : JobOptions.defaultParallelism();
        try {
            List<RankInspection> inspections = NodeAgent.inspectRanks(step, nodeName,
                    Duration.ofMillis((long) (stopTimeout * 1000)), readers);
            JobTraining.rememberRuntime(inspections, notSaid -> { }); // an agent's stderr is not the user's
            Optional<JobSummary> summary = JobSummary.of(inspections);
            NodeMessages.answer(nodeName, summary).forEach(out::println);
            out.flush();
            return ExitCode.OK;
        } catch (IOException | RuntimeException e) {
            String why = e.getMessage() != null ? e.getMessage() : e.toString();
            out.println(NodeMessages.failure(nodeName, why));
            out.flush();
            err.println("jompd job-agent on " + nodeName + ": " + why);
            return ExitCode.BAD_INPUT;
        }
    }
}
