package dev.jompd.dap;

import dev.jompd.dap.session.DapSession;
import dev.jompd.dap.session.ServerOptions;
import dev.jompd.dap.session.Warmup;
import dev.jompd.dap.transport.DapFrameDecoder;
import dev.jompd.dap.transport.DapStdioTransport;
import dev.jompd.dap.transport.DapTcpServer;

import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * {@code jompd-dap}: the Debug Adapter Protocol server. Over stdio by default (a client starts it as its
 * adapter executable), or over TCP with {@code --port} (0: a free port, printed on stdout). Listens on
 * loopback only unless {@code --host} names another address and {@code --allow-remote} is given: a DAP
 * client can make the server run any program, so whoever can connect can run commands as this user. On this
 * machine only this user's processes are served (every user can reach loopback): another user's connection is
 * closed unread and said on stderr.
 */
public final class DapMain {
    private DapMain() {}

    static final String USAGE = """
            usage: jompd-dap [--stdio] | [--port N] [--host ADDRESS [--allow-remote]]
                             [--gdb PATH] [--max-message BYTES] [--verbose]
              --stdio          speak DAP on standard input/output (the default)
              --port N         listen for DAP clients on TCP port N (0: any free port; the port is printed);
                               only this user's processes are served
              --host ADDRESS   address to listen on (default 127.0.0.1, loopback)
              --allow-remote   allow a non-loopback --host: anyone who connects can run programs as you
              --gdb PATH       gdb to run when a launch configuration has no miDebuggerPath (default: gdb)
              --max-message N  largest DAP message accepted, in bytes (default 16 MiB)
              --verbose        log every DAP message to standard error""";

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Integer port = null;
        String host = "127.0.0.1";
        boolean allowRemote = false;
        boolean hostGiven = false;
        String gdb = "gdb";
        int maxMessage = DapFrameDecoder.DEFAULT_MAX_CONTENT_LENGTH;
        boolean verbose = false;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--stdio" -> port = null;
                    case "--port" -> port = Integer.parseInt(value(args, ++i, "--port"));
                    case "--host" -> {
                        host = value(args, ++i, "--host");
                        hostGiven = true;
                    }
                    case "--allow-remote" -> allowRemote = true;
                    case "--gdb" -> gdb = value(args, ++i, "--gdb");
                    case "--max-message" -> maxMessage = Integer.parseInt(value(args, ++i, "--max-message"));
                    case "--verbose" -> verbose = true;
                    case "-h", "--help" -> {
                        out.println(USAGE);
                        return 0;
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (port != null && (port < 0 || port > 65535)) {
                throw new IllegalArgumentException("--port must be 0..65535");
            }
            if (maxMessage < 1024) {
                throw new IllegalArgumentException("--max-message must be at least 1024");
            }
        } catch (IllegalArgumentException e) {
            err.println("jompd-dap: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        ServerOptions options = new ServerOptions(gdb, err, verbose);
        if (port == null) {
            if (hostGiven) {
                err.println("jompd-dap: --host needs --port");
                return 2;
            }
            // stdout carries DAP now: nothing else may write there
            PrintStream dap = System.out;
            System.setOut(err);
            Warmup.startInBackground();
            DapStdioTransport.serve(System.in, dap, maxMessage, peer -> new DapSession(peer, options));
            return 0;
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            err.println("jompd-dap: unknown host " + host);
            return 2;
        }
        if (!address.isLoopbackAddress() && !allowRemote) {
            err.println("jompd-dap: refusing to listen on " + host + ", which is not a loopback address: a DAP client "
                    + "can run any program as this user. Add --allow-remote if that is really meant.");
            return 2;
        }
        try (DapTcpServer server = DapTcpServer.start(address, port, maxMessage, peer -> new DapSession(peer, options),
                allowRemote, refusal -> {
                    err.println(refusal);
                    err.flush();
                })) {
            Warmup.startInBackground();
            out.println("jompd-dap listening on " + server.address().getAddress().getHostAddress() + ":" + server.port());
            out.flush();
            server.awaitClose();
        }
        return 0;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
