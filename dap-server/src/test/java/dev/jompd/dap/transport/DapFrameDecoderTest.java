package dev.jompd.dap.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DapFrameDecoderTest {

    private static EmbeddedChannel channel(int max) {
        return new EmbeddedChannel(new DapFrameDecoder(max));
    }

    private static void write(EmbeddedChannel channel, String text) {
        channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    @Test
    void decodesOneMessage() {
        EmbeddedChannel channel = channel(1024);
        write(channel, "Content-Length: 2\r\n\r\n{}");
        assertThat((String) channel.readInbound()).isEqualTo("{}");
        assertThat(channel.inboundMessages()).isEmpty();
    }

    @Test
    void decodesMessagesSplitAnywhereAndBackToBack() {
        String stream = "Content-Length: 7\r\n\r\n{\"a\":1}Content-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"b\":\"\u00e9\u00e9\"}";
        byte[] bytes = stream.getBytes(StandardCharsets.UTF_8);
        for (int split = 1; split < bytes.length; split++) {
            EmbeddedChannel channel = channel(1024);
            channel.writeInbound(Unpooled.copiedBuffer(bytes, 0, split));
            channel.writeInbound(Unpooled.copiedBuffer(bytes, split, bytes.length - split));
            assertThat((String) channel.readInbound()).isEqualTo("{\"a\":1}");
            assertThat((String) channel.readInbound()).isEqualTo("{\"b\":\"\u00e9\u00e9\"}");
        }
    }

    @Test
    void headerNameIsCaseInsensitiveAndUnknownHeadersAreIgnored() {
        EmbeddedChannel channel = channel(1024);
        write(channel, "X-Whatever: 1\r\ncontent-length:   2  \r\n\r\n[]");
        assertThat((String) channel.readInbound()).isEqualTo("[]");
    }

    @Test
    void hugeContentLengthIsRefusedBeforeReadingTheBody() {
        EmbeddedChannel channel = channel(1024);
        assertThatThrownBy(() -> write(channel, "Content-Length: 999999999999\r\n\r\n"))
                .isInstanceOf(DecoderException.class).hasCauseInstanceOf(DapFramingException.class)
                .hasMessageContaining("exceeds the limit");
    }

    @Test
    void badContentLengthsAreFramingErrors() {
        for (String header : new String[] {"Content-Length: -1", "Content-Length: abc", "Content-Length: ",
                "Content-Length: 1e3", "Content-Length: 99999999999999999999", "Just-A-Header: 1", "no colon here"}) {
            EmbeddedChannel channel = channel(1024);
            assertThatThrownBy(() -> write(channel, header + "\r\n\r\n{}"))
                    .as(header).isInstanceOf(DecoderException.class).hasCauseInstanceOf(DapFramingException.class);
        }
    }

    @Test
    void endlessHeaderIsCutOff() {
        EmbeddedChannel channel = channel(1024);
        assertThatThrownBy(() -> write(channel, "X: " + "a".repeat(DapFrameDecoder.MAX_HEADER_BYTES + 10)))
                .isInstanceOf(DecoderException.class).hasMessageContaining("header longer");
    }

    @Test
    void encoderFramesWithByteLength() {
        assertThat(new String(DapFrameEncoder.frame("\"\u00e9\""), StandardCharsets.UTF_8))
                .isEqualTo("Content-Length: 4\r\n\r\n\"\u00e9\"");
    }
}
