package dev.jompd.core.elf;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ByteViewTest {
    private final ByteView bytes = ByteView.of(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, (byte) 0xff, 'h', 'i', 0, 'x'}, "test");

    @Test
    void readsLittleEndianValues() {
        assertThat(bytes.u16(0)).isEqualTo(0x0201);
        assertThat(bytes.u32(0)).isEqualTo(0x04030201L);
        assertThat(bytes.u64(0)).isEqualTo(0x0807060504030201L);
        assertThat(bytes.u8(8)).isEqualTo(0xff);
        assertThat(bytes.u32(5)).isEqualTo(0xff080706L);
    }

    @Test
    void outOfRangeOffsetsOfAnySignAreFormatErrors() {
        for (long offset : new long[] {-1, Long.MIN_VALUE, Long.MAX_VALUE, 6, 13}) {
            assertThatThrownBy(() -> bytes.u64(offset)).isInstanceOf(ElfFormatException.class).hasMessageStartingWith("test: ");
        }
        assertThatThrownBy(() -> bytes.slice(4, Long.MAX_VALUE, "table")).isInstanceOf(ElfFormatException.class)
                .hasMessageContaining("table");
        assertThatThrownBy(() -> bytes.slice(Long.MAX_VALUE, 8, "table")).isInstanceOf(ElfFormatException.class);
        assertThat(bytes.contains(13, 0)).isTrue();
        assertThat(bytes.contains(14, 0)).isFalse();
    }

    @Test
    void slicesReportOffsetsInTheirSource() {
        ByteView slice = bytes.slice(8, 5, "tail");
        assertThat(slice.u8(0)).isEqualTo(0xff);
        assertThatThrownBy(() -> slice.u32(4)).hasMessageContaining("offset 0xc");
    }

    @Test
    void cStringsStopAtNulMaximumOrEnd() {
        assertThat(bytes.cString(9, 100)).isEqualTo("hi");
        assertThat(bytes.cString(9, 1)).isEqualTo("h");
        assertThat(bytes.cString(12, 100)).isEqualTo("x");
        assertThat(bytes.cString(13, 100)).isEmpty();
        assertThat(bytes.cStringEquals(9, "hi".getBytes())).isTrue();
        assertThat(bytes.cStringEquals(9, "h".getBytes())).isFalse();
        assertThat(bytes.cStringEquals(12, "x".getBytes())).isTrue();
    }

    @Test
    void hexOfBuildIds() {
        assertThat(bytes.slice(6, 3, "id").toHex()).isEqualTo("0708ff");
    }
}
