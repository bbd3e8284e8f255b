package dev.jompd.core.target.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Disjoint address ranges sorted by start (unsigned), found by binary search. Each range carries the
 * index of what it stands for (a segment, a mapping). Overlaps, which only a damaged core has, are
 * resolved when building: the range that starts later wins its part, so lookups stay unambiguous.
 */
final class AddressRanges {
    private final long[] starts;
    private final long[] ends;
    private final int[] ids;

    private AddressRanges(long[] starts, long[] ends, int[] ids) {
        this.starts = starts;
        this.ends = ends;
        this.ids = ids;
    }

    /** A range to index: {@code [start, end)} unsigned, {@code end} above {@code start}. */
    record Range(long start, long end, int id) {}

    static AddressRanges of(List<Range> ranges) {
        List<Range> sorted = new ArrayList<>(ranges.stream()
                .filter(range -> Long.compareUnsigned(range.start(), range.end()) < 0)
                // a lambda of ours, not Comparator.comparing's: the ahead-of-time cache holds ours, not the JDK's
                .sorted((a, b) -> Long.compareUnsigned(a.start(), b.start()))
                .toList());
        long[] starts = new long[sorted.size()];
        long[] ends = new long[sorted.size()];
        int[] ids = new int[sorted.size()];
        int count = 0;
        for (Range range : sorted) {
            if (count > 0 && Long.compareUnsigned(ends[count - 1], range.start()) > 0) {
                ends[count - 1] = range.start();
                if (starts[count - 1] == ends[count - 1]) {
                    count--;
                }
            }
            starts[count] = range.start();
            ends[count] = range.end();
            ids[count] = range.id();
            count++;
        }
        return new AddressRanges(Arrays.copyOf(starts, count), Arrays.copyOf(ends, count), Arrays.copyOf(ids, count));
    }

    int size() { return starts.length; }

    long start(int position) { return starts[position]; }

    long end(int position) { return ends[position]; }

    int id(int position) { return ids[position]; }

    /** The position of the range holding {@code address}, or -1. */
    int find(long address) {
        int position = lastStartingAtOrBefore(address);
        return position >= 0 && Long.compareUnsigned(address, ends[position]) < 0 ? position : -1;
    }

    /**
     * The start of the first range beginning after {@code address}, or 0 (which no range can begin
     * after) when there is none.
     */
    long nextStartAfter(long address) {
        int next = lastStartingAtOrBefore(address) + 1;
        return next < starts.length ? starts[next] : 0;
    }

    private int lastStartingAtOrBefore(long address) {
        int low = 0;
        int high = starts.length - 1;
        int found = -1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            if (Long.compareUnsigned(starts[middle], address) <= 0) {
                found = middle;
                low = middle + 1;
            } else {
                high = middle - 1;
            }
        }
        return found;
    }
}
