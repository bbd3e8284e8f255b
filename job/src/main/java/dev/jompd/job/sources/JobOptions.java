package dev.jompd.job.sources;

import dev.jompd.job.model.RankInspection;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * How a job is read, whichever its source: how long a node's agent may take to answer, how long a live rank's
 * threads may take to stop, how many ranks one JVM reads at once, the command that starts jompd on a node, and who
 * is told of each batch of inspections read in this JVM (the command line remembers the runtime they used).
 */
public record JobOptions(Duration agentTimeout, Duration stopTimeout, int parallelism, Supplier<List<String>> agentCommand,
                         Consumer<List<RankInspection>> inspected) {
    /** How long to wait for a node's agent, by default. */
    public static final long DEFAULT_AGENT_TIMEOUT_SECONDS = 60;
    /** How long a thread of a live rank may take to reach its ptrace stop (uninterruptible sleep), by default. */
    public static final long DEFAULT_STOP_TIMEOUT_SECONDS = 5;

    public JobOptions {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, not " + parallelism);
        }
    }

    /** Ranks read at once by default: as many as the host has processors, at least 2. */
    public static int defaultParallelism() {
        return Math.max(2, Runtime.getRuntime().availableProcessors());
    }

    /** The defaults, with no agent command (a source that needs agents says so) and no one told. */
    public static JobOptions defaults() {
        return new JobOptions(Duration.ofSeconds(DEFAULT_AGENT_TIMEOUT_SECONDS), Duration.ofSeconds(DEFAULT_STOP_TIMEOUT_SECONDS),
                defaultParallelism(), () -> {
                    throw new IllegalStateException("no command to start jompd on a node was given");
                }, inspections -> { });
    }

    public JobOptions withAgentTimeout(Duration timeout) {
        return new JobOptions(timeout, stopTimeout, parallelism, agentCommand, inspected);
    }

    public JobOptions withParallelism(int readers) {
        return new JobOptions(agentTimeout, stopTimeout, readers, agentCommand, inspected);
    }

    public JobOptions withAgentCommand(Supplier<List<String>> command) {
        return new JobOptions(agentTimeout, stopTimeout, parallelism, command, inspected);
    }

    public JobOptions withInspected(Consumer<List<RankInspection>> told) {
        return new JobOptions(agentTimeout, stopTimeout, parallelism, agentCommand, told);
    }
}
