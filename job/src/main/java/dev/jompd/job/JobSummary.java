package dev.jompd.job;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * A partial picture of a job: what some of its ranks looked like, in a form that merges with another
 * partial picture (a node's summary merges into the job's) and travels as JSON (a node agent writes it
 * back through the resource manager's I/O).
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
    /** The wire format's name and version. */
    public static final String SCHEMA = "jompd-job-summary/1";

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
    static String who(RankSet ranks, List<RankId> unnumbered) {
        List<String> parts = new ArrayList<>();
        if (!ranks.isEmpty()) {
            parts.add(ranks.words());
        }
        unnumbered.forEach(id -> parts.add(describe(id)));
        return String.join(", ", parts);
    }

    /** Numbered ranks before unnumbered processes, then by rank, host, pid and source. */
    static final Comparator<RankId> ID_ORDER = Comparator
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

    /** Compact JSON (one line with {@code toString()}): the wire format a node agent writes. */
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        json.addProperty("schema", SCHEMA);
        JsonArray classArray = new JsonArray();
        for (RankClass c : classes()) {
            JsonObject cls = new JsonObject();
            cls.addProperty("ranks", c.ranks().toString());
            cls.add("unnumbered", ids(c.unnumbered()));
            cls.add("representative", id(c.representative()));
            cls.add("view", JobWire.toJson(c.view()));
            classArray.add(cls);
        }
        json.add("classes", classArray);
        JsonArray missingArray = new JsonArray();
        for (MissingRanks m : missing()) {
            JsonObject lost = new JsonObject();
            lost.addProperty("reason", m.reason().name());
            lost.addProperty("detail", m.detail());
            lost.addProperty("ranks", m.ranks().toString());
            lost.add("unnumbered", ids(m.unnumbered()));
            missingArray.add(lost);
        }
        json.add("missing", missingArray);
        json.addProperty("duplicates", duplicates.toString());
        return json;
    }

    /**
     * Reads {@link #toJson()} back (a node agent's line).
     *
     * @throws IllegalArgumentException when it is not a job summary of this version (saying what is wrong)
     */
    public static JobSummary fromJson(JsonObject json) {
        if (!json.has("schema") || !SCHEMA.equals(json.get("schema").getAsString())) {
            throw new IllegalArgumentException("not a " + SCHEMA + " document (schema: "
                    + (json.has("schema") ? json.get("schema") : "none") + ")");
        }
        try {
            Map<RankView, RankClass> classes = new HashMap<>();
            RankSet all = RankSet.empty();
            RankSet twice = RankSet.parse(json.get("duplicates").getAsString());
            for (JsonElement element : json.getAsJsonArray("classes")) {
                JsonObject cls = element.getAsJsonObject();
                RankView view = JobWire.fromJson(cls.getAsJsonObject("view"));
                RankSet ranks = RankSet.parse(cls.get("ranks").getAsString());
                RankClass c = new RankClass(view, ranks, idList(cls.getAsJsonArray("unnumbered")),
                        idOf(cls.getAsJsonObject("representative")));
                twice = twice.union(all.intersection(ranks));
                all = all.union(ranks);
                classes.merge(view, c, RankClass::merge);
            }
            Map<MissingKey, MissingRanks> missing = new HashMap<>();
            for (JsonElement element : json.getAsJsonArray("missing")) {
                JsonObject lost = element.getAsJsonObject();
                RankInspection.MissingReason reason = RankInspection.MissingReason.valueOf(lost.get("reason").getAsString());
                String detail = lost.get("detail").getAsString();
                RankSet ranks = RankSet.parse(lost.get("ranks").getAsString());
                twice = twice.union(all.intersection(ranks));
                all = all.union(ranks);
                missing.merge(new MissingKey(reason, detail), new MissingRanks(reason, detail, ranks,
                        idList(lost.getAsJsonArray("unnumbered"))), MissingRanks::merge);
            }
            return new JobSummary(classes, missing, all, twice);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a valid " + SCHEMA + " document: " + e, e);
        }
    }

    /** {@code rank 3 (pid 4711 on n1)}, {@code pid 4711 on n1}, {@code core.3 on n1}; a core whose node is not known: {@code core.3}. */
    static String describe(RankId id) {
        String where = (id.pid() != 0 ? "pid " + id.pid() : id.source()) + (id.host().isEmpty() ? "" : " on " + id.host());
        return id.rank().isPresent() ? "rank " + id.rank().getAsInt() + " (" + where + ")" : where;
    }

    static JsonObject id(RankId id) {
        JsonObject json = new JsonObject();
        id.rank().ifPresent(r -> json.addProperty("rank", r));
        json.addProperty("host", id.host());
        json.addProperty("pid", id.pid());
        json.addProperty("source", id.source());
        return json;
    }

    private static RankId idOf(JsonObject json) {
        return new RankId(json.has("rank") ? OptionalInt.of(json.get("rank").getAsInt()) : OptionalInt.empty(),
                json.get("host").getAsString(), json.get("pid").getAsLong(), json.get("source").getAsString());
    }

    private static JsonArray ids(List<RankId> ids) {
        JsonArray array = new JsonArray();
        ids.forEach(i -> array.add(id(i)));
        return array;
    }

    private static List<RankId> idList(JsonArray array) {
        List<RankId> ids = new ArrayList<>();
        array.forEach(e -> ids.add(idOf(e.getAsJsonObject())));
        return List.copyOf(ids);
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
