package dev.jompd.dap.session;

import com.google.gson.JsonObject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Protocol handling without gdb: malformed messages, wrong types, requests out of order. */
class DapSessionTest {
    private RecordingPeer peer;
    private DapSession session;

    @BeforeEach
    void open() {
        peer = new RecordingPeer();
        session = new DapSession(peer, new ServerOptions("gdb", new PrintStream(new ByteArrayOutputStream()), false));
    }

    private JsonObject request(int seq, String command, String arguments) throws InterruptedException {
        session.receive("{\"seq\":" + seq + ",\"type\":\"request\",\"command\":\"" + command + "\""
                + (arguments == null ? "" : ",\"arguments\":" + arguments) + "}");
        return peer.response(seq);
    }

    private static void assertError(JsonObject response, String text) {
        assertThat(response.get("success").getAsBoolean()).as(response.toString()).isFalse();
        assertThat(response.get("message").getAsString()).contains(text);
        assertThat(response.getAsJsonObject("body").getAsJsonObject("error").get("format").getAsString()).isNotEmpty();
    }

    @Test
    void initializeAnswersCapabilitiesThenSendsInitialized() throws InterruptedException {
        JsonObject response = request(1, "initialize", "{\"adapterID\":\"jompd\"}");
        assertThat(response.get("success").getAsBoolean()).isTrue();
        JsonObject body = response.getAsJsonObject("body");
        assertThat(body.get("supportsConfigurationDoneRequest").getAsBoolean()).isTrue();
        assertThat(body.get("supportsDelayedStackTraceLoading").getAsBoolean()).isTrue();
        assertThat(body.get("supportsReadMemoryRequest").getAsBoolean()).isTrue();
        assertThat(body.get("supportsSetVariable").getAsBoolean()).isFalse();
        JsonObject event = peer.next(Duration.ofSeconds(5));
        assertThat(event.get("event").getAsString()).isEqualTo("initialized");
        assertThat(event.get("seq").getAsInt()).isGreaterThan(response.get("seq").getAsInt());
    }

    @Test
    void invalidJsonGetsAnErrorResponseAndTheSessionGoesOn() throws InterruptedException {
        session.receive("{\"seq\":1,\"type\":\"request\",");
        JsonObject error = peer.next(Duration.ofSeconds(5));
        assertThat(error.get("type").getAsString()).isEqualTo("response");
        assertThat(error.get("success").getAsBoolean()).isFalse();
        assertThat(error.get("message").getAsString()).contains("invalid JSON");
        assertThat(request(2, "initialize", "{}").get("success").getAsBoolean()).isTrue();
    }

    @Test
    void nonObjectsAndMissingFieldsAreRejected() throws InterruptedException {
        for (String message : new String[] {"[1,2]", "42", "\"x\"", "{}", "{\"type\":5}", "{\"type\":\"request\"}",
                "{\"type\":\"request\",\"seq\":\"one\",\"command\":\"threads\"}", "{\"type\":\"gossip\",\"seq\":1}"}) {
            session.receive(message);
            JsonObject error = peer.next(Duration.ofSeconds(5));
            assertThat(error.get("success").getAsBoolean()).as(message).isFalse();
            while (!peer.sent.isEmpty()) {
                peer.next(Duration.ofSeconds(1)); // the console output event that accompanies the rejection
            }
        }
    }

    @Test
    void unknownCommandIsAnError() throws InterruptedException {
        request(1, "initialize", "{}");
        assertError(request(2, "flyToTheMoon", "{}"), "unknown command");
    }

    @Test
    void requestsOutOfOrderAreErrors() throws InterruptedException {
        assertError(request(1, "threads", null), "initialize first");
        assertError(request(2, "launch", "{\"program\":\"/bin/true\"}"), "initialize first");
        request(3, "initialize", "{}");
        assertError(request(4, "initialize", "{}"), "already");
        assertError(request(5, "threads", null), "launch or attach first");
        assertError(request(6, "stackTrace", "{\"threadId\":1}"), "launch or attach first");
        assertError(request(7, "continue", "{\"threadId\":1}"), "launch or attach first");
        // no stop yet: the OpenMP picture is answered as "no stop", not as an error (VS Code would pop it up)
        JsonObject tree = request(8, "jompd/openmpTree", null);
        assertThat(tree.get("success").getAsBoolean()).as(tree.toString()).isTrue();
        assertThat(tree.getAsJsonObject("body").has("stop")).isTrue();
        assertThat(tree.getAsJsonObject("body").get("stop").isJsonNull()).isTrue();
        assertThat(tree.getAsJsonObject("body").get("state").getAsString()).isEqualTo("not-started");
        JsonObject stacks = request(9, "jompd/parallelStacks", null);
        assertThat(stacks.get("success").getAsBoolean()).as(stacks.toString()).isTrue();
        assertThat(stacks.getAsJsonObject("body").get("stop").isJsonNull()).isTrue();
        assertError(request(10, "jompd/focusThread", "{\"threadId\":1}"), "launch or attach first");
    }

    private static void assertErrorId(JsonObject response, ErrorId id) {
        assertThat(response.get("success").getAsBoolean()).as(response.toString()).isFalse();
        JsonObject error = response.getAsJsonObject("body").getAsJsonObject("error");
        assertThat(error.get("id").getAsInt()).as(response.toString()).isEqualTo(id.id());
        assertThat(error.get("showUser").getAsBoolean()).as(response.toString()).isEqualTo(id.showUser());
    }

    @Test
    void everyErrorCarriesItsStableIdAndOnlyStartFailuresInterruptTheUser() throws InterruptedException {
        session.receive("{\"seq\":1,\"type\":\"request\",");
        assertErrorId(peer.next(Duration.ofSeconds(5)), ErrorId.MALFORMED_MESSAGE);
        assertErrorId(request(2, "threads", null), ErrorId.OUT_OF_ORDER);
        request(3, "initialize", "{}");
        JsonObject unknown = request(4, "flyToTheMoon", "{}");
        assertErrorId(unknown, ErrorId.UNKNOWN_COMMAND);
        assertThat(unknown.getAsJsonObject("body").getAsJsonObject("error").get("id").getAsInt()).isEqualTo(1002);
        assertErrorId(request(5, "setBreakpoints", "{\"source\":{\"path\":\"/a.c\"},\"breakpoints\":[{\"line\":\"x\"}]}"),
                ErrorId.INVALID_ARGUMENTS);
        assertErrorId(request(6, "launch", "{\"program\":\"/no/such/program\"}"), ErrorId.LAUNCH_FAILED);
        assertErrorId(request(7, "launch", "{\"program\":\"/bin/true\",\"miDebuggerPath\":\"/no/such/gdb\"}"),
                ErrorId.GDB_MISSING);
        assertThat(request(8, "disconnect", "{}").get("success").getAsBoolean()).isTrue();
        assertErrorId(request(9, "evaluate", "{\"expression\":\"x\"}"), ErrorId.OUT_OF_ORDER);
    }

    @Test
    void argumentsOfTheWrongTypeAreErrors() throws InterruptedException {
        request(1, "initialize", "{}");
        assertError(request(2, "launch", "{\"program\":42}"), "`program` must be a string");
        assertError(request(3, "launch", "{\"program\":\"/bin/true\",\"args\":\"-v\"}"), "`args` must be an array");
        assertError(request(4, "launch", "{\"program\":\"/bin/true\",\"stopOnEntry\":\"yes\"}"), "true or false");
        assertError(request(5, "launch", "{\"program\":\"/bin/true\",\"environment\":[{\"nam\":\"X\"}]}"), "environment");
        assertError(request(6, "launch", "{\"program\":\"/no/such/program\"}"), "does not exist");
        assertError(request(7, "launch", "{}"), "`program` is required");
        assertError(request(8, "attach", "{\"processId\":\"abc\"}"), "processId");
        assertError(request(9, "attach", "{\"processId\":-5}"), "not a process id");
        assertError(request(10, "setBreakpoints", "{\"source\":{},\"breakpoints\":[]}"), "source.path");
        assertError(request(11, "setBreakpoints", "{\"source\":{\"path\":\"/a.c\"},\"breakpoints\":[{\"line\":\"x\"}]}"),
                "`line` must be a number");
        assertError(request(12, "setFunctionBreakpoints", "{\"breakpoints\":{}}"), "must be an array");
        session.receive("{\"seq\":13,\"type\":\"request\",\"command\":\"initialize\",\"arguments\":[1]}");
        assertError(peer.response(13), "must be an object");
        // arguments whose type only a getter would have found out: still the user's, by id (never "internal")
        assertErrorId(request(14, "setBreakpoints", "{\"source\":{\"path\":\"/a.c\"},\"lines\":[{}]}"),
                ErrorId.INVALID_ARGUMENTS);
        assertErrorId(request(15, "launch", "{\"program\":\"/bin/true\",\"environment\":[{\"name\":\"X\",\"value\":{}}]}"),
                ErrorId.LAUNCH_FAILED);
    }

    @Test
    void breakpointsBeforeLaunchArePendingNotErrors() throws InterruptedException {
        request(1, "initialize", "{}");
        JsonObject response = request(2, "setBreakpoints",
                "{\"source\":{\"path\":\"/src/a.c\"},\"breakpoints\":[{\"line\":3},{\"line\":7,\"condition\":\"i>2\"}]}");
        assertThat(response.get("success").getAsBoolean()).isTrue();
        var breakpoints = response.getAsJsonObject("body").getAsJsonArray("breakpoints");
        assertThat(breakpoints).hasSize(2);
        assertThat(breakpoints.get(0).getAsJsonObject().get("verified").getAsBoolean()).isFalse();
        assertThat(breakpoints.get(0).getAsJsonObject().get("message").getAsString()).contains("pending");
        assertThat(request(3, "configurationDone", null).get("success").getAsBoolean()).isTrue();
    }

    @Test
    void disconnectBeforeLaunchEndsTheSessionQuietly() throws InterruptedException {
        request(1, "initialize", "{}");
        assertThat(request(2, "disconnect", "{}").get("success").getAsBoolean()).isTrue();
        assertError(request(3, "threads", null), "ended");
    }

    @Test
    void missingGdbIsReportedAsAnError() throws InterruptedException {
        request(1, "initialize", "{}");
        assertErrorId(request(2, "launch", "{\"program\":\"/bin/true\",\"miDebuggerPath\":\"/no/such/gdb\"}"),
                ErrorId.GDB_MISSING);
        // the session is still usable
        assertThat(request(3, "setFunctionBreakpoints", "{\"breakpoints\":[]}").get("success").getAsBoolean()).isTrue();
    }
}
