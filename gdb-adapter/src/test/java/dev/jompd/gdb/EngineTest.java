package dev.jompd.gdb;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The protocol, with a scripted gdb on the other end of the pipe. */
class EngineTest {

    static List<JsonObject> converse(String... linesFromGdb) {
        InputStream in = new ByteArrayInputStream((String.join("\n", linesFromGdb) + "\n").getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new Engine(in, out).run();
        return out.toString(StandardCharsets.UTF_8).lines().map(l -> JsonParser.parseString(l).getAsJsonObject()).toList();
    }

    @Test
    void theEngineGreetsWithItsProtocolFirst() {
        List<JsonObject> sent = converse();
        assertThat(sent).hasSize(1);
        assertThat(sent.getFirst().get("hello").getAsString()).isEqualTo("jompd-gdb/1");
        assertThat(sent.getFirst().get("version").getAsString()).startsWith("jompd ");
    }

    @Test
    void aCommandWithoutATargetIsAnsweredWithAnErrorForTheUser() {
        List<JsonObject> sent = converse("{\"id\":7,\"command\":\"threads\",\"args\":\"\",\"context\":{\"target\":\"none\"}}");
        JsonObject reply = sent.get(1);
        assertThat(reply.get("reply").getAsInt()).isEqualTo(7);
        assertThat(reply.get("error").getAsString()).startsWith("no process");
        assertThat(reply.getAsJsonObject("stats").get("questions").getAsInt()).isZero();
    }

    /**
     * Which debugger asks: gdb when the context does not say (gdb's requests, byte for byte as before), LLDB's door
     * says "lldb"; anything that is not a short lower-case word (it goes into a table's heading) counts as unsaid.
     */
    @Test
    void theDebuggerIsGdbUnlessTheContextNamesAnother() {
        assertThat(TargetContext.parse(JsonParser.parseString("{\"target\":\"core\"}").getAsJsonObject()).debugger())
                .isEqualTo("gdb");
        assertThat(TargetContext.parse(JsonParser.parseString("{\"target\":\"core\",\"debugger\":\"lldb\"}")
                .getAsJsonObject()).debugger()).isEqualTo("lldb");
        assertThat(TargetContext.parse(JsonParser.parseString("{\"debugger\":\"lldb \\n* 1\"}").getAsJsonObject())
                .debugger()).isEqualTo("gdb");
        assertThat(TargetContext.parse(null).debugger()).isEqualTo("gdb");
    }

    @Test
    void anUnknownCommandIsNamed() {
        List<JsonObject> sent = converse("{\"id\":1,\"command\":\"frobnicate\",\"context\":{\"target\":\"none\"}}");
        assertThat(sent.get(1).get("error").getAsString()).contains("ompd frobnicate");
    }

    @Test
    void aCoreThatCannotBeOpenedIsAnErrorNotACrash() {
        List<JsonObject> sent = converse(
                "{\"id\":1,\"command\":\"threads\",\"context\":{\"target\":\"core\",\"pid\":1,\"cores\":[\"/nonexistent/core\"]}}",
                "{\"id\":2,\"command\":\"threads\",\"context\":{\"target\":\"none\"}}");
        assertThat(sent.get(1).get("error").getAsString()).contains("/nonexistent/core");
        assertThat(sent.get(2).get("reply").getAsInt()).isEqualTo(2); // and the engine goes on
    }

    @Test
    void questionsAreAnsweredBeforeTheReplyAndErrorsInAnswersReachTheUser() {
        // A remote target: the engine reads through gdb and asks for the dynamic linker's r_debug, then for
        // the runtime's symbols themselves (no file of the module here), none of which this gdb can tell.
        List<String> fromGdb = new java.util.ArrayList<>(List.of(
                "{\"id\":1,\"command\":\"threads\",\"context\":{\"target\":\"remote\",\"pid\":99999999,\"connection\":\"remote x:1\"}}"));
        for (int question = 1; question <= 20; question++) {
            fromGdb.add("{\"answer\":" + question + ",\"error\":\"No symbol in current context.\"}");
        }
        List<JsonObject> sent = converse(fromGdb.toArray(String[]::new));
        assertThat(sent.get(1).get("ask").getAsInt()).isEqualTo(1);
        assertThat(sent.get(1).get("what").getAsString()).isEqualTo("symbol");
        assertThat(sent.get(1).get("name").getAsString()).isEqualTo("_r_debug");
        int replyAt = 1;
        while (!sent.get(replyAt).has("reply")) {
            assertThat(sent.get(replyAt).get("ask").getAsInt()).as("questions first, each answered").isEqualTo(replyAt);
            replyAt++;
        }
        JsonObject reply = sent.get(replyAt);
        assertThat(reply.get("reply").getAsInt()).isEqualTo(1);
        assertThat(reply.get("error").getAsString()).contains("no OpenMP runtime");
    }

    @Test
    void anAnswerOutOfStepIsAProtocolError() {
        GdbChannel channel = new GdbChannel(new ByteArrayInputStream("{\"answer\":5}\n".getBytes(StandardCharsets.UTF_8)),
                new ByteArrayOutputStream());
        assertThatThrownBy(() -> channel.ask("read", q -> {})).isInstanceOf(GdbChannel.ProtocolException.class)
                .hasMessageContaining("expected the answer to question 1");
    }

    @Test
    void aLineThatIsNotJsonIsAProtocolError() {
        GdbChannel channel = new GdbChannel(new ByteArrayInputStream("hello gdb\n".getBytes(StandardCharsets.UTF_8)),
                new ByteArrayOutputStream());
        assertThatThrownBy(channel::read).isInstanceOf(GdbChannel.ProtocolException.class);
    }

    @Test
    void theBridgeScriptTravelsInTheJar() throws Exception {
        try (InputStream script = Engine.class.getResourceAsStream("/dev/jompd/gdb/jompd.py")) {
            assertThat(script).isNotNull();
        }
        // the doors' end of the pipe speaks the engine's protocol
        try (InputStream pipe = Engine.class.getResourceAsStream("/dev/jompd/gdb/jompd_engine.py")) {
            assertThat(new String(pipe.readAllBytes(), StandardCharsets.UTF_8))
                    .contains("PROTOCOL = \"" + GdbChannel.PROTOCOL + "\"");
        }
    }
}
