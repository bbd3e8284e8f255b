package dev.jompd.cli;

import dev.jompd.job.JobSummary;
import dev.jompd.job.NodeAgent;
import dev.jompd.job.NodeMessages;
import dev.jompd.job.RankInspector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code jompd job-agent}: what {@code jompd job --slurm} runs on each node, inside the job (srun --overlap):
 * inspects that node's ranks of the step in this one JVM and writes the node's summary to stdout in the framed
 * lines of {@link NodeMessages}, which srun carries back to the front end.
 */
@Command(name = "job-agent", hidden = true, mixinStandardHelpOptions = true,
        description = "One node's part of jompd job --slurm (started by it through srun; not for direct use).")
class JobAgentCommand implements Callable<Integer> {
    @Option(names = "--step", required = true, paramLabel = "JOBID.STEP")
    String step;

    @Option(names = "--node", paramLabel = "NODE", description = "the Slurm node name (default: SLURMD_NODENAME)")
    String node;

    @Option(names = "--stop-timeout", paramLabel = "SECONDS", defaultValue = "5")
    double stopTimeout;

    @Option(names = "--parallel", paramLabel = "N")
    Integer parallel;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String nodeName = node != null ? node : System.getenv("SLURMD_NODENAME");
        if (nodeName == null || nodeName.isBlank()) {
            err.println("jompd job-agent: no node name (SLURMD_NODENAME unset: not started by srun; give --node)");
            return ExitCode.BAD_INPUT;
        }
        int readers = parallel != null ? parallel : Math.max(2, Runtime.getRuntime().availableProcessors());
        try {
            Optional<JobSummary> summary = NodeAgent.inspectNode(step, nodeName,
                    Duration.ofMillis((long) (stopTimeout * 1000)), readers);
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
