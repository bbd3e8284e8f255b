package dev.jompd.job.sources;

import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.wire.NodeMessages;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The front end of {@code jompd job --slurm}: one agent per node of the step, started inside the job by
 * Slurm itself ({@code srun --overlap --jobid=J --nodelist=NODES --ntasks-per-node=1 AGENT}); each agent's
 * node summary arrives in srun's output ({@link NodeMessages}) and is merged as it arrives. A node that does not
 * answer within the timeout is named in the picture as missing, with why.
 */
public final class SlurmFanOut {
    private SlurmFanOut() {}

    /** A job step and the nodes it runs on. */
    public record Step(String jobId, String stepId, List<String> nodes) {
        public String name() {
            return jobId + "." + stepId;
        }
    }

    /** The step {@code jobAndStep} names ({@code J.S}), or the job's first numbered step ({@code J}). */
    public static Step resolve(String jobAndStep) throws IOException {
        if (!jobAndStep.matches("\\d+(\\.\\d+)?")) {
            throw new IllegalArgumentException("not a Slurm job or step id: " + jobAndStep + " (JOBID or JOBID.STEP)");
        }
        String jobId = jobAndStep.contains(".") ? jobAndStep.substring(0, jobAndStep.indexOf('.')) : jobAndStep;
        String output = run(List.of("squeue", "-h", "-s", "-j", jobId, "-o", "%i %N"));
        Map<String, String> steps = new LinkedHashMap<>();
        for (String line : output.lines().toList()) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length == 2 && columns[0].startsWith(jobId + ".")) {
                steps.put(columns[0].substring(jobId.length() + 1), columns[1]);
            }
        }
        String stepId;
        if (jobAndStep.contains(".")) {
            stepId = jobAndStep.substring(jobAndStep.indexOf('.') + 1);
            if (!steps.containsKey(stepId)) {
                throw new IllegalArgumentException("job " + jobId + " has no running step " + stepId
                        + (steps.isEmpty() ? " (is the job running?)" : "; its steps: " + String.join(", ", steps.keySet())));
            }
        } else {
            stepId = steps.keySet().stream().filter(s -> s.matches("\\d+")).min((a, b) -> Long.compare(
                    Long.parseLong(a), Long.parseLong(b))).orElseThrow(() -> new IllegalArgumentException(
                    "job " + jobId + " has no running job step with ranks" + (steps.isEmpty() ? " (is it running?)"
                            : "; its steps: " + String.join(", ", steps.keySet()) + " (give JOBID.STEP)")));
        }
        List<String> nodes = run(List.of("scontrol", "show", "hostnames", steps.get(stepId))).lines()
                .map(String::strip).filter(s -> !s.isEmpty()).toList();
        return new Step(jobId, stepId, nodes);
    }

    /**
     * Runs {@code agent} (the command that starts {@code jompd job-agent}, to which the step and node options
     * are added) once on each node of {@code step} and merges the node summaries as they stream in.
     */
    public static Optional<JobSummary> inspect(Step step, List<String> agent, Duration timeout, StringBuilder diagnostics)
            throws IOException {
        List<String> command = new ArrayList<>(List.of("srun", "--overlap", "--jobid=" + step.jobId(),
                "--nodelist=" + String.join(",", step.nodes()), "-N", Integer.toString(step.nodes().size()),
                "--ntasks-per-node=1", "--kill-on-bad-exit=0", "--quiet"));
        command.addAll(agent);
        command.addAll(List.of("job-agent", "--step", step.name()));
        ProcessBuilder builder = new ProcessBuilder(command);
        // the tool step is a step of the job: srun must not take this shell's own allocation for it
        builder.environment().keySet().removeIf(name -> name.startsWith("SLURM_") && !name.equals("SLURM_CONF"));
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process srun = builder.start();
        NodeMessages.Receiver receiver = new NodeMessages.Receiver(step.nodes());
        List<JobSummary> merged = new ArrayList<>(1);
        // every node's answer in: the picture is complete, whatever srun still does (its agents have let their ranks
        // go before answering; the step's teardown takes ~0.3 s more, which the user need not wait for)
        CountDownLatch answered = new CountDownLatch(1);
        Set<String> unanswered = new HashSet<>(step.nodes()); // with the receiver's lock
        Thread errors = Thread.ofPlatform().daemon().name("jompd-srun-stderr").start(() -> {
            try (BufferedReader err = new BufferedReader(new InputStreamReader(srun.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = err.readLine()) != null; ) {
                    synchronized (diagnostics) {
                        diagnostics.append(line).append('\n');
                    }
                }
            } catch (IOException ignored) {
                // srun ended
            }
        });
        Thread reader = Thread.ofPlatform().daemon().name("jompd-srun-stdout").start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(srun.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    synchronized (receiver) {
                        // merged as each node's answer completes: the front end never holds every node summary at once
                        receiver.accept(line).ifPresent(node -> {
                            if (receiver.answers().get(node) instanceof NodeMessages.Answer.Summary(JobSummary summary)) {
                                merged.add(merged.isEmpty() ? summary : merged.removeFirst().merge(summary));
                            }
                            unanswered.remove(node);
                            if (unanswered.isEmpty()) {
                                answered.countDown();
                            }
                        });
                    }
                }
            } catch (IOException ignored) {
                // srun ended
            } finally {
                answered.countDown();
            }
        });
        try {
            answered.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
            boolean complete;
            synchronized (receiver) {
                complete = unanswered.isEmpty();
            }
            if (complete) {
                // srun and its agents end on their own; what srun says meanwhile is its own business
                srun.waitFor(100, TimeUnit.MILLISECONDS);
            } else {
                if (reader.isAlive()) {
                    srun.destroy(); // srun ends the tool step: the agents are killed, and the kernel detaches their ranks
                    if (!srun.waitFor(5, TimeUnit.SECONDS)) {
                        srun.destroyForcibly();
                    }
                    reader.join(Duration.ofSeconds(2));
                }
                srun.waitFor(5, TimeUnit.SECONDS);
                errors.join(Duration.ofSeconds(1));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            srun.destroyForcibly();
        }
        synchronized (receiver) {
            Map<String, NodeMessages.Answer> answers = receiver.answers();
            synchronized (diagnostics) {
                receiver.otherOutput().forEach(line -> diagnostics.append(line).append('\n'));
            }
            Optional<JobSummary> summary = merged.stream().findFirst();
            for (String node : step.nodes()) {
                String detail = switch (answers.get(node)) {
                    case null -> "its agent did not answer within " + timeout.toMillis() / 1000.0 + " s";
                    case NodeMessages.Answer.Failed(String why) -> "its agent failed: " + why;
                    case NodeMessages.Answer.Garbled(String why) -> "its agent's answer is unreadable (" + why + ")";
                    case NodeMessages.Answer.Summary s -> null;
                    case NodeMessages.Answer.NoRanks n -> null;
                };
                if (detail != null) {
                    RankInspection.MissingReason reason = answers.containsKey(node)
                            ? RankInspection.MissingReason.UNREADABLE : RankInspection.MissingReason.NO_ANSWER;
                    JobSummary silent = JobSummary.of(new RankInspection.Missing(
                            new RankId(OptionalInt.empty(), node, 0, "node " + node), reason,
                            "node " + node + " of step " + step.name() + ": " + detail
                            + "; every rank of that node is missing from this picture"));
                    summary = Optional.of(summary.map(s -> s.merge(silent)).orElse(silent));
                }
            }
            return summary;
        }
    }

    private static String run(List<String> command) throws IOException {
        Commands.Result result = Commands.run(command, Duration.ofSeconds(30));
        if (result.exitCode() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + result.output().strip());
        }
        return result.output();
    }
}
