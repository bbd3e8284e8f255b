package dev.jompd.dap.transport;

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
import java.util.concurrent.TimeUnit;

/**
 * DAP over TCP: one session per connection, any number of connections. Binds to loopback unless given
 * another address; the caller decides whether a non-loopback address is allowed (a DAP client can make
 * the server run programs, so exposing it is exposing a shell).
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
