package dev.jompd.dap;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class DapMainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) throws Exception {
        return DapMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void refusesANonLoopbackAddressUnlessAllowed() throws Exception {
        assertThat(run("--port", "0", "--host", "0.0.0.0")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("not a loopback address").contains("--allow-remote");
    }

    @Test
    void rejectsUnknownOptionsAndBadValues() throws Exception {
        assertThat(run("--frobnicate")).isEqualTo(2);
        assertThat(run("--port", "70000")).isEqualTo(2);
        assertThat(run("--port")).isEqualTo(2);
        assertThat(run("--max-message", "10")).isEqualTo(2);
        assertThat(run("--host", "127.0.0.1")).isEqualTo(2); // --host needs --port
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("usage: jompd-dap");
    }

    @Test
    void helpPrintsUsage() throws Exception {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--stdio").contains("loopback");
    }
}
