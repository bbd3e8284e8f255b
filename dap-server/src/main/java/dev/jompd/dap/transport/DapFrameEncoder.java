package dev.jompd.dap.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

import java.nio.charset.StandardCharsets;

/** Frames one JSON message: {@code Content-Length: N\r\n\r\n} and the UTF-8 bytes. */
public final class DapFrameEncoder extends MessageToByteEncoder<String> {
    public DapFrameEncoder() {
        super(String.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, String json, ByteBuf out) {
        out.writeBytes(frame(json));
    }

    /** The framed bytes of {@code json}. */
    public static byte[] frame(String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        byte[] header = ("Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] framed = new byte[header.length + body.length];
        System.arraycopy(header, 0, framed, 0, header.length);
        System.arraycopy(body, 0, framed, header.length, body.length);
        return framed;
    }
}
