package dev.jompd.dap;

import com.google.gson.JsonObject;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.time.Duration;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What VS Code would pop up, through the real server and gdb: failed hover, watch and console evaluations
 * answer with a quiet error (showUser false, id EVALUATION_FAILED, gdb's own reason as the message), and the
 * OpenMP picture asked for without a stop is a "no stop" answer, not an error.
 */
class QuietErrorsIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    /** ErrorId.EVALUATION_FAILED, UNKNOWN_COMMAND as published (the test is outside the session package). */
    private static final int EVALUATION_FAILED = 1201;
    private static final int UNKNOWN_COMMAND = 1002;
    private static final int STALE_HANDLE = 1104;
    private static final int SOURCE_UNAVAILABLE = 1206;

    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    private static JsonObject quietError(JsonObject response, int id) {
        assertThat(response.get("success").getAsBoolean()).as(response.toString()).isFalse();
        JsonObject error = response.getAsJsonObject("body").getAsJsonObject("error");
        assertThat(error.get("id").getAsInt()).as(response.toString()).isEqualTo(id);
        assertThat(error.get("showUser").getAsBoolean()).as(response.toString()).isFalse();
        assertThat(response.get("message").getAsString()).isNotBlank();
        return response;
    }

    private static void noStop(JsonObject response, String state) {
        assertThat(response.get("success").getAsBoolean()).as(response.toString()).isTrue();
        JsonObject body = response.getAsJsonObject("body");
        assertThat(body.has("stop")).as(body.toString()).isTrue();
        assertThat(body.get("stop").isJsonNull()).as(body.toString()).isTrue();
        assertThat(body.get("state").getAsString()).isEqualTo(state);
        assertThat(body.get("reason").getAsString()).isNotBlank();
    }

    @Test
    void failedEvaluationsAndTheOpenMpPictureWithoutAStopRaiseNoPopUps() throws Exception {
        Path program = FixtureBuilder.executable(Fixture.NESTED);
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd"));
            // VS Code's OpenMP view asks as soon as the session is there: before the program has started
            noStop(client.request("jompd/openmpTree", null), "not-started");
            noStop(client.request("jompd/parallelStacks", null), "not-started");
            client.body("launch", args("program", program.toString(), "args", array("2", "2")));
            noStop(client.request("jompd/openmpTree", null), "not-started");
            client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", "jompd_marker"))));
            client.body("configurationDone", null);
            JsonObject stopped = client.event("stopped", STOP).getAsJsonObject("body");
            int thread = stopped.get("threadId").getAsInt();
            int frame = client.body("stackTrace", args("threadId", thread, "startFrame", 0, "levels", 1))
                    .getAsJsonArray("stackFrames").get(0).getAsJsonObject().get("id").getAsInt();
            assertThat(client.body("jompd/openmpTree", null).get("schema").getAsString()).isEqualTo("jompd-inspect/1");

            // jompd/focusThread: the stop told again, for that thread and without preserveFocusHint (what makes
            // VS Code focus a thread); no jompd/openmpChanged follows, and the stop's handles stay valid. Another
            // thread than the one that stopped is told as paused (the breakpoint is not its own: told as hit,
            // VS Code focuses its de-emphasized top frame, then the top again once the stack has arrived)
            int other = client.body("threads", null).getAsJsonArray("threads").asList().stream()
                    .mapToInt(t -> t.getAsJsonObject().get("id").getAsInt()).filter(id -> id != thread).findFirst().orElseThrow();
            long changedBefore = client.events().stream().filter(e -> e.get("event").getAsString().equals("jompd/openmpChanged")).count();
            client.body("jompd/focusThread", args("threadId", other));
            JsonObject again = client.event("stopped", STOP).getAsJsonObject("body");
            assertThat(again.get("threadId").getAsInt()).isEqualTo(other);
            assertThat(again.get("reason").getAsString()).isEqualTo("pause");
            assertThat(again.get("description").getAsString()).isEqualTo("Paused");
            assertThat(again.has("hitBreakpointIds")).isFalse();
            assertThat(again.get("preserveFocusHint").getAsBoolean()).isFalse();
            client.body("jompd/focusThread", args("threadId", thread));
            JsonObject own = client.event("stopped", STOP).getAsJsonObject("body");
            assertThat(own.get("threadId").getAsInt()).isEqualTo(thread);
            assertThat(own.get("reason").getAsString()).isEqualTo(stopped.get("reason").getAsString());
            assertThat(own.get("hitBreakpointIds")).isEqualTo(stopped.get("hitBreakpointIds"));
            assertThat(own.get("preserveFocusHint").getAsBoolean()).isFalse();
            assertThat(client.body("scopes", args("frameId", frame)).getAsJsonArray("scopes")).isNotEmpty();
            quietError(client.request("jompd/focusThread", args("threadId", 99999)), STALE_HANDLE);
            assertThat(client.events().stream().filter(e -> e.get("event").getAsString().equals("jompd/openmpChanged")).count())
                    .isEqualTo(changedBefore);

            // hovering words of "#pragma omp barrier": gdb's own reason, quietly
            for (String word : new String[] {"barrier", "pragma"}) {
                JsonObject hover = quietError(client.request("evaluate", args("expression", word, "context", "hover",
                        "frameId", frame)), EVALUATION_FAILED);
                assertThat(hover.get("message").getAsString()).contains("No symbol \"" + word + "\" in current context");
            }
            quietError(client.request("evaluate", args("expression", "no_such_variable", "context", "watch",
                    "frameId", frame)), EVALUATION_FAILED);
            // the console: an expression, a gdb command, an ompd command, each failing
            JsonObject repl = quietError(client.request("evaluate", args("expression", "no_such_variable", "context", "repl",
                    "frameId", frame)), EVALUATION_FAILED);
            assertThat(repl.get("message").getAsString()).contains("no_such_variable");
            JsonObject command = quietError(client.request("evaluate", args("expression", "-exec no-such-gdb-command",
                    "context", "repl")), EVALUATION_FAILED);
            assertThat(command.get("message").getAsString()).contains("no-such-gdb-command");
            quietError(client.request("evaluate", args("expression", "ompd no-such-thing", "context", "repl")),
                    EVALUATION_FAILED);
            // a working evaluation still works
            assertThat(client.body("evaluate", args("expression", "1 + 2", "context", "hover", "frameId", frame))
                    .get("result").getAsString()).isEqualTo("3");
            // an unknown command through the real server
            quietError(client.request("jompd/noSuchRequest", null), UNKNOWN_COMMAND);
            // source: a file the debug information names that is not here (what VS Code asks when it focuses a
            // C library frame) says so; a file that is here is read
            JsonObject missing = quietError(client.request("source", args("source",
                    args("path", "./nptl/futex-internal.c"), "sourceReference", 0)), SOURCE_UNAVAILABLE);
            assertThat(missing.get("message").getAsString()).contains("./nptl/futex-internal.c")
                    .contains("not on this machine");
            assertThat(client.body("source", args("source", args("path", program.resolveSibling("nested.c").toString()),
                    "sourceReference", 0)).get("content").getAsString())
                    .isEqualTo(java.nio.file.Files.readString(program.resolveSibling("nested.c")));

            client.body("continue", args("threadId", thread));
            assertThat(client.event("exited", STOP).getAsJsonObject("body").get("exitCode").getAsInt()).isZero();
            JsonObject afterExit = client.request("jompd/openmpTree", null);
            assertThat(afterExit.get("success").getAsBoolean()).as(afterExit.toString()).isTrue();
            assertThat(afterExit.getAsJsonObject("body").get("stop").isJsonNull()).isTrue();
            noStop(client.request("jompd/parallelStacks", null), afterExit.getAsJsonObject("body").get("state").getAsString());
            client.body("disconnect", args());
        }
    }
}
