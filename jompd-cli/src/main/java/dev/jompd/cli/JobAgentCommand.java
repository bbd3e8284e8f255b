package dev.jompd.cli;

import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.rendering.JobPicture;
import dev.jompd.job.sources.JobOptions;
import dev.jompd.job.sources.NodeAgent;
import dev.jompd.job.sources.RankInspector;
import dev.jompd.job.wire.NodeMessages;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

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
            return train(out, err);
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

    /**
     * Every class of jompd's own jars, loaded (not initialised): what reads an OpenMP rank — the runtime's layout,
     * the OMPD walk, the unwinder, the report — is not on the training's path (its processes are no OpenMP programs),
     * yet belongs in the cache, or a cache would start the agent no faster than the class-data archive the JVM makes
     * on a first real run.
     */
    private static int loadOwnClasses() {
        int loaded = 0;
        ClassLoader loader = JobAgentCommand.class.getClassLoader();
        for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName() == null ? "" : Path.of(entry).getFileName().toString();
            if (!name.startsWith("jompd-") && !name.startsWith("ompd-core") && !name.startsWith("libompd")) {
                continue;
            }
            try (JarFile jar = new JarFile(entry)) {
                for (JarEntry classFile : java.util.Collections.list(jar.entries())) {
                    String path = classFile.getName();
                    if (path.endsWith(".class") && !path.contains("module-info") && !path.contains("-")) {
                        try {
                            Class.forName(path.substring(0, path.length() - 6).replace('/', '.'), false, loader);
                            loaded++;
                        } catch (ClassNotFoundException | LinkageError e) {
                            // not loadable here: left out of the cache
                        }
                    }
                }
            } catch (IOException e) {
                // a jar that cannot be read: its classes are left out
            }
        }
        return loaded;
    }

    /**
     * What an agent and its front end do, over two processes that are not OpenMP programs (each rank "missing")
     * and, where a job's ranks used a libomp this host has, a team of OpenMP threads on it ({@link JobTraining}).
     */
    private int train(PrintWriter out, PrintWriter err) {
        // grandchildren of this JVM (a JVM cannot trace its own children: its process reaper waits on them)
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", "sleep 60 & echo $!; sleep 60 & echo $!; wait")
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        Process shell = null;
        List<Long> pids = new ArrayList<>();
        Optional<JobTraining.Team> team = JobTraining.startTeam(err);
        try {
            shell = builder.start();
            var lines = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
            for (int i = 0; i < 2; i++) {
                String line = lines.readLine();
                if (line != null && line.strip().matches("\\d+")) {
                    pids.add(Long.parseLong(line.strip()));
                }
            }
            List<RankInspector.Target> targets = new ArrayList<>();
            team.ifPresent(openMp -> pids.add(openMp.pid()));
            for (int i = 0; i < pids.size(); i++) {
                targets.add(RankInspector.Target.live(RankId.live(OptionalInt.of(i), "training", pids.get(i))));
            }
            Optional<JobSummary> summary = JobSummary.of(new RankInspector().inspectAll(targets));
            NodeMessages.Receiver receiver = new NodeMessages.Receiver(List.of("training"));
            for (String line : NodeMessages.answer("training", summary)) {
                out.println(line);
                receiver.accept(line);
            }
            if (receiver.answers().get("training") instanceof NodeMessages.Answer.Summary(JobSummary received)) {
                JobPicture picture = JobPicture.of(received);
                out.println(picture.toJson());
                out.print(picture.text());
            }
            out.println(loadOwnClasses() + " classes loaded");
            out.flush();
            return ExitCode.OK;
        } catch (IOException | RuntimeException e) {
            return ExitCode.BAD_INPUT;
        } finally {
            team.ifPresent(JobTraining.Team::close);
            pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy));
            if (shell != null) {
                shell.destroy();
            }
        }
    }
}
