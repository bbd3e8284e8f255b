package dev.jompd.job.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A set of MPI ranks as sorted, disjoint, non-adjacent closed intervals: {@code 0-15,17-1023} costs two
 * intervals however many ranks it holds, which is what keeps a job's classes small at a million ranks.
 * Immutable; {@link #union} and {@link #intersection} make new sets.
 */
public final class RankSet implements Comparable<RankSet> {
    private static final RankSet EMPTY = new RankSet(new long[0]);

    /** {@code [first0, last0, first1, last1, …]}, ascending, gaps of at least one rank between intervals. */
    private final long[] bounds;

    private RankSet(long[] bounds) {
        this.bounds = bounds;
    }

    public static RankSet empty() {
        return EMPTY;
    }

    public static RankSet of(long rank) {
        if (rank < 0) {
            throw new IllegalArgumentException("a rank is not negative: " + rank);
        }
        return new RankSet(new long[]{rank, rank});
    }

    /** The ranks {@code first..last}, both included. */
    public static RankSet range(long first, long last) {
        if (first < 0 || last < first) {
            throw new IllegalArgumentException("no rank range " + first + "-" + last);
        }
        return new RankSet(new long[]{first, last});
    }

    public static RankSet of(long... ranks) {
        RankSet set = EMPTY;
        long[] sorted = ranks.clone();
        Arrays.sort(sorted);
        List<Long> bounds = new ArrayList<>();
        for (long rank : sorted) {
            if (rank < 0) {
                throw new IllegalArgumentException("a rank is not negative: " + rank);
            }
            if (!bounds.isEmpty() && rank <= bounds.getLast() + 1) {
                bounds.set(bounds.size() - 1, Math.max(bounds.getLast(), rank));
            } else {
                bounds.add(rank);
                bounds.add(rank);
            }
        }
        return bounds.isEmpty() ? set : new RankSet(bounds.stream().mapToLong(Long::longValue).toArray());
    }

    /**
     * Reads {@link #toString()}'s form back: {@code 0-15,17,19-20}; the empty string is the empty set.
     *
     * @throws IllegalArgumentException for anything else (with what was wrong)
     */
    public static RankSet parse(String text) {
        if (text.isBlank()) {
            return EMPTY;
        }
        RankSet set = EMPTY;
        for (String part : text.split(",")) {
            String[] ends = part.trim().split("-", -1);
            try {
                if (ends.length == 1) {
                    set = set.union(of(Long.parseLong(ends[0])));
                } else if (ends.length == 2) {
                    set = set.union(range(Long.parseLong(ends[0]), Long.parseLong(ends[1])));
                } else {
                    throw new IllegalArgumentException("not a rank or a range: '" + part + "'");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a rank or a range: '" + part + "' in '" + text + "'");
            }
        }
        return set;
    }

    public boolean isEmpty() {
        return bounds.length == 0;
    }

    /** How many ranks. */
    public long size() {
        long size = 0;
        for (int i = 0; i < bounds.length; i += 2) {
            size += bounds[i + 1] - bounds[i] + 1;
        }
        return size;
    }

    /** How many intervals (what the set costs). */
    public int intervals() {
        return bounds.length / 2;
    }

    public long first() {
        if (isEmpty()) {
            throw new IllegalStateException("the empty rank set has no first rank");
        }
        return bounds[0];
    }

    public boolean contains(long rank) {
        int low = 0;
        int high = bounds.length / 2 - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (rank < bounds[2 * mid]) {
                high = mid - 1;
            } else if (rank > bounds[2 * mid + 1]) {
                low = mid + 1;
            } else {
                return true;
            }
        }
        return false;
    }

    /** The ranks in either set: one pass over both interval lists. */
    public RankSet union(RankSet other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        long[] out = new long[bounds.length + other.bounds.length];
        int n = 0;
        int i = 0;
        int j = 0;
        while (i < bounds.length || j < other.bounds.length) {
            long first;
            long last;
            if (j >= other.bounds.length || (i < bounds.length && bounds[i] <= other.bounds[j])) {
                first = bounds[i];
                last = bounds[i + 1];
                i += 2;
            } else {
                first = other.bounds[j];
                last = other.bounds[j + 1];
                j += 2;
            }
            if (n > 0 && first <= out[n - 1] + 1) {
                out[n - 1] = Math.max(out[n - 1], last);
            } else {
                out[n++] = first;
                out[n++] = last;
            }
        }
        return new RankSet(Arrays.copyOf(out, n));
    }

    /** The ranks in both sets. */
    public RankSet intersection(RankSet other) {
        long[] out = new long[bounds.length + other.bounds.length];
        int n = 0;
        int i = 0;
        int j = 0;
        while (i < bounds.length && j < other.bounds.length) {
            long first = Math.max(bounds[i], other.bounds[j]);
            long last = Math.min(bounds[i + 1], other.bounds[j + 1]);
            if (first <= last) {
                out[n++] = first;
                out[n++] = last;
            }
            if (bounds[i + 1] < other.bounds[j + 1]) {
                i += 2;
            } else {
                j += 2;
            }
        }
        return n == 0 ? EMPTY : new RankSet(Arrays.copyOf(out, n));
    }

    /** {@code 0-15,17-1023}; a lone rank alone ({@code 3}), the empty set as the empty string. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < bounds.length; i += 2) {
            if (i > 0) {
                text.append(',');
            }
            text.append(bounds[i]);
            if (bounds[i + 1] != bounds[i]) {
                text.append('-').append(bounds[i + 1]);
            }
        }
        return text.toString();
    }

    /** {@code rank 3} or {@code ranks 0-2,4-31}: how a sentence names them. */
    public String words() {
        return (size() == 1 ? "rank " : "ranks ") + this;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RankSet set && Arrays.equals(bounds, set.bounds);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bounds);
    }

    /** By first rank, then by the rest: a total order, for output that does not depend on merge order. */
    @Override
    public int compareTo(RankSet other) {
        return Arrays.compare(bounds, other.bounds);
    }
}
