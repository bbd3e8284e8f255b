package dev.jompd.dap;

import com.google.gson.JsonObject;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/** Malformed input over a real socket, gdb crashing and gdb hanging: errors or clean ends, never a hang. */
class RobustnessIT {
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    /** The server still serves a new session. */
    private static void assertServerServes() throws Exception {
        try (DapTestClient client = new DapTestClient(server.port())) {
            assertThat(client.request("initialize", args("adapterID", "jompd")).get("success").getAsBoolean()).isTrue();
        }
    }

    @Test
    void hugeContentLengthClosesOnlyThatConnection() throws Exception {
        try (DapTestClient bystander = new DapTestClient(server.port());
             DapTestClient attacker = new DapTestClient(server.port())) {
            bystander.body("initialize", args());
            attacker.sendBytes("Content-Length: 99999999999\r\n\r\n{}".getBytes(StandardCharsets.US_ASCII));
            assertThat(attacker.awaitClosed(Duration.ofSeconds(10))).isTrue();
            // the other session is unaffected
            assertThat(bystander.request("threads", null).get("message").getAsString())
                    .isEqualTo("threads: no program yet: send launch or attach first");
        }
        assertServerServes();
    }

    @Test
    void brokenHeadersCloseTheConnection() throws Exception {
        for (String header : List.of("Content-Length: -5\r\n\r\n", "Content-Length: ten\r\n\r\n",
                "Content-Type: text/plain\r\n\r\n{}", "garbage without colon\r\n\r\n",
                "X: " + "y".repeat(20_000))) {
            try (DapTestClient client = new DapTestClient(server.port())) {
                client.sendBytes(header.getBytes(StandardCharsets.US_ASCII));
                assertThat(client.awaitClosed(Duration.ofSeconds(10))).as(header).isTrue();
            }
        }
        assertServerServes();
    }

    @Test
    void invalidJsonWrongTypesAndUnknownCommandsGetErrorResponses() throws Exception {
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.sendRaw("{this is not json");
            JsonObject error = client.await(m -> m.get("type").getAsString().equals("response"), Duration.ofSeconds(10),
                    "error response");
            assertThat(error.get("success").getAsBoolean()).isFalse();
            // (the parser's own words follow: where in the text it stopped; no library's web page)
            assertThat(error.get("message").getAsString()).isEqualTo("invalid JSON: Expected ':' at line 1 column 8 path $.this");
            client.sendRaw("[\"an\", \"array\"]");
            assertThat(client.await(m -> m.get("type").getAsString().equals("response"), Duration.ofSeconds(10), "error")
                    .get("success").getAsBoolean()).isFalse();
            JsonObject unknown = client.request("rebootTheMachine", args());
            assertThat(unknown.get("message").getAsString()).isEqualTo("unknown command \"rebootTheMachine\"");
            client.body("initialize", args());
            JsonObject wrongType = client.request("launch", args("program", 42));
            assertThat(wrongType.get("message").getAsString()).isEqualTo("`program` must be a string, not 42");
            JsonObject outOfOrder = client.request("stackTrace", args("threadId", 1));
            assertThat(outOfOrder.get("message").getAsString()).isEqualTo("stackTrace: no program yet: send launch or attach first");
            // the session still works after all that
            assertThat(client.body("setFunctionBreakpoints", args("breakpoints", array())).has("breakpoints")).isTrue();
        }
    }

    @Test
    void gdbCrashEndsTheSessionWithAMessage(@TempDir Path work) throws Exception {
        Path program = FixtureBuilder.executable(Fixture.NESTED);
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args());
            client.body("launch", args("program", program.toString(), "args", array("2", "2")));
            client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", "jompd_marker"))));
            client.body("configurationDone", null);
            client.event("stopped", Duration.ofSeconds(120));
            List<ProcessHandle> gdbs = ProcessHandle.current().descendants()
                    .filter(p -> p.info().commandLine().orElse("").contains("--interpreter=mi3")).toList();
            assertThat(gdbs).as("the session's one gdb").hasSize(1);
            gdbs.forEach(ProcessHandle::destroyForcibly);
            client.event("terminated", Duration.ofSeconds(30));
            // said once, with the signal the test killed it with (destroyForcibly: SIGKILL, 9)
            assertThat(client.outputText().lines().filter(l -> l.startsWith("jompd-dap: ")).toList())
                    .containsExactly("jompd-dap: gdb crashed (killed by signal 9)");
            assertThat(client.body("threads", null).getAsJsonArray("threads")).isEmpty();
            JsonObject after = client.request("stackTrace", args("threadId", 1));
            assertThat(after.get("success").getAsBoolean()).isFalse();
            assertThat(after.get("message").getAsString()).isEqualTo("stackTrace: the program has exited");
        }
        assertServerServes();
    }

    @Test
    void hangingGdbIsReportedAndKilled(@TempDir Path work) throws Exception {
        Path fakeGdb = work.resolve("hanging-gdb");
        Files.writeString(fakeGdb, "#!/bin/sh\n# reads nothing, answers nothing\nexec sleep 600\n");
        Files.setPosixFilePermissions(fakeGdb, PosixFilePermissions.fromString("rwx------"));
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args());
            long start = System.nanoTime();
            JsonObject launch = client.request("launch", args("program", "/bin/true", "miDebuggerPath", fakeGdb.toString(),
                    "gdbTimeout", 1000), Duration.ofSeconds(30));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
            assertThat(launch.get("success").getAsBoolean()).isFalse();
            // the first command the server sends, and the timeout the launch asked for
            assertThat(launch.get("message").getAsString()).isEqualTo("gdb did not answer -gdb-set mi-async on within 1000 ms");
            assertThat(client.event("output", Duration.ofSeconds(10)).getAsJsonObject("body").get("output").getAsString())
                    .isEqualTo("jompd-dap: gdb did not answer -gdb-set mi-async on within 1000 ms; gdb seems to hang and is killed\n");
        }
        assertThat(ProcessHandle.current().descendants().filter(p -> p.info().commandLine().orElse("")
                .contains("sleep 600")).filter(ProcessHandle::isAlive).count()).isZero();
        assertServerServes();
    }

    @Test
    void gdbThatDiesAtOnceIsAnErrorNotAHang(@TempDir Path work) throws Exception {
        Path fakeGdb = work.resolve("dying-gdb");
        Files.writeString(fakeGdb, "#!/bin/sh\necho 'gdb: cannot start, sorry' >&2\nexit 3\n");
        Files.setPosixFilePermissions(fakeGdb, PosixFilePermissions.fromString("rwx------"));
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args());
            JsonObject launch = client.request("launch", args("program", "/bin/true", "miDebuggerPath", fakeGdb.toString()),
                    Duration.ofSeconds(30));
            assertThat(launch.get("success").getAsBoolean()).isFalse();
            // the fake gdb's exit code and its own last words; when its death is seen while a command waits for its
            // answer (timing), that command is named after them
            String died = "gdb exited with code 3; its last messages: gdb: cannot start, sorry";
            assertThat(launch.get("message").getAsString())
                    .matches(java.util.regex.Pattern.quote(died) + "( before answering -[a-z-]+( [^;]*)?)?");
        }
    }
}
