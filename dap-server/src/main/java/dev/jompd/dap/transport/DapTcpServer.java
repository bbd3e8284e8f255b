package dev.jompd.dap.transport;

import dev.jompd.core.launch.OwnedPaths;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.DecoderException;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * DAP over TCP: one session per connection, any number of connections. Binds to loopback unless given
 * another address; the caller decides whether a non-loopback address is allowed (a DAP client can make
 * the server run programs, so exposing it is exposing a shell).
 *
 * <p>Loopback is not private: every user of the machine can connect to it. So a connection from a process of
 * this machine is served only when that process runs as the server's own user ({@link TcpPeers}: the kernel's
 * socket table, as SO_PEERCRED tells for a Unix socket); any other is closed before a byte is read, and said on
 * {@code refusals}. A connection from another machine (no local socket) is served only with {@code remotePeers}
 * ({@code --allow-remote}).
 */
public final class DapTcpServer implements AutoCloseable {
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final Channel serverChannel;

    private DapTcpServer(EventLoopGroup boss, EventLoopGroup workers, Channel serverChannel) {
        this.boss = boss;
        this.workers = workers;
        this.serverChannel = serverChannel;
    }

    /**
     * Listens on {@code address:port} ({@code port} 0: a free port).
     *
     * @throws IllegalStateException when the port cannot be bound
     */
    public static DapTcpServer start(InetAddress address, int port, int maxContentLength, DapEndpoint.Factory sessions) {
        return start(address, port, maxContentLength, sessions, false, System.err::println);
    }

    /**
     * Listens on {@code address:port} ({@code port} 0: a free port); connections from other machines only with
     * {@code remotePeers}; each connection refused said on {@code refusals}.
     *
     * @throws IllegalStateException when the port cannot be bound
     */
    public static DapTcpServer start(InetAddress address, int port, int maxContentLength, DapEndpoint.Factory sessions,
                                     boolean remotePeers, Consumer<String> refusals) {
        int self = OwnedPaths.effectiveUid();
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        try {
            Channel channel = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            Optional<String> refused = refusal(ch, self, remotePeers);
                            if (refused.isPresent()) {
                                refusals.accept("jompd-dap: refused a connection from " + ch.remoteAddress() + ": "
                                        + refused.get());
                                ch.close();
                                return;
                            }
                            ch.pipeline().addLast("decoder", new DapFrameDecoder(maxContentLength))
                                    .addLast("encoder", new DapFrameEncoder())
                                    .addLast("session", new SessionHandler(sessions));
                        }
                    })
                    .bind(new InetSocketAddress(address, port)).sync().channel();
            return new DapTcpServer(boss, workers, channel);
        } catch (Exception e) {
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot listen on " + address.getHostAddress() + ":" + port + ": " + e.getMessage(), e);
        }
    }

    /** Why connection {@code ch} is not served, or empty when it comes from this user's process (or another machine, when allowed). */
    private static Optional<String> refusal(SocketChannel ch, int self, boolean remotePeers) {
        OptionalInt owner = TcpPeers.owner(ch.localAddress(), ch.remoteAddress());
        if (owner.isPresent()) {
            return owner.getAsInt() == self && self >= 0 ? Optional.empty() : Optional.of("its process runs as uid "
                    + owner.getAsInt() + ", not as uid " + self + " that the server runs as (a DAP client can make the "
                    + "server run programs)");
        }
        return remotePeers ? Optional.empty() : Optional.of("no process of this machine holds its end (its owner cannot "
                + "be checked), and connections from other machines are not allowed");
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    public int port() {
        return address().getPort();
    }

    /** Blocks until the server is closed. */
    public void awaitClose() throws InterruptedException {
        serverChannel.closeFuture().sync();
    }

    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Binds one connection to one session. */
    private static final class SessionHandler extends SimpleChannelInboundHandler<String> {
        private final DapEndpoint.Factory sessions;
        private DapEndpoint endpoint;
        private String closeReason = "client closed the connection";

        SessionHandler(DapEndpoint.Factory sessions) {
            this.sessions = sessions;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Channel channel = ctx.channel();
            endpoint = sessions.open(new DapPeer() {
                @Override
                public void send(String json) {
                    channel.writeAndFlush(json);
                }

                @Override
                public void close() {
                    channel.close();
                }

                @Override
                public String describe() {
                    return "tcp:" + channel.remoteAddress();
                }
            });
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, String json) {
            endpoint.receive(json);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
            closeReason = root instanceof DapFramingException ? "broken framing: " + root.getMessage()
                    : "connection error: " + root;
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (endpoint != null) {
                endpoint.closed(closeReason);
            }
        }
    }
}
