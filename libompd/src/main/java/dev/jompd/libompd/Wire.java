package dev.jompd.libompd;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The engine's end of the pipe protocol jompd-libompd/2 (the full description is at the top of
 * src/main/c/libompd.c, the shim's end; keep both in step). Little-endian frames: u32 length (of type and
 * payload), u8 type, payload; words are u64, blobs u32 length + bytes.
 */
final class Wire {
    static final int PROTOCOL_VERSION = 2;
    static final int HELLO = 1, CALL = 2, QUESTION = 3, ANSWER = 4, RESULT = 5;
    static final int Q_READ = 1, Q_READ_STRING = 2, Q_SYMBOL = 3, Q_THREAD_CONTEXT = 4, Q_SIZEOF = 5;
    /** Bound on one frame: a larger length means the stream is corrupt. */
    static final int MAX_FRAME = 64 << 20;

    private final InputStream in;
    private final OutputStream out;

    Wire(InputStream in, OutputStream out) {
        this.in = in;
        this.out = out;
    }

    /** One frame to send. */
    static final class Frame {
        private ByteBuffer buffer = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);

        Frame(int type) {
            buffer.putInt(0).put((byte) type);
        }

        private void room(int more) {
            if (buffer.remaining() < more) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + more))
                        .order(ByteOrder.LITTLE_ENDIAN);
                buffer.flip();
                bigger.put(buffer);
                buffer = bigger;
            }
        }

        Frame u8(int value) {
            room(1);
            buffer.put((byte) value);
            return this;
        }

        Frame word(long value) {
            room(8);
            buffer.putLong(value);
            return this;
        }

        Frame blob(byte[] bytes) {
            room(4 + bytes.length);
            buffer.putInt(bytes.length).put(bytes);
            return this;
        }

        Frame string(String text) {
            return blob(text.getBytes(StandardCharsets.UTF_8));
        }

        byte[] bytes() {
            buffer.putInt(0, buffer.position() - 4);
            byte[] bytes = new byte[buffer.position()];
            buffer.get(0, bytes);
            return bytes;
        }
    }

    /** A received frame being read. */
    static final class Received {
        final int type;
        private final ByteBuffer buffer;

        Received(byte[] bytes) {
            buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            type = buffer.get() & 0xff;
        }

        int u16() {
            need(2, "a u16");
            return buffer.getShort() & 0xffff;
        }

        long word() {
            need(8, "a word");
            return buffer.getLong();
        }

        /** A frame shorter than what its type carries is a broken stream, as a wrong length is. */
        private void need(int bytes, String what) {
            if (buffer.remaining() < bytes) {
                throw new ProtocolException("frame of type " + type + " ends where " + what + " was expected ("
                        + buffer.remaining() + " bytes left)");
            }
        }

        byte[] blob() {
            need(4, "a blob's length");
            int length = buffer.getInt();
            if (length < 0 || length > buffer.remaining()) {
                throw new ProtocolException("blob of " + length + " bytes in a frame with " + buffer.remaining() + " left");
            }
            byte[] bytes = new byte[length];
            buffer.get(bytes);
            return bytes;
        }

        String string() {
            return new String(blob(), StandardCharsets.UTF_8);
        }
    }

    /** The stream does not follow the protocol. */
    static final class ProtocolException extends RuntimeException {
        ProtocolException(String message) {
            super(message);
        }
    }

    void send(Frame frame) throws IOException {
        out.write(frame.bytes());
        out.flush();
    }

    /** The next frame; EOFException when the shim closed its end (the debugger went away). */
    Received receive() throws IOException {
        byte[] header = in.readNBytes(4);
        if (header.length < 4) {
            throw new EOFException("the shim closed the pipe");
        }
        int length = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (length <= 0 || length > MAX_FRAME) {
            throw new ProtocolException("frame of " + length + " bytes");
        }
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new EOFException("the shim closed the pipe inside a frame");
        }
        return new Received(body);
    }
}
