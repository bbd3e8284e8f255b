package dev.jompd.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.core.ompd.ThreadState;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.core.unwind.NativeFrame;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.sources.CoreFiles;
import dev.jompd.job.sources.JobOptions;
import dev.jompd.job.sources.RankInspector;
import dev.jompd.report.JsonReport;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.ParallelStacks;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.MpiFixture;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.SlurmCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jompd job} over a real Slurm cluster of 4 emulated nodes and real hybrid MPI+OpenMP jobs
 * (mpi_hybrid, 8 ranks × 4 threads, launched by srun --mpi=pmix): each rank's part against the rank's own
 * facts, its own {@code jompd inspect --pid} and gdb's backtraces; the cores against the live picture; a node
 * that does not answer; a healthy job inspected repeatedly that must still finish with correct results.
 */
class JobIT {
    private static final int NODES = 4;
    private static final int PER_NODE = 2;
    private static final int RANKS = NODES * PER_NODE;
    private static final int THREADS = 4;

    private static SlurmCluster cluster;
    private static Path executable;
    private static Path work;

    @BeforeAll
    static void startCluster() throws IOException {
        Optional<String> missing = SlurmCluster.unavailable().or(MpiFixture::unavailable);
        if (missing.isPresent()) {
            System.out.println("JobIT skipped: " + missing.get());
        }
        Assumptions.assumeTrue(missing.isEmpty(), () -> missing.orElse(""));
        executable = MpiFixture.executable();
        work = Files.createTempDirectory("jompd-job-it");
        cluster = SlurmCluster.start(NODES);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        if (work != null) {
            dev.jompd.testkit.Fixtures.deleteRecursively(work);
        }
    }

    private static Path agentScript() {
        return Runtimes.repositoryRoot().resolve("jompd-cli/target/jompd/bin/jompd");
    }

    /** The jompd distribution run as users run it, with the cluster's client environment (SLURM_CONF). */
    private static InspectCommandIT.Result distribution(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(agentScript().toString()));
        command.addAll(List.of(args));
        Path err = Files.createTempFile(work, "jompd-err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().putAll(cluster.clientEnvironment());
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
        return new InspectCommandIT.Result(process.exitValue(), out, Files.readString(err));
    }

    private record RunningJob(SlurmCluster.Job job, List<Facts> facts) {}

    private static RunningJob launch(String name, String... arguments) throws IOException {
        return launch(name, PER_NODE, arguments);
    }

    private static RunningJob launch(String name, int perNode, String... arguments) throws IOException {
        try {
            return launchOnce(name, perNode, arguments);
        } catch (IllegalStateException ended) {
            // The job's start, not jompd: a step that ended 2 s after its start before any rank wrote its facts
            // (once in 5 whole runs, three test streams on 2 cores) is said with srun's output and started once
            // more, under another name.
            System.out.println("JobIT: " + ended.getMessage() + "; starting it again");
            return launchOnce(name + "-again", perNode, arguments);
        }
    }

    private static RunningJob launchOnce(String name, int perNode, String... arguments) throws IOException {
        Path facts = Files.createDirectories(work.resolve(name + "-facts"));
        List<String> command = new ArrayList<>(List.of(executable.toString()));
        command.addAll(List.of(arguments));
        Path output = work.resolve(name + ".out");
        SlurmCluster.Job job = cluster.launch(name, NODES, perNode, command, MpiFixture.rankEnvironment(facts), output);
        try {
            return new RunningJob(job, MpiFixture.awaitFacts(facts, NODES * perNode, Duration.ofMinutes(3),
                    job.srun().toHandle()));
        } catch (IllegalStateException e) {
            job.srun().destroy();
            throw new IllegalStateException(e.getMessage() + "; srun said:\n" + Files.readString(output), e);
        }
    }

    private static RankId idOf(Facts facts) {
        long pid = facts.number("pid");
        return new RankId(OptionalInt.of((int) facts.number("mpi.rank")), facts.get("mpi.host"), pid, "pid " + pid);
    }

    /** jompd's JSON report of one rank, as jompd inspect --json --stacks writes it. */
    private static JsonObject report(RankInspection.Seen seen) {
        return JsonParser.parseString(JsonReport.render(seen.picture(), seen.stacks())).getAsJsonObject();
    }

    private static List<String> functions(ParallelStacks.ThreadStack stack) {
        return stack.stack().frames().stream().filter(f -> !f.inlined())
                .map(f -> f.function().orElse("??").replaceAll("\\(.*", "")).toList();
    }

    @Test
    void aRankDeadlockedOnALockAndABarrierWhileTheOthersWaitInAnAllreduce() throws Exception {
        RunningJob running = launch("lockjob", "lock_barrier", Integer.toString(THREADS));
        try {
            List<RankInspector.Target> targets = running.facts().stream().map(f -> RankInspector.Target.live(idOf(f))).toList();
            List<RankInspection> inspections = new RankInspector().inspectAll(targets);
            for (int r = 0; r < RANKS; r++) {
                Facts facts = running.facts().get(r);
                RankInspection inspection = inspections.get(r);
                assertThat(inspection).as("rank %d: %s", r, inspection).isInstanceOf(RankInspection.Seen.class);
                RankInspection.Seen seen = (RankInspection.Seen) inspection;
                OpenMpPicture picture = seen.picture();
                if (facts.get("mpi.role").equals("culprit")) {
                    for (Facts.ThreadFacts thread : facts.threads()) {
                        String expected = thread.index() == 0 ? "ompt_state_wait_lock" : "ompt_state_wait_barrier_explicit";
                        assertThat(picture.threadByLwp(thread.lwp())).as("rank %d thread %d", r, thread.index())
                                .hasValueSatisfying(t -> assertThat(t.state().map(ThreadState::cName)).hasValue(expected));
                    }
                    assertCulpritsDiagnosis(seen.findings(), facts);
                } else {
                    long lwp = facts.thread(0).lwp();
                    ParallelStacks.ThreadStack main = seen.stacks().orElseThrow().stacks().stream()
                            .filter(s -> s.stack().lwp() == lwp).findFirst().orElseThrow();
                    assertThat(functions(main)).as("rank %d's main thread", r).contains("wait_in_allreduce", "main");
                    assertThat(picture.threads()).as("rank %d: the pool of %d threads", r, THREADS).hasSize(THREADS);
                    // the program is back in serial code (its facts: level 0): the region its pool last ran has
                    // ended, and nothing waits at a barrier (libomp's kept team still shows that region's barrier)
                    assertThat(facts.thread(0).level()).isZero();
                    assertThat(picture.regions()).as("rank %d", r).filteredOn(region -> region.level() > 0)
                            .isNotEmpty().allMatch(OpenMpPicture.ParallelRegion::ended);
                    assertThat(seen.findings()).as("rank %d waits in MPI, not at a barrier", r)
                            .noneMatch(f -> f.kind() == dev.jompd.report.Diagnosis.FindingKind.BARRIER);
                }
            }

            // Each rank's part equals the rank's own jompd inspect --pid (the stacks of a polling rank may
            // catch it between its sleep and MPI_Test: that rank is compared once more).
            for (int r = 0; r < RANKS; r++) {
                RankInspection.Seen seen = (RankInspection.Seen) inspections.get(r);
                String pid = Long.toString(running.facts().get(r).number("pid"));
                JsonObject own = JsonParser.parseString(InspectCommandIT.jompd("inspect", "--pid", pid, "--json", "--stacks").out())
                        .getAsJsonObject();
                if (!own.equals(report(seen))) {
                    seen = (RankInspection.Seen) new RankInspector().inspect(RankInspector.Target.live(idOf(running.facts().get(r))));
                    own = JsonParser.parseString(InspectCommandIT.jompd("inspect", "--pid", pid, "--json", "--stacks").out())
                            .getAsJsonObject();
                }
                assertThat(report(seen)).as("rank %d against its own jompd inspect --pid", r).isEqualTo(own);
            }

            // the whole job through Slurm: one agent per node, every rank in the merged summary
            InspectCommandIT.Result job = distribution("job", "--slurm", Long.toString(running.job().jobId()),
                    "--json", "--timeout", "120");
            assertThat(job.exitCode()).as(job.err()).isZero();
            assertEveryRankSeen(job.out(), RANKS);

            postMortemGivesWhatLiveGave(running, inspections);
            faultsOfALiveJob(running);
            aNodeThatDoesNotAnswerIsNamed(running);
        } finally {
            cluster.cancel(running.job());
        }
    }

    /**
     * Cores of every rank, taken as the README says (scripts/job-cores.sh: gcore per rank through the job's own
     * fan-out) and named by node and pid only: the rank comes from each process's environment in its core.
     */
    private void postMortemGivesWhatLiveGave(RunningJob running, List<RankInspection> live) throws Exception {
        Path cores = Files.createDirectories(work.resolve("cores"));
        try {
            Commands.Result taken = Commands.run(List.of("bash", Runtimes.repositoryRoot().resolve("scripts/job-cores.sh")
                    .toString(), running.job().step(), cores.toString()), cluster.clientEnvironment(), work, Duration.ofMinutes(5));
            assertThat(taken.exitCode()).as(taken.output()).isZero();
            Map<Integer, Path> coreOfRank = new HashMap<>();
            for (int r = 0; r < RANKS; r++) {
                Facts facts = running.facts().get(r);
                Path core = cores.resolve("core." + facts.get("mpi.host") + "." + facts.number("pid"));
                assertThat(core).as(taken.output()).isRegularFile();
                coreOfRank.put(r, core);
            }
            for (var entry : coreOfRank.entrySet()) {
                int r = entry.getKey();
                CoreFiles.RankSource source = CoreFiles.rankOf(entry.getValue());
                assertThat(source.rank()).as("rank of " + entry.getValue()).hasValue(r);
                assertThat(source.origin()).as("from the environment, not the name").isIn("OMPI_COMM_WORLD_RANK", "PMIX_RANK");
                RankInspection fromCore = new RankInspector().inspect(RankInspector.Target.core(
                        new RankId(source.rank(), "", 0, entry.getValue().toString()), entry.getValue(), Optional.empty()));
                assertThat(fromCore).as("rank %d's core", r).isInstanceOf(RankInspection.Seen.class);
                RankInspection.Seen core = (RankInspection.Seen) fromCore;
                RankInspection.Seen livePart = (RankInspection.Seen) live.get(r);
                JsonObject corePicture = JsonReport.toJson(core.picture());
                JsonObject livePicture = JsonReport.toJson(livePart.picture());
                corePicture.remove("target");
                livePicture.remove("target");
                assertThat(corePicture).as("rank %d: core against live", r).isEqualTo(livePicture);
                assertThat(core.findings().stream().map(f -> f.summary()).toList()).as("rank %d's diagnosis", r)
                        .isEqualTo(livePart.findings().stream().map(f -> f.summary()).toList());
                if (running.facts().get(r).get("mpi.role").equals("culprit")) {
                    // the stacks against gdb's own backtraces of the same core, thread by thread
                    Map<Long, List<GdbProbe.Frame>> gdb = GdbProbe.onCore(executable, entry.getValue()).backtraces();
                    for (ParallelStacks.ThreadStack stack : core.stacks().orElseThrow().stacks()) {
                        List<String> gdbFunctions = gdb.get(stack.stack().lwp()).stream()
                                .map(f -> f.function().replaceAll("\\(.*", "")).toList();
                        List<String> ours = stack.stack().frames().stream().map(NativeFrame::function)
                                .map(f -> f.orElse("??").replaceAll("\\(.*", "")).toList();
                        if (!gdbFunctions.isEmpty() && gdbFunctions.getLast().equals("main") && ours.contains("main")) {
                            ours = ours.subList(0, ours.indexOf("main") + 1); // gdb's bt stops at main (backtrace past-main off)
                        }
                        assertThat(ours).as("LWP %d against gdb's bt", stack.stack().lwp()).isEqualTo(gdbFunctions);
                    }
                }
            }
            InspectCommandIT.Result job = InspectCommandIT.jompd("job", "--cores", cores.toString(), "--json");
            assertThat(job.exitCode()).as(job.err()).isZero();
            assertEveryRankSeen(job.out(), RANKS);

            // a core cut short is named, not read
            Path truncated = cores.resolve("core.rank-9");
            try (var in = Files.newInputStream(coreOfRank.get(0)); var out = Files.newOutputStream(truncated)) {
                out.write(in.readNBytes(200_000));
            }
            assertThat(CoreFiles.rankFromName(truncated)).hasValue(9);
            RankInspection cut = new RankInspector().inspect(RankInspector.Target.core(
                    new RankId(OptionalInt.of(9), "", 0, truncated.toString()), truncated, Optional.empty()));
            assertThat(cut).isInstanceOfSatisfying(RankInspection.Missing.class, m -> {
                assertThat(m.reason()).isEqualTo(RankInspection.MissingReason.DAMAGED_CORE);
                assertThat(m.detail()).contains("cut short");
            });
        } finally {
            try (var files = Files.list(cores)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    /**
     * A rank another tracer holds, a rank that is gone: named, and the others read — one at a time and all at once
     * (inspectAll attaches every rank before it reads any); afterwards no rank is left traced or stopped.
     */
    private void faultsOfALiveJob(RunningJob running) throws IOException {
        RankId rank0 = idOf(running.facts().get(0));
        RankId gone = new RankId(OptionalInt.of(99), "n1", ProcessHandle.current().pid() + 4_000_000, "pid");
        try (LiveProcessAddressSpace held = LiveProcessAddressSpace.attach(rank0.pid())) {
            RankInspection traced = new RankInspector().inspect(RankInspector.Target.live(rank0));
            assertThat(traced).isInstanceOfSatisfying(RankInspection.Missing.class, m -> {
                assertThat(m.reason()).isEqualTo(RankInspection.MissingReason.ALREADY_TRACED);
                assertThat(m.detail()).contains("already traced");
            });
            List<RankInspector.Target> targets = new ArrayList<>(running.facts().stream()
                    .map(f -> RankInspector.Target.live(idOf(f))).toList());
            targets.add(2, RankInspector.Target.live(gone));
            List<RankInspection> all = new RankInspector(JobOptions.defaults().stopTimeout(), 1).inspectAll(targets);
            assertThat(all).hasSize(RANKS + 1);
            assertThat(all.get(0)).isInstanceOfSatisfying(RankInspection.Missing.class,
                    m -> assertThat(m.reason()).isEqualTo(RankInspection.MissingReason.ALREADY_TRACED));
            assertThat(all.get(2)).isInstanceOfSatisfying(RankInspection.Missing.class,
                    m -> assertThat(m.reason()).isEqualTo(RankInspection.MissingReason.EXITED));
            for (int i = 0; i < all.size(); i++) {
                if (i != 0 && i != 2) {
                    assertThat(all.get(i)).as("target %d", i).isInstanceOf(RankInspection.Seen.class);
                    assertThat(all.get(i).id()).isEqualTo(targets.get(i).id());
                }
            }
        }
        RankInspection exited = new RankInspector().inspect(RankInspector.Target.live(gone));
        assertThat(exited).isInstanceOfSatisfying(RankInspection.Missing.class,
                m -> assertThat(m.reason()).isEqualTo(RankInspection.MissingReason.EXITED));
        for (Facts facts : running.facts()) {
            long pid = facts.number("pid");
            try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
                for (Path task : tasks.toList()) {
                    String status = Files.readString(task.resolve("status"));
                    assertThat(status).as("pid %d task %s after inspectAll", pid, task.getFileName())
                            .contains("TracerPid:\t0\n").doesNotContainPattern("State:\\s+t");
                }
            }
        }
    }

    /** An agent that never answers (node n2's sleeps): the job's picture names n2 as missing, the others are in it. */
    private void aNodeThatDoesNotAnswerIsNamed(RunningJob running) throws IOException, InterruptedException {
        Path agent = work.resolve("slow-agent.sh");
        Files.writeString(agent, "#!/bin/sh\n[ \"$SLURMD_NODENAME\" = n2 ] && exec sleep 600\nexec " + agentScript() + " \"$@\"\n");
        agent.toFile().setExecutable(true);
        long started = System.nanoTime();
        InspectCommandIT.Result job = distribution("job", "--slurm", running.job().step(), "--json",
                "--timeout", "60", "--agent", agent.toString());
        assertThat(job.exitCode()).as(job.err()).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(100));
        assertThat(job.out()).contains("\"reason\":\"no_answer\"").contains("node n2");
        // the other three nodes' ranks and one entry naming n2
        assertThat(ranksOf(job.out())).as(job.out()).isEqualTo(RANKS - PER_NODE + 1);
    }

    /**
     * 32 ranks on the 4 nodes (8 per node), through Slurm: every rank in the merged picture, the culprit a class of
     * its own whose diagnosis names the line it waits at, and every other class made of waiting ranks only — the
     * ranks' own facts decide which rank is which.
     */
    @Test
    void thirtyTwoRanksMergeIntoTheCulpritAndTheWaiters() throws Exception {
        int perNode = 8;
        RunningJob running = launch("wide", perNode, "lock_barrier", "2", "13");
        try {
            InspectCommandIT.Result job = distribution("job", "--slurm", Long.toString(running.job().jobId()),
                    "--json", "--timeout", "150");
            assertThat(job.exitCode()).as(job.err()).isZero();
            JsonObject picture = JsonParser.parseString(job.out()).getAsJsonObject();
            JsonObject ranks = picture.getAsJsonObject("ranks");
            assertThat(ranks.get("total").getAsInt()).as(job.out()).isEqualTo(NODES * perNode);
            assertThat(ranks.get("seen").getAsInt()).as(job.out()).isEqualTo(NODES * perNode);
            int culprit = 13;
            assertThat(running.facts().get(culprit).get("mpi.role")).isEqualTo("culprit");
            long covered = 0;
            for (var element : picture.getAsJsonArray("classes")) {
                JsonObject rankClass = element.getAsJsonObject();
                dev.jompd.job.model.RankSet members = dev.jompd.job.model.RankSet.parse(rankClass.get("ranks").getAsString());
                covered += members.size();
                if (members.contains(culprit)) {
                    assertThat(members.size()).as("the culprit's class: %s", rankClass.get("ranks")).isEqualTo(1);
                    assertCulpritClassFindings(rankClass, running.facts().get(culprit));
                } else {
                    for (int r = 0; r < NODES * perNode; r++) {
                        if (members.contains(r)) {
                            assertThat(running.facts().get(r).get("mpi.role")).as("rank %d in %s", r, rankClass.get("ranks"))
                                    .isEqualTo("waiting");
                        }
                    }
                }
            }
            assertThat(covered).as("the classes cover every rank once").isEqualTo(NODES * perNode);
        } finally {
            cluster.cancel(running.job());
        }
    }

    /**
     * Open MPI's mpirun inside a batch job of 2 nodes (2 ranks each): mpirun starts its orted daemons through srun,
     * the ranks run under them; {@code jompd job --mpirun PID} reads the launcher's MPIR table, finds the launcher
     * in an allocation and reaches the ranks through the job (srun --overlap). Every rank is in the picture, the
     * culprit (on the second node) a class of its own whose diagnosis names its lock wait, each class's
     * representative the rank its facts say (pid, node).
     */
    @Test
    void mpirunInsideABatchJobIsReachedThroughTheAllocation() throws Exception {
        int nodes = 2;
        int perNode = 2;
        int ranks = nodes * perNode;
        int culprit = 3;
        Path facts = Files.createDirectories(work.resolve("mpirun-in-batch-facts"));
        Path launcherPid = work.resolve("mpirun-in-batch.pid");
        Path script = work.resolve("mpirun-in-batch.sh");
        StringBuilder body = new StringBuilder("#!/bin/sh\n");
        MpiFixture.rankEnvironment(facts).forEach((name, value) -> body.append("export ").append(name).append("='")
                .append(value).append("'\n"));
        // each emulated node its own shared-memory directory (the segments are named by host name, one host here)
        body.append("mpirun --allow-run-as-root -np ").append(ranks).append(" --map-by ppr:").append(perNode)
                .append(":node sh -c 'export OMPI_MCA_btl_vader_backing_directory=/dev/shm/'")
                .append(cluster.directory().getFileName()).append("'-ompi-$SLURM_JOB_ID-$SLURMD_NODENAME; ")
                .append("mkdir -p $OMPI_MCA_btl_vader_backing_directory; exec \"$@\"' rank ").append(executable)
                .append(" lock_barrier 2 ").append(culprit).append(" </dev/null &\n")
                .append("echo $! > ").append(launcherPid).append("\nwait\n");
        Files.writeString(script, body);
        Commands.Result submitted = cluster.client(List.of("sbatch", "-J", "mpirun-in-batch", "-N", Integer.toString(nodes),
                "--ntasks-per-node=" + perNode, "-o", work.resolve("mpirun-in-batch.out").toString(), script.toString()));
        assertThat(submitted.exitCode()).as(submitted.output()).isZero();
        String jobId = submitted.output().replaceAll("(?s).*Submitted batch job (\\d+).*", "$1");
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!(Files.isRegularFile(launcherPid) && Files.readString(launcherPid).strip().matches("\\d+"))) {
                assertThat(System.nanoTime() - deadline).as("the batch job started mpirun within 60 s").isNegative();
                Thread.sleep(100);
            }
            long mpirun = Long.parseLong(Files.readString(launcherPid).strip());
            List<Facts> byRank = MpiFixture.awaitFacts(facts, ranks, Duration.ofMinutes(2), ProcessHandle.of(mpirun).orElseThrow());
            assertThat(byRank.get(culprit).get("mpi.role")).isEqualTo("culprit");
            assertThat(byRank.stream().map(f -> f.get("mpi.host")).distinct().count()).as("ranks on 2 nodes").isEqualTo(nodes);

            InspectCommandIT.Result job = distribution("job", "--mpirun", Long.toString(mpirun), "--json", "--timeout", "60");
            assertThat(job.exitCode()).as(job.err()).isZero();
            JsonObject picture = JsonParser.parseString(job.out()).getAsJsonObject();
            assertThat(picture.getAsJsonObject("ranks").get("total").getAsInt()).as(job.out()).isEqualTo(ranks);
            assertThat(picture.getAsJsonObject("ranks").get("seen").getAsInt()).as(job.out()).isEqualTo(ranks);
            long covered = 0;
            for (var element : picture.getAsJsonArray("classes")) {
                JsonObject rankClass = element.getAsJsonObject();
                dev.jompd.job.model.RankSet members = dev.jompd.job.model.RankSet.parse(rankClass.get("ranks").getAsString());
                covered += members.size();
                JsonObject shown = rankClass.getAsJsonObject("representative");
                Facts representative = byRank.get(shown.get("rank").getAsInt());
                assertThat(shown.get("pid").getAsLong()).as("representative %s", shown).isEqualTo(representative.number("pid"));
                assertThat(shown.get("host").getAsString()).as("representative %s", shown).isEqualTo(representative.get("mpi.host"));
                if (members.contains(culprit)) {
                    assertThat(members.size()).as("the culprit's class: %s", rankClass.get("ranks")).isEqualTo(1);
                    assertCulpritClassFindings(rankClass, byRank.get(culprit));
                    assertThat(rankClass.getAsJsonArray("findings").toString()).as("the culprit's diagnosis")
                            .contains("waits for lock `" + byRank.get(culprit).thread(0).get("waits_for") + "`");
                } else {
                    for (int r = 0; r < ranks; r++) {
                        if (members.contains(r)) {
                            assertThat(byRank.get(r).get("mpi.role")).as("rank %d in %s", r, rankClass.get("ranks"))
                                    .isEqualTo("waiting");
                        }
                    }
                }
            }
            assertThat(covered).as("the classes cover every rank once").isEqualTo(ranks);

            // the second node's agent answers but finds none of mpirun's ranks (it looks at its own tool step): each
            // of its ranks is named missing with its pid, from the launcher's table; the launcher's node's ranks are in
            // the picture. Slurm may give the job any 2 of the 4 nodes: the second is where the last rank runs
            // (--map-by ppr:2:node fills the launcher's node first).
            String second = byRank.get(ranks - 1).get("mpi.host");
            Path blind = work.resolve("blind-agent.sh");
            Files.writeString(blind, "#!/bin/sh\n[ \"$SLURMD_NODENAME\" = " + second + " ] && exec " + agentScript()
                    + " job-agent --step \"$SLURM_JOB_ID.$SLURM_STEP_ID\"\nexec " + agentScript() + " \"$@\"\n");
            blind.toFile().setExecutable(true);
            InspectCommandIT.Result partial = distribution("job", "--mpirun", Long.toString(mpirun), "--json",
                    "--timeout", "60", "--agent", blind.toString());
            assertThat(partial.exitCode()).as(partial.err()).isZero();
            JsonObject half = JsonParser.parseString(partial.out()).getAsJsonObject();
            List<Integer> onSecond = java.util.stream.IntStream.range(0, ranks).filter(r -> byRank.get(r).get("mpi.host").equals(second))
                    .boxed().toList();
            assertThat(onSecond).as("ranks on " + second).isNotEmpty();
            assertThat(half.getAsJsonObject("ranks").get("total").getAsInt()).as(partial.out()).isEqualTo(ranks);
            assertThat(half.getAsJsonObject("ranks").get("seen").getAsInt()).as(partial.out()).isEqualTo(ranks - onSecond.size());
            List<Integer> named = new ArrayList<>();
            for (var element : half.getAsJsonArray("missing")) {
                JsonObject missing = element.getAsJsonObject();
                dev.jompd.job.model.RankSet members = dev.jompd.job.model.RankSet.parse(missing.get("ranks").getAsString());
                assertThat(members.size()).as("one rank per entry: %s", missing).isEqualTo(1);
                int r = (int) members.first();
                named.add(r);
                assertThat(missing.get("reason").getAsString()).isEqualTo("no_answer");
                assertThat(missing.get("detail").getAsString()).as("rank %d", r)
                        .contains("pid " + byRank.get(r).number("pid") + " on " + second).contains("launcher's MPIR table");
            }
            assertThat(named).as("the ranks named missing").containsExactlyInAnyOrderElementsOf(onSecond);
        } finally {
            cluster.client(List.of("scancel", jobId));
        }
    }

    @Test
    void aRankStuckInATaskwaitNeverReachesMpi() throws Exception {
        RunningJob running = launch("taskwaitjob", "taskwait", Integer.toString(THREADS), "2");
        try {
            List<RankInspection> inspections = new RankInspector().inspectAll(
                    running.facts().stream().map(f -> RankInspector.Target.live(idOf(f))).toList());
            RankInspection.Seen culprit = (RankInspection.Seen) inspections.get(2);
            assertThat(running.facts().get(2).get("mpi.role")).isEqualTo("culprit");
            long waiter = running.facts().get(2).thread(0).lwp();
            ParallelStacks.ThreadStack stack = culprit.stacks().orElseThrow().stacks().stream()
                    .filter(s -> s.stack().lwp() == waiter).findFirst().orElseThrow();
            assertThat(functions(stack)).as("the culprit's thread 0").contains("__kmpc_omp_taskwait");
            List<dev.jompd.report.Diagnosis.Finding> taskwaits = culprit.findings().stream()
                    .filter(f -> f.kind() == dev.jompd.report.Diagnosis.FindingKind.TASKWAIT).toList();
            assertThat(taskwaits).as("the culprit's diagnosis: %s", culprit.findings()).hasSize(1);
            assertThat(taskwaits.getFirst().threads()).as("%s", taskwaits.getFirst())
                    .anyMatch(t -> t.thread().lwp().orElse(-1) == waiter
                            && t.role() == dev.jompd.report.Diagnosis.Role.WAITS_AT_TASKWAIT);
            int blocked = Integer.parseInt(running.facts().get(2).get("hang.task.thread"));
            long runner = running.facts().get(2).thread(blocked).lwp();
            assertThat(culprit.stacks().orElseThrow().stacks().stream().filter(s -> s.stack().lwp() == runner)
                    .map(JobIT::functions).findFirst().orElseThrow()).contains("blocked_task");
            for (int r = 0; r < RANKS; r++) {
                assertThat(inspections.get(r)).as("rank %d", r).isInstanceOf(RankInspection.Seen.class);
            }
        } finally {
            cluster.cancel(running.job());
        }
    }

    @Test
    void aHealthyJobInspectedRepeatedlyFinishesWithCorrectResults() throws Exception {
        int rounds = 120;
        RunningJob running = launch("healthyjob", "healthy", Integer.toString(THREADS), Integer.toString(rounds));
        int inspected = 0;
        for (int pass = 0; pass < 3 && running.job().srun().isAlive(); pass++) {
            List<RankInspection> inspections = new RankInspector().inspectAll(
                    running.facts().stream().map(f -> RankInspector.Target.live(idOf(f))).toList());
            for (RankInspection inspection : inspections) {
                if (inspection instanceof RankInspection.Seen) {
                    inspected++;
                } else {
                    assertThat(((RankInspection.Missing) inspection).reason()).as(inspection.toString())
                            .isEqualTo(RankInspection.MissingReason.EXITED);
                }
            }
        }
        assertThat(running.job().srun().waitFor(3, TimeUnit.MINUTES)).as("the healthy job finished").isTrue();
        assertThat(inspected).as("ranks seen while the job ran").isGreaterThan(0);
        long n = 1000;
        long expected = 0;
        for (long round = 1; round <= rounds; round++) {
            expected += n * (n + 1) / 2 * ((long) RANKS * (RANKS + 1) / 2) * round;
        }
        String output = Files.readString(running.job().output());
        String result = "JOMPD_RESULT ok " + expected;
        assertThat(output.lines().filter(l -> l.contains(result)).count()).as(output)
                .isEqualTo(RANKS);
        assertThat(running.job().srun().exitValue()).isZero();
    }

    /**
     * The lock-and-barrier culprit's diagnosis, exactly: one LOCK finding (thread 0 waits for the lock thread 1
     * holds) and one BARRIER finding (thread 0 has not reached the barrier the others wait at), both placing
     * thread 0 at the line the program recorded for its wait, and nothing else.
     */
    static void assertCulpritsDiagnosis(List<dev.jompd.report.Diagnosis.Finding> findings, Facts facts) {
        String text = dev.jompd.report.TextReport.diagnosis(findings);
        assertThat(findings.stream().map(dev.jompd.report.Diagnosis.Finding::kind).toList()).as(text)
                .containsExactlyInAnyOrder(dev.jompd.report.Diagnosis.FindingKind.BARRIER,
                        dev.jompd.report.Diagnosis.FindingKind.LOCK);
        Optional<String> waitLine = Optional.of("mpi_hybrid.c:" + facts.thread(0).get("wait_line"));
        for (dev.jompd.report.Diagnosis.Finding finding : findings) {
            dev.jompd.report.Diagnosis.Involved waiter = finding.threads().stream()
                    .filter(t -> t.thread().lwp().orElse(-1) == facts.thread(0).lwp()).findFirst()
                    .orElseThrow(() -> new AssertionError("thread 0 is not named in " + text));
            assertThat(waiter.role()).as(text).isEqualTo(finding.kind() == dev.jompd.report.Diagnosis.FindingKind.LOCK
                    ? dev.jompd.report.Diagnosis.Role.WAITS_FOR_LOCK : dev.jompd.report.Diagnosis.Role.NOT_AT_BARRIER);
            assertThat(waiter.source()).as(text).isEqualTo(waitLine);
        }
    }

    /**
     * The culprit's class in the job picture: its findings ({@code kind: summary}) are exactly a barrier and a lock,
     * and they place thread 0's wait at the line the program recorded (as a whole place: {@code :4} is not {@code :45}).
     */
    static void assertCulpritClassFindings(JsonObject rankClass, Facts culprit) {
        List<String> findings = new ArrayList<>();
        rankClass.getAsJsonArray("findings").forEach(f -> findings.add(f.getAsString()));
        assertThat(findings.stream().map(f -> f.substring(0, Math.max(0, f.indexOf(':')))).toList()).as("%s", findings)
                .containsExactlyInAnyOrder("barrier", "lock");
        assertThat(String.join("\n", findings)).as("the culprit's diagnosis")
                .containsPattern("\\bmpi_hybrid\\.c:" + culprit.thread(0).get("wait_line") + "(?![0-9])");
    }

    /** Every one of {@code ranks} ranks is seen: none missing (exited, already traced, damaged, silent). */
    static void assertEveryRankSeen(String jobJson, int ranks) {
        JsonObject counts = JsonParser.parseString(jobJson).getAsJsonObject().getAsJsonObject("ranks");
        assertThat(List.of(counts.get("total").getAsInt(), counts.get("seen").getAsInt(), counts.get("missing").getAsInt()))
                .as("ranks total, seen, missing: %s", jobJson).containsExactly(ranks, ranks, 0);
    }

    /** How many ranks a jompd-job/1 document stands for (seen and missing). */
    static int ranksOf(String jobJson) {
        JsonObject job = JsonParser.parseString(jobJson).getAsJsonObject();
        assertThat(job.get("schema").getAsString()).isEqualTo("jompd-job/1");
        return job.getAsJsonObject("ranks").get("total").getAsInt();
    }
}
