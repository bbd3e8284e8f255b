package dev.jompd.job;

import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankView;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rank running with the jompd-recorder, in the job's words (no LWPs, no addresses): the holder the
 * recorder saw take each lock stays named by its OpenMP thread, not "a thread". Truth: which thread of
 * recorder_deadlock holds which lock, and the line it took it at, as the program recorded them.
 */
class JobRecorderIT {
    @Test
    void theRecordersLockHoldersKeepTheirOpenMpThreadInTheJobsWords() {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_DEADLOCK)));
        Facts facts = fixture.facts();
        RankView view;
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core())) {
            view = RankView.of(JobInspections.inspect(core, new RankId(OptionalInt.of(0), "localhost", 0,
                    fixture.core().toString()), "core", fixture.core().toString()));
        }
        List<String> findings = view.findings().stream().map(RankView.Finding::words).toList();
        String all = String.join("\n", findings);
        // each lock's holder clause, "held by ... (jompd-recorder)", in the finding about that lock
        Set<String> holders = findings.stream().filter(f -> f.contains("; held by "))
                .map(f -> f.substring(f.indexOf("; held by ") + 2, f.indexOf(" (jompd-recorder)") + " (jompd-recorder)".length()))
                .collect(Collectors.toSet());
        Set<String> expected = List.of(facts.thread(1), facts.thread(2)).stream()
                .map(holder -> "held by omp " + holder.threadNum() + "/" + holder.teamSize() + ", which took it at recorder_deadlock.c:"
                        + holder.get("holds_line") + " (jompd-recorder)")
                .collect(Collectors.toSet());
        assertThat(holders).as(all).isEqualTo(expected);
    }
}
