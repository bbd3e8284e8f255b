package dev.jompd.cli;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.jompd.cli.InspectCommandIT.jompd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jompd diagnose} on the nest-lock deadlock (lock_deadlock nest: nested locks always keep their
 * owner): the text and the JSON name the deadlock and each lock's holder with the LWP the program recorded.
 */
class DiagnoseCommandIT {

    private static String name(Facts.ThreadFacts thread) {
        return "omp " + thread.threadNum() + "/" + thread.teamSize() + " (LWP " + thread.lwp() + ")";
    }

    private static List<Facts.ThreadFacts> holders(Facts facts) {
        return List.of(facts.thread((int) facts.number("hang.lock.A.holder")),
                facts.thread((int) facts.number("hang.lock.B.holder")));
    }

    @Test
    void diagnoseNamesTheNestLockDeadlockAndItsHolders() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest"));
        Facts facts = fixture.facts();
        InspectCommandIT.Result text = jompd("diagnose", "--core", fixture.core().toString());
        assertThat(text.exitCode()).as(text.err()).isZero();
        String deadlock = text.out().lines().filter(l -> l.strip().startsWith("- deadlock: omp")).findFirst()
                .orElseThrow(() -> new AssertionError("no deadlock in\n" + text.out()));
        for (Facts.ThreadFacts holder : holders(facts)) {
            assertThat(deadlock).as(text.out()).contains("held by " + name(holder));
        }

        InspectCommandIT.Result json = jompd("diagnose", "--core", fixture.core().toString(), "--json");
        assertThat(json.exitCode()).as(json.err()).isZero();
        JsonObject report = JsonParser.parseString(json.out()).getAsJsonObject();
        assertThat(report.get("schema").getAsString()).isEqualTo("jompd-diagnose/1");
        List<JsonObject> deadlocks = new ArrayList<>();
        for (JsonElement finding : report.getAsJsonArray("findings")) {
            if (finding.getAsJsonObject().get("kind").getAsString().equals("deadlock")) {
                deadlocks.add(finding.getAsJsonObject());
            }
        }
        assertThat(deadlocks).as(json.out()).hasSize(1);
        List<Long> lwps = new ArrayList<>();
        deadlocks.getFirst().getAsJsonArray("threads").forEach(t -> lwps.add(t.getAsJsonObject().get("lwp").getAsLong()));
        for (Facts.ThreadFacts holder : holders(facts)) {
            assertThat(deadlocks.getFirst().get("summary").getAsString()).contains("held by " + name(holder));
            assertThat(lwps).as(json.out()).contains(holder.lwp());
        }
    }
}
