package dev.jompd.dap;

import dev.jompd.dap.session.DapSession;
import dev.jompd.dap.session.ServerOptions;
import dev.jompd.dap.transport.DapFrameDecoder;
import dev.jompd.dap.transport.DapTcpServer;

import java.net.InetAddress;

/** An in-process server on a free loopback port, shared by the tests of one class. */
final class DapServerExtension implements AutoCloseable {
    final DapTcpServer server;

    DapServerExtension() throws Exception {
        ServerOptions options = new ServerOptions("gdb", System.err, Boolean.getBoolean("jompd.dap.verbose"));
        server = DapTcpServer.start(InetAddress.getLoopbackAddress(), 0, DapFrameDecoder.DEFAULT_MAX_CONTENT_LENGTH,
                peer -> new DapSession(peer, options));
    }

    int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }
}
