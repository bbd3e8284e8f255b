package dev.jompd.dap.transport;

import dev.jompd.dap.session.DapSession;
import dev.jompd.dap.session.ServerOptions;
import dev.jompd.testkit.Commands;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The DAP server's TCP port is on loopback, which every user of the machine can reach, and a DAP client can make
 * the server launch any program as the server's user. Two users on one machine: root's server answers root's
 * client and closes nobody's connection before reading it.
 */
class DapTcpPeersIT {
    private static final int NOBODY = 65534;
    /** An initialize request over the connection, then the first 15 bytes of what comes back. */
    private static final String CLIENT = """
            exec 3<>/dev/tcp/127.0.0.1/$0
            body='{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"jompd"}}'
            printf 'Content-Length: %d\\r\\n\\r\\n%s' "${#body}" "$body" >&3
            head -c 15 <&3
            """;

    @Test
    void anotherUsersConnectionIsClosedUnreadAndSaid() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")) && Commands.available("setpriv"),
                "needs root and setpriv, to connect as user nobody");
        List<String> refusals = new CopyOnWriteArrayList<>();
        ServerOptions options = new ServerOptions("gdb", System.err, false);
        try (DapTcpServer server = DapTcpServer.start(InetAddress.getLoopbackAddress(), 0,
                DapFrameDecoder.DEFAULT_MAX_CONTENT_LENGTH, peer -> new DapSession(peer, options), false, refusals::add)) {
            String port = Integer.toString(server.port());
            Commands.Result theirs = Commands.run(List.of("timeout", "30", "setpriv", "--reuid=" + NOBODY,
                    "--regid=" + NOBODY, "--clear-groups", "/bin/bash", "-c", CLIENT, port), Map.of(), Path.of("/tmp"),
                    Duration.ofMinutes(1));
            assertThat(theirs.output()).as("what nobody's client read").isEmpty();
            assertThat(refusals).hasSize(1);
            assertThat(refusals.getFirst()).matches("jompd-dap: refused a connection from /127\\.0\\.0\\.1:\\d+: its "
                    + "process runs as uid 65534, not as uid 0 that the server runs as \\(a DAP client can make the "
                    + "server run programs\\)");

            Commands.Result mine = Commands.run(List.of("timeout", "30", "/bin/bash", "-c", CLIENT, port), Map.of(),
                    Path.of("/tmp"), Duration.ofMinutes(1));
            assertThat(mine.output()).as("what root's client read").isEqualTo("Content-Length:");
            assertThat(refusals).hasSize(1);
        }
    }

    @Test
    void addressesAreWrittenAsTheKernelsSocketTableDoes() {
        assertThat(TcpPeers.encode(new InetSocketAddress("127.0.0.1", 8080), false)).isEqualTo("0100007F:1F90");
        assertThat(TcpPeers.encode(new InetSocketAddress("127.0.0.1", 8080), true))
                .isEqualTo("0000000000000000FFFF00000100007F:1F90");
        assertThat(TcpPeers.encode(new InetSocketAddress("::1", 4711), true)).isEqualTo("00000000000000000000000001000000:1267");
        assertThat(TcpPeers.encode(new InetSocketAddress("::1", 4711), false)).isEmpty();
    }
}
