package dev.jompd.dap.transport;

import dev.jompd.dap.session.DapSession;
import dev.jompd.dap.session.ServerOptions;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class DapStdioTransportTest {

    private static String frame(String json) {
        return "Content-Length: " + json.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + json;
    }

    @Test
    void servesASessionOnStreamsAndAnswersBeforeTheInputEnds() {
        String input = frame("{\"seq\":1,\"type\":\"request\",\"command\":\"initialize\",\"arguments\":{}}")
                + frame("{\"seq\":2,\"type\":\"request\",\"command\":\"threads\"}")
                + frame("{\"seq\":3,\"type\":\"request\",\"command\":\"disconnect\",\"arguments\":{}}");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ServerOptions options = new ServerOptions("gdb", new PrintStream(OutputStream.nullOutputStream()), false);
        DapStdioTransport.serve(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), out,
                DapFrameDecoder.DEFAULT_MAX_CONTENT_LENGTH, peer -> new DapSession(peer, options));
        String written = out.toString(StandardCharsets.UTF_8);
        assertThat(written).contains("\"command\":\"initialize\"").contains("\"event\":\"initialized\"")
                .contains("launch or attach first").contains("\"command\":\"disconnect\"");
        assertThat(written.indexOf("\"command\":\"initialize\"")).isLessThan(written.indexOf("\"event\":\"initialized\""));
        assertThat(written).startsWith("Content-Length: ");
    }

    @Test
    void brokenFramingEndsTheSession() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ServerOptions options = new ServerOptions("gdb", new PrintStream(OutputStream.nullOutputStream()), false);
        DapStdioTransport.serve(new ByteArrayInputStream("Content-Length: 99999999999\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
                out, 1024, peer -> new DapSession(peer, options));
        assertThat(out.size()).isZero();
    }
}
