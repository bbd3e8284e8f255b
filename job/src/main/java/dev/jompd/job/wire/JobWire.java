package dev.jompd.job.wire;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.model.RankSet;
import dev.jompd.job.model.RankView;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.OpenMpPicture.ThreadPlace;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A {@link JobSummary} on the wire, {@code jompd-job-summary/1}: what a node agent writes back through the resource
 * manager's I/O (framed by {@link NodeMessages}). Each typed part of a {@link RankView} is its own members, read back
 * into the same record, so a summary read from the wire merges as the summary it was.
 */
public final class JobWire {
    /** The wire format's name and version. */
    public static final String SCHEMA = "jompd-job-summary/1";

    private JobWire() {}

    /** Compact JSON (one line with {@code toString()}): the wire format a node agent writes. */
    public static JsonObject toJson(JobSummary summary) {
        JsonObject json = new JsonObject();
        json.addProperty("schema", SCHEMA);
        JsonArray classArray = new JsonArray();
        for (JobSummary.RankClass c : summary.classes()) {
            JsonObject cls = new JsonObject();
            cls.addProperty("ranks", c.ranks().toString());
            cls.add("unnumbered", ids(c.unnumbered()));
            cls.add("representative", id(c.representative()));
            cls.add("view", toJson(c.view()));
            classArray.add(cls);
        }
        json.add("classes", classArray);
        JsonArray missingArray = new JsonArray();
        for (JobSummary.MissingRanks m : summary.missing()) {
            JsonObject lost = new JsonObject();
            lost.addProperty("reason", m.reason().name());
            lost.addProperty("detail", m.detail());
            lost.addProperty("ranks", m.ranks().toString());
            lost.add("unnumbered", ids(m.unnumbered()));
            missingArray.add(lost);
        }
        json.add("missing", missingArray);
        json.addProperty("duplicates", summary.duplicates().toString());
        return json;
    }

    /**
     * Reads {@link #toJson(JobSummary)} back (a node agent's line).
     *
     * @throws IllegalArgumentException when it is not a job summary of this version (saying what is wrong)
     */
    public static JobSummary summary(JsonObject json) {
        if (!json.has("schema") || !SCHEMA.equals(json.get("schema").getAsString())) {
            throw new IllegalArgumentException("not a " + SCHEMA + " document (schema: "
                    + (json.has("schema") ? json.get("schema") : "none") + ")");
        }
        try {
            List<JobSummary.RankClass> classes = new ArrayList<>();
            for (JsonElement element : json.getAsJsonArray("classes")) {
                JsonObject cls = element.getAsJsonObject();
                classes.add(new JobSummary.RankClass(view(cls.getAsJsonObject("view")),
                        RankSet.parse(cls.get("ranks").getAsString()), idList(cls.getAsJsonArray("unnumbered")),
                        idOf(cls.getAsJsonObject("representative"))));
            }
            List<JobSummary.MissingRanks> missing = new ArrayList<>();
            for (JsonElement element : json.getAsJsonArray("missing")) {
                JsonObject lost = element.getAsJsonObject();
                missing.add(new JobSummary.MissingRanks(RankInspection.MissingReason.valueOf(lost.get("reason").getAsString()),
                        lost.get("detail").getAsString(), RankSet.parse(lost.get("ranks").getAsString()),
                        idList(lost.getAsJsonArray("unnumbered"))));
            }
            return JobSummary.of(classes, missing, RankSet.parse(json.get("duplicates").getAsString()));
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a valid " + SCHEMA + " document: " + e, e);
        }
    }

    /** Who a process of the job is, as JSON ({@code rank} left out when no rank number was found). */
    public static JsonObject id(RankId id) {
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

    public static JsonObject toJson(RankView view) {
        JsonObject json = new JsonObject();
        JsonArray threads = new JsonArray();
        for (RankView.ThreadView thread : view.threads()) {
            JsonObject t = new JsonObject();
            t.add("place", place(thread.place()));
            thread.stateCode().ifPresent(code -> t.addProperty("state", code));
            thread.region().ifPresent(r -> t.addProperty("region", r));
            t.add("tasks", strings(thread.tasks()));
            JsonArray stack = new JsonArray();
            for (RankView.Step step : thread.stack()) {
                JsonObject s = new JsonObject();
                s.addProperty("function", step.function());
                step.source().ifPresent(v -> s.addProperty("source", v));
                step.module().ifPresent(v -> s.addProperty("module", v));
                s.addProperty("runtime", step.runtime());
                s.addProperty("words", step.words());
                stack.add(s);
            }
            t.add("stack", stack);
            t.add("roles", strings(thread.roles()));
            threads.add(t);
        }
        json.add("threads", threads);
        JsonArray findings = new JsonArray();
        for (RankView.Finding finding : view.findings()) {
            JsonObject f = new JsonObject();
            f.addProperty("kind", finding.kind().name());
            f.addProperty("summary", finding.summary());
            findings.add(f);
        }
        json.add("findings", findings);
        view.mpi().ifPresent(m -> {
            JsonObject call = new JsonObject();
            call.addProperty("call", m.call());
            m.from().ifPresent(f -> call.addProperty("from", f));
            call.add("thread", place(m.thread()));
            json.add("mpi", call);
        });
        json.add("notices", strings(view.notices()));
        return json;
    }

    /**
     * Reads {@link #toJson(RankView)} back.
     *
     * @throws IllegalArgumentException when a member is missing or of the wrong type
     */
    public static RankView view(JsonObject json) {
        try {
            List<RankView.ThreadView> threads = new ArrayList<>();
            for (JsonElement element : json.getAsJsonArray("threads")) {
                JsonObject t = element.getAsJsonObject();
                List<RankView.Step> stack = new ArrayList<>();
                for (JsonElement s : t.getAsJsonArray("stack")) {
                    JsonObject step = s.getAsJsonObject();
                    stack.add(new RankView.Step(step.get("function").getAsString(), optional(step, "source"),
                            optional(step, "module"), step.get("runtime").getAsBoolean(), step.get("words").getAsString()));
                }
                OptionalLong state = t.has("state") ? OptionalLong.of(t.get("state").getAsLong()) : OptionalLong.empty();
                threads.add(new RankView.ThreadView(placeOf(t.getAsJsonObject("place")), state, optional(t, "region"),
                        list(t.getAsJsonArray("tasks")), List.copyOf(stack), list(t.getAsJsonArray("roles"))));
            }
            List<RankView.Finding> findings = new ArrayList<>();
            for (JsonElement element : json.getAsJsonArray("findings")) {
                JsonObject f = element.getAsJsonObject();
                findings.add(new RankView.Finding(FindingKind.valueOf(f.get("kind").getAsString()),
                        f.get("summary").getAsString()));
            }
            Optional<RankView.MpiWait> mpi = Optional.empty();
            if (json.has("mpi")) {
                JsonObject m = json.getAsJsonObject("mpi");
                mpi = Optional.of(new RankView.MpiWait(m.get("call").getAsString(), optional(m, "from"),
                        placeOf(m.getAsJsonObject("thread"))));
            }
            return new RankView(List.copyOf(threads), List.copyOf(findings), mpi, list(json.getAsJsonArray("notices")));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a rank view of a jompd job summary: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a rank view of a jompd job summary: " + e, e);
        }
    }

    private static JsonObject place(ThreadPlace place) {
        JsonObject json = new JsonObject();
        if (place.noTeamGtid().isPresent()) {
            json.addProperty("gtid", place.noTeamGtid().getAsLong());
            return json;
        }
        place.team().ifPresent(t -> json.addProperty("team", t));
        JsonArray path = new JsonArray();
        place.teamPath().forEach(path::add);
        json.add("teamPath", path);
        json.addProperty("threadNum", place.threadNum());
        json.addProperty("teamSize", place.teamSize());
        json.addProperty("level", place.level());
        return json;
    }

    private static ThreadPlace placeOf(JsonObject json) {
        if (json.has("gtid")) {
            return new ThreadPlace(OptionalLong.empty(), List.of(), 0, 0, 0, OptionalLong.of(json.get("gtid").getAsLong()));
        }
        List<Long> path = new ArrayList<>();
        json.getAsJsonArray("teamPath").forEach(e -> path.add(e.getAsLong()));
        return new ThreadPlace(json.has("team") ? OptionalLong.of(json.get("team").getAsLong()) : OptionalLong.empty(),
                path, json.get("threadNum").getAsLong(), json.get("teamSize").getAsLong(), json.get("level").getAsLong(),
                OptionalLong.empty());
    }

    private static Optional<String> optional(JsonObject json, String member) {
        return json.has(member) ? Optional.of(json.get(member).getAsString()) : Optional.empty();
    }

    private static JsonArray strings(List<String> values) {
        JsonArray array = new JsonArray();
        values.forEach(array::add);
        return array;
    }

    private static List<String> list(JsonArray array) {
        List<String> values = new ArrayList<>();
        array.forEach(e -> values.add(e.getAsString()));
        return List.copyOf(values);
    }
}
