package dev.jompd.job.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Rank sets as ranges: the printing, the parsing back, union and intersection, as a table. */
class RankSetTest {

    private static long[] ranks(String list) {
        return list.isBlank() ? new long[0] : Arrays.stream(list.split(" ")).mapToLong(Long::parseLong).toArray();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "''                    | ''",
            "3                     | 3",
            "0 1 2 3               | 0-3",
            "3 2 1 0               | 0-3",
            "0 1 2 4 5 7           | 0-2,4-5,7",
            "5 5 5                 | 5",
            "0 2 4 6               | 0,2,4,6",
            "1023 0 1 17 16 15     | 0-1,15-17,1023",
    })
    void printsRanksAsRanges(String list, String expected) {
        RankSet set = RankSet.of(ranks(list));
        assertThat(set.toString()).isEqualTo(expected);
        assertThat(RankSet.parse(expected)).isEqualTo(set);
        assertThat(set.size()).isEqualTo(Arrays.stream(ranks(list)).distinct().count());
    }

    @ParameterizedTest(name = "{0} ∪ {1} = {2}, ∩ = {3}")
    @CsvSource(delimiter = '|', value = {
            "0-15        | 17-1023  | 0-15,17-1023 | ''",
            "0-15        | 16       | 0-16         | ''",
            "0-15        | 3        | 0-15         | 3",
            "0,2,4       | 1,3      | 0-4          | ''",
            "0-9,20-29   | 5-24     | 0-29         | 5-9,20-24",
            "''          | 7        | 7            | ''",
            "1-3,7-9     | 3-7      | 1-9          | 3,7",
    })
    void unionAndIntersection(String a, String b, String union, String both) {
        RankSet left = RankSet.parse(a);
        RankSet right = RankSet.parse(b);
        assertThat(left.union(right).toString()).isEqualTo(union);
        assertThat(right.union(left).toString()).isEqualTo(union);
        assertThat(left.intersection(right).toString()).isEqualTo(both);
        assertThat(right.intersection(left).toString()).isEqualTo(both);
    }

    @Test
    void wordsAndMembership() {
        assertThat(RankSet.of(3).words()).isEqualTo("rank 3");
        assertThat(RankSet.parse("0-2,4-31").words()).isEqualTo("ranks 0-2,4-31");
        RankSet set = RankSet.parse("0-15,17-1023");
        assertThat(set.contains(16)).isFalse();
        assertThat(set.contains(17)).isTrue();
        assertThat(set.contains(1024)).isFalse();
        assertThat(set.size()).isEqualTo(1023);
        assertThat(set.intervals()).isEqualTo(2);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"a", "1-2-3", "-1", "5-3", "1,,2"})
    void badTextIsAClearError(String text) {
        assertThatThrownBy(() -> RankSet.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rank");
    }
}
