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

    /** What a waiting thread's role in the JSON begins with, for the construct the facts say it waits in. */
    private static String roleFor(String wait, int line) {
        String at = "hang_constructs.c:" + line + " (";
        return switch (wait) {
            case "barrier" -> "at the explicit barrier at " + at;
            case "implicit_for" -> "at the implicit barrier of the worksharing loop at " + at;
            case "implicit_sections" -> "at the implicit barrier of the sections construct at " + at;
            case "implicit_single" -> "at the implicit barrier of the single construct at " + at;
            case "ordered" -> "waits to enter the ordered region";
            case "taskwait" -> "waits at a taskwait";
            case "critical", "lock", "nest_lock" -> "waits for";
            default -> throw new IllegalArgumentException(wait);
        };
    }

    /**
     * The command line's JSON on the wait matrix (hang_constructs): every waiting thread the program recorded is named
     * in a finding, in the role of its construct, at the construct's line (the JSON's {@code source}); the one that
     * blocks in user code is named where it is.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"single", "for", "ordered", "critical_named", "taskwait"})
    void theJsonNamesEveryWaitingThreadInItsConstructsRoleAtItsLine(String construct) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.HANG_CONSTRUCTS, construct, "construct"));
        Facts facts = fixture.facts();
        InspectCommandIT.Result json = jompd("diagnose", "--core", fixture.core().toString(), "--json");
        assertThat(json.exitCode()).as(json.err()).isZero();
        JsonObject report = JsonParser.parseString(json.out()).getAsJsonObject();
        java.util.Map<Long, List<JsonObject>> byLwp = new java.util.HashMap<>();
        for (JsonElement finding : report.getAsJsonArray("findings")) {
            for (JsonElement thread : finding.getAsJsonObject().getAsJsonArray("threads")) {
                JsonObject t = thread.getAsJsonObject();
                if (t.has("lwp")) {
                    byLwp.computeIfAbsent(t.get("lwp").getAsLong(), k -> new ArrayList<>()).add(t);
                }
            }
        }
        for (Facts.ThreadFacts thread : facts.threads()) {
            List<JsonObject> named = byLwp.getOrDefault(thread.lwp(), List.of());
            String line = "hang_constructs.c:" + thread.find("wait_call_line").orElse(thread.get("wait_line"));
            if (thread.role().equals("waiter")) {
                String role = roleFor(thread.get("wait"), (int) thread.number("wait_line"));
                assertThat(named).as("%s %s in %s", thread, role, json.out()).anySatisfy(t -> {
                    assertThat(t.get("role").getAsString()).startsWith(role);
                    assertThat(t.get("source").getAsString()).isEqualTo(line);
                });
            } else if (thread.get("wait").equals("none")) {
                // the straggler (or holder): where it blocks, in every finding that names it; a critical section's
                // holder is named only where libomp records it (not for this default queuing lock)
                if (!construct.startsWith("critical")) {
                    assertThat(named).as("%s in %s", thread, json.out()).isNotEmpty();
                }
                assertThat(named).as("%s in %s", thread, json.out())
                        .allSatisfy(t -> assertThat(t.get("source").getAsString()).isEqualTo(line));
            }
        }
    }
}
