package dev.jompd.job.sources;

import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;

import dev.jompd.core.target.live.ProcFs;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * What {@code jompd job-agent} does on one node of a Slurm job: finds that node's ranks of a step
 * ({@code scontrol listpids JOB.STEP NODE}; a rank without a Slurm task id, under mpirun's orted, by its
 * environment), inspects them all in this JVM and reduces them to one node summary.
 */
public final class NodeAgent {
    private NodeAgent() {}

    /** A process of the step on this node and the rank it is, when known. */
    public record StepProcess(long pid, OptionalInt rank, String origin) {}

    /** The step's processes on {@code node} that are ranks (not orted, not a shell wrapper that forked). */
    public static List<StepProcess> ranksOnNode(String step, String node) throws IOException {
        Commands.Result listed = Commands.run(List.of("scontrol", "listpids", step, node), Duration.ofSeconds(30));
        String output = listed.output();
        if (listed.exitCode() != 0) {
            throw new IOException("scontrol listpids " + step + " " + node + " failed: " + output.strip());
        }
        List<StepProcess> ranks = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        for (String line : output.lines().toList()) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length < 1 || !columns[0].matches("\\d+")) {
                continue; // the header
            }
            long pid = Long.parseLong(columns[0]);
            if (pid == self) {
                continue;
            }
            var fromEnvironment = RankEnvironment.rank(RankEnvironment.of(pid));
            boolean launchedDirectly = columns.length >= 5 && columns[4].matches("\\d+");
            if (fromEnvironment.isPresent() && !"SLURM_PROCID".equals(fromEnvironment.get().origin())) {
                ranks.add(new StepProcess(pid, fromEnvironment.get().rank(), fromEnvironment.get().origin()));
            } else if (launchedDirectly && isNotLauncher(pid)) {
                // srun's own task id: the MPI rank of a direct launch
                ranks.add(new StepProcess(pid, OptionalInt.of(Integer.parseInt(columns[4])), "Slurm's task id"));
            }
            // else: orted (mpirun's daemon) or one of its helpers: not a rank
        }
        return ranks;
    }

    private static boolean isNotLauncher(long pid) {
        // gone: its inspection says so
        return ProcFs.command(pid).map(command -> !command.equals("orted") && !command.equals("prted")
                && !command.equals("hydra_pmi_proxy")).orElse(true);
    }

    /** The inspections of the ranks of {@code step} on {@code node}, in the order Slurm lists them. */
    public static List<RankInspection> inspectRanks(String step, String node, Duration stopTimeout, int parallelism)
            throws IOException {
        List<StepProcess> processes = ranksOnNode(step, node);
        List<RankInspector.Target> targets = processes.stream()
                .map(p -> RankInspector.Target.live(RankId.live(p.rank(), node, p.pid())))
                .toList();
        return new RankInspector(stopTimeout, parallelism).inspectAll(targets);
    }
}
