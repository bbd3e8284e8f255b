package dev.jompd.dap;

import dev.jompd.dap.session.DapSession;
import dev.jompd.dap.session.ServerOptions;
import dev.jompd.dap.transport.DapFrameDecoder;
import dev.jompd.dap.transport.DapTcpServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.net.InetAddress;

/**
 * An in-process server on a free loopback port, shared by the tests of one class
 * ({@code @RegisterExtension static final DapServerExtension server = new DapServerExtension();}), or
 * started by hand with {@link #started()}.
 */
final class DapServerExtension implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
    private DapTcpServer server;

    static DapServerExtension started() {
        DapServerExtension extension = new DapServerExtension();
        extension.start();
        return extension;
    }

    private void start() {
        ServerOptions options = new ServerOptions("gdb", System.err, Boolean.getBoolean("jompd.dap.verbose"));
        server = DapTcpServer.start(InetAddress.getLoopbackAddress(), 0, DapFrameDecoder.DEFAULT_MAX_CONTENT_LENGTH,
                peer -> new DapSession(peer, options));
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    int port() {
        return server.port();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
