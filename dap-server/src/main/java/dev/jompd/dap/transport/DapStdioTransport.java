package dev.jompd.dap.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * DAP over the process's standard streams, for clients that start the adapter as an executable. The
 * same netty decoder as the TCP transport frames the input (in an embedded channel, fed by the one
 * reading thread); output is framed by {@link DapFrameEncoder} and written under a lock.
 */
public final class DapStdioTransport {
    private DapStdioTransport() {}

    /** Serves one session until the input ends or its framing breaks. */
    public static void serve(InputStream in, OutputStream out, int maxContentLength, DapEndpoint.Factory sessions) {
        Object lock = new Object();
        DapPeer peer = new DapPeer() {
            private volatile boolean closed;

            @Override
            public void send(String json) {
                if (closed) {
                    return;
                }
                synchronized (lock) {
                    try {
                        out.write(DapFrameEncoder.frame(json));
                        out.flush();
                    } catch (IOException e) {
                        closed = true;
                    }
                }
            }

            @Override
            public void close() {
                closed = true;
                try {
                    in.close();
                } catch (IOException ignored) {
                    // closing is all we wanted
                }
            }

            @Override
            public String describe() {
                return "stdio";
            }
        };
        DapEndpoint endpoint = sessions.open(peer);
        EmbeddedChannel channel = new EmbeddedChannel(new DapFrameDecoder(maxContentLength));
        String reason = "end of input";
        try {
            byte[] buffer = new byte[64 * 1024];
            for (int n; (n = in.read(buffer)) > 0; ) {
                channel.writeInbound(Unpooled.copiedBuffer(buffer, 0, n));
                for (Object frame; (frame = channel.readInbound()) != null; ) {
                    endpoint.receive((String) frame);
                }
            }
        } catch (DecoderException e) {
            reason = "broken framing: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
        } catch (IOException e) {
            reason = "input closed: " + e.getMessage();
        } finally {
            channel.finishAndReleaseAll();
            endpoint.closed(reason);
            endpoint.awaitEnd(java.time.Duration.ofSeconds(10)); // the process exits next: let answers go out
        }
    }
}
