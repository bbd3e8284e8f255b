package dev.jompd.job.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A partial picture of a job: what some of its ranks looked like, in a form that merges with another
 * partial picture (a node's summary merges into the job's) and travels as JSON ({@code JobWire}: a node agent
 * writes it back through the resource manager's I/O).
 *
 * <p>Ranks fall into <b>equivalence classes</b> (LLNL STAT's idea, made OpenMP-aware): two ranks are in one
 * class when their {@link RankView}s — threads by team path, states, constructs, stacks by function and
 * line, locks by the program's name, diagnosis — are equal. A class keeps its rank set (intervals), its
 * count and one representative's view: the summary's size grows with what differs, not with the number of
 * ranks. Ranks that could not be read are kept per reason and detail, exactly.
 *
 * <p>Merging is a union of sets and sums per class; the representative is the class's lowest rank. So
 * merging is associative and commutative, and the output (ordered outliers first: smallest classes first,
 * then by first rank) does not depend on the order or tree shape in which summaries were merged.
 */
public final class JobSummary {
    /**
     * Ranks that looked the same.
     *
     * @param view           the view every rank of the class has: what makes two ranks one class
     * @param ranks          the class's numbered ranks
     * @param unnumbered     its processes that no MPI rank number was found for (host, pid, source)
     * @param representative the rank whose details the class shows: its lowest rank
     */
    public record RankClass(RankView view, RankSet ranks, List<RankId> unnumbered,
                            RankId representative) {
        /** How many processes the class stands for. */
        public long count() {
            return ranks.size() + unnumbered.size();
        }

        /** {@code ranks 0-2,4-31}, with unnumbered processes by host and pid. */
        public String who() {
            return JobSummary.who(ranks, unnumbered);
        }

        RankClass merge(RankClass other) {
            return new RankClass(view, ranks.union(other.ranks), mergeIds(unnumbered, other.unnumbered),
                    ID_ORDER.compare(representative, other.representative) <= 0 ? representative : other.representative);
        }
    }

    /** Ranks that could not be read, for one reason and one detail. */
    public record MissingRanks(RankInspection.MissingReason reason, String detail, RankSet ranks,
                               List<RankId> unnumbered) {
        public long count() {
            return ranks.size() + unnumbered.size();
        }

        public String who() {
            return JobSummary.who(ranks, unnumbered);
        }

        MissingRanks merge(MissingRanks other) {
            return new MissingRanks(reason, detail, ranks.union(other.ranks), mergeIds(unnumbered, other.unnumbered));
        }
    }

    /** {@code ranks 0-2,4-31}, then the processes no rank number was found for, by host and pid. */
    public static String who(RankSet ranks, List<RankId> unnumbered) {
        List<String> parts = new ArrayList<>();
        if (!ranks.isEmpty()) {
            parts.add(ranks.words());
        }
        unnumbered.forEach(id -> parts.add(describe(id)));
        return String.join(", ", parts);
    }

    /** Numbered ranks before unnumbered processes, then by rank, host, pid and source. */
    public static final Comparator<RankId> ID_ORDER = Comparator
            .comparing((RankId id) -> id.rank().isEmpty())
            .thenComparingInt(id -> id.rank().orElse(0))
            .thenComparing(RankId::host).thenComparingLong(RankId::pid).thenComparing(RankId::source);

    private static final JobSummary EMPTY = new JobSummary(Map.of(), Map.of(), RankSet.empty(), RankSet.empty());

    private final Map<RankView, RankClass> classes;
    private final Map<MissingKey, MissingRanks> missing;
    /** Every numbered rank this summary has seen or missed (to find a rank reported twice). */
    private final RankSet all;
    /** Ranks that came in more than one summary (a pid inspected by two agents, a core given twice). */
    private final RankSet duplicates;

    private JobSummary(Map<RankView, RankClass> classes, Map<MissingKey, MissingRanks> missing, RankSet all,
                       RankSet duplicates) {
        this.classes = classes;
        this.missing = missing;
        this.all = all;
        this.duplicates = duplicates;
    }

    public static JobSummary empty() {
        return EMPTY;
    }

    /** The summary of one rank. */
    public static JobSummary of(RankInspection inspection) {
        RankId id = inspection.id();
        RankSet ranks = id.rank().isPresent() ? RankSet.of(id.rank().getAsInt()) : RankSet.empty();
        List<RankId> unnumbered = id.rank().isPresent() ? List.of() : List.of(id);
        return switch (inspection) {
            case RankInspection.Seen seen -> {
                RankView view = RankView.of(seen);
                yield new JobSummary(Map.of(view, new RankClass(view, ranks, unnumbered, id)), Map.of(),
                        ranks, RankSet.empty());
            }
            case RankInspection.Missing lost -> new JobSummary(Map.of(), Map.of(new MissingKey(lost.reason(), lost.detail()),
                    new MissingRanks(lost.reason(), lost.detail(), ranks, unnumbered)), ranks, RankSet.empty());
        };
    }

    /** What makes ranks that could not be read one group: the same reason, said the same way. */
    private record MissingKey(RankInspection.MissingReason reason, String detail) {}

    /** The merge of each inspection's summary; empty when there was none. */
    public static Optional<JobSummary> of(List<RankInspection> inspections) {
        return inspections.stream().map(JobSummary::of).reduce(JobSummary::merge);
    }

    /** This summary and {@code other} as one: classes by view, missing ranks by reason and detail. */
    public JobSummary merge(JobSummary other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        Map<RankView, RankClass> mergedClasses = new HashMap<>(classes);
        other.classes.forEach((view, c) -> mergedClasses.merge(view, c, RankClass::merge));
        Map<MissingKey, MissingRanks> mergedMissing = new HashMap<>(missing);
        other.missing.forEach((key, m) -> mergedMissing.merge(key, m, MissingRanks::merge));
        RankSet twice = duplicates.union(other.duplicates).union(all.intersection(other.all));
        return new JobSummary(mergedClasses, mergedMissing, all.union(other.all), twice);
    }

    private boolean isEmpty() {
        return classes.isEmpty() && missing.isEmpty();
    }

    /** How many ranks this summary stands for (seen and missing). */
    public int rankCount() {
        return (int) Math.min(Integer.MAX_VALUE, seenCount() + missingCount());
    }

    public long seenCount() {
        return classes.values().stream().mapToLong(RankClass::count).sum();
    }

    public long missingCount() {
        return missing.values().stream().mapToLong(MissingRanks::count).sum();
    }

    /** The classes, outliers first: the smallest classes first, then by their first rank. */
    public List<RankClass> classes() {
        List<RankClass> sorted = new ArrayList<>(classes.values());
        sorted.sort(Comparator.comparingLong(RankClass::count).thenComparing(RankClass::representative, ID_ORDER)
                // a rank given twice may show two classes: any fixed order of their views
                .thenComparing(c -> c.view().toString()));
        return List.copyOf(sorted);
    }

    /** The ranks that could not be read, grouped by reason and detail, in reason order then by first rank. */
    public List<MissingRanks> missing() {
        List<MissingRanks> sorted = new ArrayList<>(missing.values());
        sorted.sort(Comparator.comparing(MissingRanks::reason).thenComparing(MissingRanks::ranks)
                .thenComparing(MissingRanks::detail));
        return List.copyOf(sorted);
    }

    /** Ranks reported more than once (empty when every rank came once). */
    public RankSet duplicates() {
        return duplicates;
    }

    /** The class rank {@code rank} is in, if it was seen. */
    public Optional<RankClass> classOf(int rank) {
        return classes.values().stream().filter(c -> c.ranks().contains(rank)).findFirst();
    }

    /**
     * A summary read back from its parts (the wire's): classes of one view merged, missing ranks of one reason and
     * detail merged, a rank in more than one part a duplicate (besides {@code duplicates}, the ranks the writer
     * knew to be duplicates).
     */
    public static JobSummary of(List<RankClass> rankClasses, List<MissingRanks> missingRanks, RankSet duplicates) {
        Map<RankView, RankClass> classes = new HashMap<>();
        RankSet all = RankSet.empty();
        RankSet twice = duplicates;
        for (RankClass c : rankClasses) {
            twice = twice.union(all.intersection(c.ranks()));
            all = all.union(c.ranks());
            classes.merge(c.view(), c, RankClass::merge);
        }
        Map<MissingKey, MissingRanks> missing = new HashMap<>();
        for (MissingRanks m : missingRanks) {
            twice = twice.union(all.intersection(m.ranks()));
            all = all.union(m.ranks());
            missing.merge(new MissingKey(m.reason(), m.detail()), m, MissingRanks::merge);
        }
        return new JobSummary(classes, missing, all, twice);
    }

    /** {@code rank 3 (pid 4711 on n1)}, {@code pid 4711 on n1}, {@code core.3 on n1}; a core whose node is not known: {@code core.3}. */
    public static String describe(RankId id) {
        String where = (id.pid() != 0 ? "pid " + id.pid() : id.source()) + (id.host().isEmpty() ? "" : " on " + id.host());
        return id.rank().isPresent() ? "rank " + id.rank().getAsInt() + " (" + where + ")" : where;
    }

    private static List<RankId> mergeIds(List<RankId> a, List<RankId> b) {
        if (b.isEmpty()) {
            return a;
        }
        if (a.isEmpty()) {
            return b;
        }
        TreeSet<RankId> merged = new TreeSet<>(ID_ORDER);
        merged.addAll(a);
        merged.addAll(b);
        return List.copyOf(merged);
    }
}
