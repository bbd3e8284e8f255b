package dev.jompd.cli;

import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.sources.MpirProctable;
import dev.jompd.job.sources.RankInspector;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.MpiFixture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jompd job --mpirun PID} on one host: Open MPI's mpirun starts a hung hybrid job (mpi_hybrid lock_barrier,
 * 3 ranks × 2 threads); its MPIR process table, read from the launcher, names each rank's pid as the rank's own
 * facts do, and every rank is read.
 */
class MpirunJobIT {
    private static final int RANKS = 3;

    @Test
    void theRanksOfAnMpirunJobComeFromTheLaunchersProcessTable() throws Exception {
        Optional<String> missing = MpiFixture.unavailable();
        Assumptions.assumeTrue(missing.isEmpty() && Commands.available("mpirun"), () -> missing.orElse("no mpirun"));
        Path work = Files.createTempDirectory("jompd-mpirun-it");
        Path facts = Files.createDirectories(work.resolve("facts"));
        String environment = MpiFixture.rankEnvironment(facts).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
        // started by sh, so that mpirun is not this JVM's child (the JDK's reaper would take its ptrace stops)
        Commands.Result started = Commands.run(List.of("sh", "-c", "env " + environment + " mpirun --allow-run-as-root "
                + "--oversubscribe -np " + RANKS + " " + MpiFixture.executable() + " lock_barrier 2 </dev/null >"
                + work.resolve("out") + " 2>&1 & echo $!"), Map.of(), work, Duration.ofSeconds(30));
        long mpirun = Long.parseLong(started.output().strip());
        try {
            List<Facts> ranks = MpiFixture.awaitFacts(facts, RANKS, Duration.ofMinutes(2),
                    ProcessHandle.of(mpirun).orElseThrow());
            List<MpirProctable.Entry> table = MpirProctable.read(mpirun);
            assertThat(table).hasSize(RANKS);
            for (int r = 0; r < RANKS; r++) {
                assertThat(table.get(r).pid()).as("rank %d's pid", r).isEqualTo(ranks.get(r).number("pid"));
                assertThat(table.get(r).executable()).contains("mpi_hybrid");
            }
            InspectCommandIT.Result job = InspectCommandIT.jompd("job", "--mpirun", Long.toString(mpirun), "--json");
            assertThat(job.exitCode()).as(job.err()).isZero();
            JobIT.assertEveryRankSeen(job.out(), RANKS);
            // the culprit, read again: its diagnosis names the lock wait at the line its facts give
            Facts culprit = ranks.get(1);
            RankInspection inspection = new RankInspector().inspect(RankInspector.Target.live(
                    new RankId(OptionalInt.of(1), "here", culprit.number("pid"), "pid")));
            assertThat(inspection).isInstanceOfSatisfying(RankInspection.Seen.class,
                    seen -> JobIT.assertCulpritsDiagnosis(seen.findings(), culprit));
            assertThat(ProcessHandle.of(mpirun)).as("the launcher still runs").isPresent();
        } finally {
            ProcessHandle.of(mpirun).ifPresent(ProcessHandle::destroy); // mpirun ends its ranks
            dev.jompd.testkit.Fixtures.deleteRecursively(work);
        }
    }
}
