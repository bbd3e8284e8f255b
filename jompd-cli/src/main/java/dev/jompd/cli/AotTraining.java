package dev.jompd.cli;

import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.rendering.JobPicture;
import dev.jompd.job.sources.RankInspector;
import dev.jompd.job.wire.NodeMessages;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.JsonReport;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.TextReport;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * What the command line's ahead-of-time caches are trained on (bin/jompd starts the trainings in the background:
 * {@code inspect|diagnose --core … --aot-training} after a first core inspection, {@code job-agent --aot-training}
 * after a first {@code jompd job}), in one place: each training runs the path its commands take, its output
 * discarded. The DAP server's start-up is its own ({@code dev.jompd.dap.session.Warmup}); the OpenMP team the job
 * training reads is {@link JobTraining}'s.
 */
final class AotTraining {
    private AotTraining() {}

    /**
     * {@code inspect|diagnose --aot-training}: everything both commands can render of one picture (diagnosis as
     * JSON and text, the JSON with and without stacks, the text in both groupings and colours, the stacks), so the
     * cache serves each of them whichever was asked first.
     */
    static void inspect(OpenMpPicture picture, Optional<ParallelStacks> stacks, PrintWriter out) {
        List<Diagnosis.Finding> findings = Diagnosis.of(picture, stacks);
        out.println(JsonReport.diagnosis(findings));
        out.print(TextReport.diagnosis(findings));
        out.println(JsonReport.render(picture, stacks));
        out.println(JsonReport.render(picture, Optional.empty()));
        out.print(TextReport.render(picture, TextReport.Options.commandLine(true, true)));
        out.print(TextReport.render(picture, TextReport.Options.commandLine(false, false)));
        stacks.ifPresent(s -> out.print(TextReport.stacks(s)));
    }

    /**
     * Every class of jompd's own jars, loaded (not initialised): what reads an OpenMP rank — the runtime's layout,
     * the OMPD walk, the unwinder, the report — is not on the training's path (its processes are no OpenMP programs),
     * yet belongs in the cache, or a cache would start the agent no faster than the class-data archive the JVM makes
     * on a first real run.
     */
    private static int loadOwnClasses() {
        int loaded = 0;
        ClassLoader loader = AotTraining.class.getClassLoader();
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
     * {@code jompd job-agent --aot-training}: what an agent and its front end do, over two processes that are not OpenMP programs (each rank "missing")
     * and, where a job's ranks used a libomp this host has, a team of OpenMP threads on it ({@link JobTraining}).
     */
    static int job(PrintWriter out, PrintWriter err) {
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
