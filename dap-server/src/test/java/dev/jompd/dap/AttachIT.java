package dev.jompd.dap;

import com.google.gson.JsonObject;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;

import static dev.jompd.dap.OpenMpExpectations.args;
import static org.assertj.core.api.Assertions.assertThat;

/** Attaching gdb to a fixture held at its marker; the DAP server reads it read-only while gdb holds it. */
class AttachIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    /**
     * An attach that does not say stopOnEntry stays stopped (the default package.json documents): the entry
     * stop comes, with every thread of the program named as its facts say, and no continued event.
     */
    @Test
    void attachWithoutStopOnEntryStaysStopped() throws Exception {
        try (LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.NESTED, "2", "2"));
             DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd"));
            client.body("attach", args("processId", live.pid()));
            client.body("configurationDone", null);
            JsonObject stopped = client.await(m -> m.has("event") && (m.get("event").getAsString().equals("stopped")
                    || m.get("event").getAsString().equals("continued")), STOP, "stopped or continued").getAsJsonObject("body");
            assertThat(stopped.has("reason") ? stopped.get("reason").getAsString() : "continued").isEqualTo("entry");
            OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), live.facts());
            assertThat(client.body("jompd/openmpTree", null).getAsJsonArray("threads")).hasSize(live.facts().threadCount());
            assertThat(client.events().stream().filter(e -> e.get("event").getAsString().equals("continued"))).isEmpty();
            client.body("disconnect", args("terminateDebuggee", false));
            assertThat(live.release()).contains("JOMPD_RESULT ok");
        }
    }

    @Test
    void attachShowsTheOpenMpPictureAndDetachLetsTheProgramFinish() throws Exception {
        try (LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.NESTED, "3", "4"));
             DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd"));
            client.body("attach", args("processId", live.pid(), "program",
                    FixtureBuilder.executable(Fixture.NESTED).toString(), "stopOnEntry", true));
            client.body("configurationDone", null);
            JsonObject stopped = client.event("stopped", STOP).getAsJsonObject("body");
            assertThat(stopped.get("reason").getAsString()).isEqualTo("entry");

            Facts facts = live.facts();
            Map<Long, Integer> ids = OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), facts);
            Facts.ThreadFacts marker = facts.thread((int) facts.number("marker_thread"));
            // the marker thread blocks in read() below jompd_marker: its frames there still belong to its implicit task
            var frames = client.body("stackTrace", args("threadId", ids.get(marker.lwp()), "startFrame", 0, "levels", 30))
                    .getAsJsonArray("stackFrames");
            JsonObject markerFrame = frames.asList().stream().map(f -> f.getAsJsonObject())
                    .filter(f -> f.get("name").getAsString().equals("jompd_marker")).findFirst().orElseThrow();
            OpenMpExpectations.assertScopesMatch(client, client.body("scopes", args("frameId", markerFrame.get("id").getAsInt())),
                    marker);
            Facts.ThreadFacts worker = facts.thread(facts.threadCount() - 1);
            JsonObject workerTop = client.body("stackTrace", args("threadId", ids.get(worker.lwp()), "levels", 1))
                    .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
            OpenMpExpectations.assertScopesMatch(client, client.body("scopes", args("frameId", workerTop.get("id").getAsInt())),
                    worker);
            assertThat(client.body("jompd/openmpTree", null).getAsJsonArray("threads")).hasSize(facts.threadCount());

            // continue, pause, look again: a new stop, a fresh picture
            client.body("continue", args("threadId", stopped.get("threadId").getAsInt()));
            // while it runs (held in read()): the OpenMP picture is "no stop", a hover is a quiet error
            JsonObject running = client.body("jompd/openmpTree", null);
            assertThat(running.get("stop").isJsonNull()).as(running.toString()).isTrue();
            assertThat(running.get("state").getAsString()).isEqualTo("running");
            JsonObject hover = client.request("evaluate", args("expression", "x", "context", "hover"));
            assertThat(hover.get("success").getAsBoolean()).isFalse();
            assertThat(hover.getAsJsonObject("body").getAsJsonObject("error").get("showUser").getAsBoolean()).isFalse();
            assertThat(hover.get("message").getAsString()).contains("running");
            client.body("pause", args("threadId", stopped.get("threadId").getAsInt()));
            assertThat(client.event("stopped", STOP).getAsJsonObject("body").get("reason").getAsString()).isEqualTo("pause");
            OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), facts);

            client.body("disconnect", args("terminateDebuggee", false));
            assertThat(live.release()).contains("JOMPD_RESULT ok");
            assertThat(live.exitCode()).isZero();
        }
    }
}
