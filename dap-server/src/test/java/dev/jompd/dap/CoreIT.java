package dev.jompd.dap;

import com.google.gson.JsonObject;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Map;

import static dev.jompd.dap.OpenMpExpectations.args;
import static org.assertj.core.api.Assertions.assertThat;

/** Post-mortem sessions: a core file, no run control, the server reports the stop itself. */
class CoreIT {
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    @Test
    void coreSessionShowsEveryThreadAndScopeAndRefusesToRun() throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4"));
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd"));
            client.body("launch", args("program", fixture.executable().toString(), "coreDumpPath", fixture.core().toString()));
            client.body("configurationDone", null);
            JsonObject stopped = client.event("stopped", Duration.ofSeconds(60)).getAsJsonObject("body");
            assertThat(stopped.get("reason").getAsString()).isEqualTo("exception");
            assertThat(stopped.get("description").getAsString()).contains("Core");
            client.event("jompd/openmpChanged", Duration.ofSeconds(10));

            Facts facts = fixture.facts();
            Map<Long, Integer> ids = OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), facts);
            for (Facts.ThreadFacts thread : facts.threads()) {
                JsonObject top = client.body("stackTrace", args("threadId", ids.get(thread.lwp()), "levels", 1))
                        .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
                OpenMpExpectations.assertScopesMatch(client, client.body("scopes", args("frameId", top.get("id").getAsInt())),
                        thread);
            }
            JsonObject tree = client.body("jompd/openmpTree", null);
            assertThat(tree.getAsJsonObject("target").get("kind").getAsString()).isEqualTo("core");
            assertThat(tree.getAsJsonArray("threads")).hasSize(facts.threadCount());
            assertThat(tree.getAsJsonArray("problems")).isEmpty();

            JsonObject run = client.request("continue", args("threadId", stopped.get("threadId").getAsInt()));
            assertThat(run.get("success").getAsBoolean()).isFalse();
            assertThat(run.get("message").getAsString()).contains("core file cannot run");
            JsonObject step = client.request("next", args("threadId", stopped.get("threadId").getAsInt()));
            assertThat(step.get("success").getAsBoolean()).isFalse();
            client.body("disconnect", args());
        }
    }
}
