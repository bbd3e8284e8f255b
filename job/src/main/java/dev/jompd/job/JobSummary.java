package dev.jompd.job;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.report.JsonReport;

import java.util.ArrayList;
import java.util.List;

/**
 * A partial picture of a job: what some of its ranks looked like, in a form that merges with another
 * partial picture (a node's summary merges into the job's) and travels as JSON (a node agent writes it
 * back through the resource manager's I/O). Merging is associative and commutative in what it means, so
 * summaries may be merged in any order and tree shape.
 *
 * <p>PLACEHOLDER of the contract: this first version keeps every rank's document and merges by
 * concatenation; the real one keeps equivalence classes of ranks (memory bounded by what differs).
 */
public final class JobSummary {
    private final List<JsonObject> ranks;

    private JobSummary(List<JsonObject> ranks) {
        this.ranks = ranks;
    }

    public static JobSummary empty() {
        return new JobSummary(List.of());
    }

    /** The summary of one rank. */
    public static JobSummary of(RankInspection inspection) {
        JsonObject rank = new JsonObject();
        RankId id = inspection.id();
        id.rank().ifPresent(r -> rank.addProperty("rank", r));
        rank.addProperty("host", id.host());
        rank.addProperty("pid", id.pid());
        rank.addProperty("source", id.source());
        switch (inspection) {
            case RankInspection.Seen seen -> rank.add("picture", JsonReport.toJson(seen.picture()));
            case RankInspection.Missing missing -> {
                rank.addProperty("missing", missing.reason().name());
                rank.addProperty("why", missing.detail());
            }
        }
        return new JobSummary(List.of(rank));
    }

    public JobSummary merge(JobSummary other) {
        List<JsonObject> all = new ArrayList<>(ranks);
        all.addAll(other.ranks);
        return new JobSummary(List.copyOf(all));
    }

    /** How many ranks this summary stands for (seen and missing). */
    public int rankCount() {
        return ranks.size();
    }

    public JsonObject toJson() {
        JsonObject summary = new JsonObject();
        JsonArray array = new JsonArray();
        ranks.forEach(array::add);
        summary.add("ranks", array);
        return summary;
    }

    public static JobSummary fromJson(JsonObject json) {
        List<JsonObject> ranks = new ArrayList<>();
        for (JsonElement rank : json.getAsJsonArray("ranks")) {
            ranks.add(rank.getAsJsonObject());
        }
        return new JobSummary(List.copyOf(ranks));
    }
}
