package dev.jompd.libompd;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The engine's end of protocol jompd-libompd/2: frames as the shim (src/main/c/libompd.c) writes and reads them. */
class WireTest {
    @Test
    void aFrameIsItsLengthTypeAndLittleEndianWordsAndBlobs() throws IOException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        new Wire(new ByteArrayInputStream(new byte[0]), sent)
                .send(new Wire.Frame(Wire.RESULT).word(0x0102030405060708L).string("ok"));
        ByteBuffer bytes = ByteBuffer.wrap(sent.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(bytes.getInt()).isEqualTo(1 + 8 + 4 + 2);
        assertThat(bytes.get()).isEqualTo((byte) Wire.RESULT);
        assertThat(bytes.getLong()).isEqualTo(0x0102030405060708L);
        assertThat(bytes.getInt()).isEqualTo(2);
        assertThat(bytes.get()).isEqualTo((byte) 'o');
    }

    @Test
    void whatIsSentIsReceived() throws IOException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        byte[] big = new byte[100_000];
        big[99_999] = 42;
        new Wire(new ByteArrayInputStream(new byte[0]), sent)
                .send(new Wire.Frame(Wire.CALL).word(-1).blob(big).string("née"));
        Wire.Received received = new Wire(new ByteArrayInputStream(sent.toByteArray()), OutputStream.nullOutputStream())
                .receive();
        assertThat(received.type).isEqualTo(Wire.CALL);
        assertThat(received.word()).isEqualTo(-1);
        assertThat(received.blob()).hasSize(100_000).endsWith(42);
        assertThat(received.string()).isEqualTo("née");
    }

    @Test
    void aClosedPipeIsTheEndAndACorruptFrameIsNamed() {
        assertThatThrownBy(() -> new Wire(new ByteArrayInputStream(new byte[] {5, 0}), OutputStream.nullOutputStream())
                .receive()).isInstanceOf(EOFException.class);
        byte[] huge = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(Wire.MAX_FRAME + 1).array();
        assertThatThrownBy(() -> new Wire(new ByteArrayInputStream(huge), OutputStream.nullOutputStream()).receive())
                .isInstanceOf(Wire.ProtocolException.class).hasMessageContaining("frame of");
        byte[] lying = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN).putInt(6).put((byte) Wire.ANSWER)
                .putInt(1000).put((byte) 0).array();
        assertThatThrownBy(() -> new Wire(new ByteArrayInputStream(lying), OutputStream.nullOutputStream()).receive().blob())
                .isInstanceOf(Wire.ProtocolException.class).hasMessageContaining("blob of 1000 bytes");
    }
}
