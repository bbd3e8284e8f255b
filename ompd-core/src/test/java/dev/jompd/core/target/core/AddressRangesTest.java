package dev.jompd.core.target.core;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class AddressRangesTest {
    @Test
    void findsRangesByBinarySearchComparingUnsigned() {
        AddressRanges ranges = AddressRanges.of(List.of(
                new AddressRanges.Range(0xffffffffff600000L, 0xffffffffff601000L, 7),
                new AddressRanges.Range(0x2000, 0x3000, 2),
                new AddressRanges.Range(0x1000, 0x2000, 1)));
        assertThat(ranges.size()).isEqualTo(3);
        assertThat(ranges.id(ranges.find(0x1000))).isEqualTo(1);
        assertThat(ranges.id(ranges.find(0x1fff))).isEqualTo(1);
        assertThat(ranges.id(ranges.find(0x2000))).isEqualTo(2);
        assertThat(ranges.find(0x3000)).isEqualTo(-1);
        assertThat(ranges.find(0xfff)).isEqualTo(-1);
        assertThat(ranges.id(ranges.find(0xffffffffff600010L))).isEqualTo(7);
        assertThat(ranges.find(-1L)).isEqualTo(-1);
        assertThat(ranges.nextStartAfter(0x3000)).isEqualTo(0xffffffffff600000L);
        assertThat(ranges.nextStartAfter(0xffffffffff600000L)).isZero();
        assertThat(ranges.nextStartAfter(0)).isEqualTo(0x1000);
    }

    @Test
    void overlapsAreResolvedInFavourOfTheLaterStart() {
        AddressRanges ranges = AddressRanges.of(List.of(
                new AddressRanges.Range(0x1000, 0x5000, 1),
                new AddressRanges.Range(0x2000, 0x3000, 2),
                new AddressRanges.Range(0x2000, 0x2800, 3),
                new AddressRanges.Range(0x9000, 0x8000, 4)));
        assertThat(ranges.id(ranges.find(0x1fff))).isEqualTo(1);
        int at2000 = ranges.find(0x2000);
        assertThat(ranges.end(at2000)).isLessThanOrEqualTo(0x3000);
        assertThat(ranges.find(0x9000)).as("an empty or inverted range is dropped").isEqualTo(-1);
        for (int position = 1; position < ranges.size(); position++) {
            assertThat(Long.compareUnsigned(ranges.end(position - 1), ranges.start(position))).isLessThanOrEqualTo(0);
        }
    }
}
