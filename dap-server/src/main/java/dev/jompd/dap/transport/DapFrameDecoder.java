package dev.jompd.dap.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * DAP's base protocol: header lines ({@code Content-Length: N}, others ignored) ended by an empty line,
 * then N bytes of UTF-8 JSON. Emits each message's JSON text as a String. Limits: the header block at
 * most {@value #MAX_HEADER_BYTES} bytes, a message at most {@code maxContentLength} bytes; a missing,
 * malformed, negative or too large Content-Length, or an overlong header, throws
 * {@link DapFramingException}: after that the stream cannot be resynchronised, the connection must close.
 */
public final class DapFrameDecoder extends ByteToMessageDecoder {
    static final int MAX_HEADER_BYTES = 8192;
    /** Default bound on one message: far above any request a client sends. */
    public static final int DEFAULT_MAX_CONTENT_LENGTH = 16 << 20;

    private final int maxContentLength;
    private int contentLength = -1;

    public DapFrameDecoder(int maxContentLength) {
        this.maxContentLength = maxContentLength;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (true) {
            if (contentLength < 0) {
                int end = headerEnd(in);
                if (end < 0) {
                    if (in.readableBytes() > MAX_HEADER_BYTES) {
                        throw new DapFramingException("header longer than " + MAX_HEADER_BYTES + " bytes without an empty line");
                    }
                    return;
                }
                String header = in.toString(in.readerIndex(), end - in.readerIndex(), StandardCharsets.US_ASCII);
                in.readerIndex(end + 4);
                contentLength = contentLength(header);
            }
            if (in.readableBytes() < contentLength) {
                return;
            }
            String json = in.toString(in.readerIndex(), contentLength, StandardCharsets.UTF_8);
            in.skipBytes(contentLength);
            contentLength = -1;
            out.add(json);
        }
    }

    /** Index of the "\r\n\r\n" ending the header block, or -1 when it has not arrived yet. */
    private static int headerEnd(ByteBuf in) {
        int limit = Math.min(in.writerIndex(), in.readerIndex() + MAX_HEADER_BYTES + 4);
        for (int i = in.readerIndex(); i + 3 < limit; i++) {
            if (in.getByte(i) == '\r' && in.getByte(i + 1) == '\n' && in.getByte(i + 2) == '\r' && in.getByte(i + 3) == '\n') {
                return i;
            }
        }
        return -1;
    }

    private int contentLength(String header) {
        long length = -1;
        for (String line : header.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                throw new DapFramingException("header line without ':': " + printable(line));
            }
            String name = line.substring(0, colon).trim();
            if (!name.equalsIgnoreCase("Content-Length")) {
                continue; // Content-Type and unknown headers are allowed and ignored
            }
            String value = line.substring(colon + 1).trim();
            if (value.isEmpty() || value.length() > 12 || !value.chars().allMatch(Character::isDigit)) {
                throw new DapFramingException("Content-Length is not a number: " + printable(value));
            }
            length = Long.parseLong(value);
        }
        if (length < 0) {
            throw new DapFramingException("no Content-Length header");
        }
        if (length > maxContentLength) {
            throw new DapFramingException("Content-Length " + length + " exceeds the limit of " + maxContentLength + " bytes");
        }
        return (int) length;
    }

    private static String printable(String text) {
        String shown = text.length() > 60 ? text.substring(0, 60) + "..." : text;
        return shown.codePoints().map(c -> c < 0x20 || c > 0x7e ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
    }
}
