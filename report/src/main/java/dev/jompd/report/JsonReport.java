package dev.jompd.report;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.jompd.core.ompd.IcvReading;
import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.ompd.ToolData;
import dev.jompd.core.recorder.LockHolder;
import dev.jompd.core.recorder.Mark;
import dev.jompd.core.recorder.RecordedEvent;
import dev.jompd.core.recorder.RecordedThread;
import dev.jompd.core.recorder.RecorderSnapshot;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.OpenMpPicture.Task;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The picture as one JSON document, schema {@value #SCHEMA} (the file {@code jompd-inspect.schema.json}
 * beside this class; documented in the README). Addresses and 64-bit values are "0x…"/decimal strings
 * (JSON numbers lose precision past 2^53); regions are referred to by their id.
 */
public final class JsonReport {
    public static final String SCHEMA = "jompd-inspect/1";
    /** The schema of {@link #diagnosis}'s document. */
    public static final String DIAGNOSIS_SCHEMA = "jompd-diagnose/1";
    /** The JSON Schema of {@value #SCHEMA}, as a class-path resource. */
    public static final String SCHEMA_RESOURCE = "/dev/jompd/report/jompd-inspect.schema.json";

    private JsonReport() {}

    /** The document, pretty-printed. */
    public static String render(OpenMpPicture picture) {
        return render(picture, java.util.Optional.empty());
    }

    /** The document with every thread's native stack and the merged tree ({@code stacks}). */
    public static String render(OpenMpPicture picture, java.util.Optional<ParallelStacks> stacks) {
        JsonObject json = toJson(picture);
        stacks.ifPresent(s -> json.add("stacks", stacks(s)));
        return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().serializeNulls().create().toJson(json);
    }

    /** The diagnosis as one JSON document ({@code jompd-diagnose/1}): findings, each with its evidence. */
    public static String diagnosis(List<Diagnosis.Finding> findings) {
        JsonObject root = new JsonObject();
        root.addProperty("schema", DIAGNOSIS_SCHEMA);
        root.add("findings", findings(findings));
        return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(root);
    }

    /** The findings of {@code jompd-diagnose/1}, as a tree. */
    public static JsonArray findings(List<Diagnosis.Finding> findings) {
        JsonArray array = new JsonArray();
        for (Diagnosis.Finding finding : findings) {
            JsonObject f = new JsonObject();
            f.addProperty("kind", finding.kind().words());
            f.addProperty("summary", finding.summary());
            JsonArray evidence = new JsonArray();
            finding.evidence().forEach(evidence::add);
            f.add("evidence", evidence);
            finding.place().ifPresent(place -> f.addProperty("place", place));
            JsonArray threads = new JsonArray();
            for (Diagnosis.Involved involved : finding.threads()) {
                JsonObject t = new JsonObject();
                t.addProperty("name", involved.thread().name());
                t.addProperty("gtid", involved.thread().gtid());
                involved.thread().lwp().ifPresent(lwp -> t.addProperty("lwp", lwp));
                t.addProperty("threadNum", involved.thread().threadNum());
                involved.thread().region().ifPresent(region -> t.addProperty("region", region));
                t.addProperty("role", involved.roleWords());
                involved.function().ifPresent(function -> t.addProperty("function", function));
                involved.source().ifPresent(source -> t.addProperty("source", source));
                t.addProperty("evidence", involved.evidence());
                threads.add(t);
            }
            f.add("threads", threads);
            array.add(f);
        }
        return array;
    }

    /** The stacks as JSON: each thread's frames (with their task) and the merged tree. */
    public static JsonObject stacks(ParallelStacks stacks) {
        JsonObject json = new JsonObject();
        JsonArray threads = new JsonArray();
        for (ParallelStacks.ThreadStack stack : stacks.stacks()) {
            JsonObject thread = new JsonObject();
            thread.addProperty("gtid", stack.thread().gtid());
            JsonArray frames = new JsonArray();
            for (int i = 0; i < stack.stack().frames().size(); i++) {
                dev.jompd.core.unwind.NativeFrame frame = stack.stack().frames().get(i);
                JsonObject f = new JsonObject();
                f.addProperty("pc", Text.hex(frame.pc()));
                frame.function().ifPresent(name -> f.addProperty("function", name));
                frame.source().ifPresent(s -> f.addProperty("source", s.file() + ":" + s.line()));
                frame.module().ifPresent(m -> f.addProperty("module", m));
                if (frame.inlined()) {
                    f.addProperty("inlined", true);
                }
                FrameOwnership.Mark mark = stack.marks().get(i);
                f.addProperty("owner", mark.owner().name().toLowerCase(java.util.Locale.ROOT));
                mark.task().ifPresent(task -> f.addProperty("task", task.id()));
                stack.constructs().get(i).ifPresent(construct -> f.add("construct", construct(construct)));
                frames.add(f);
            }
            thread.add("frames", frames);
            stack.stack().truncation().ifPresent(t -> thread.addProperty("truncated", t.toString()));
            threads.add(thread);
        }
        json.add("threads", threads);
        JsonArray tree = new JsonArray();
        stacks.roots().forEach(root -> tree.add(node(root)));
        json.add("tree", tree);
        return json;
    }

    /** {@code {"kind": "parallel", "source": "/src/nested.c:53"}}: the construct whose code a frame runs. */
    private static JsonObject construct(ParallelStacks.Construct construct) {
        JsonObject json = new JsonObject();
        json.addProperty("kind", construct.kind().json());
        construct.source().ifPresent(source -> json.addProperty("source", source));
        return json;
    }

    private static JsonObject node(ParallelStacks.Node node) {
        JsonObject json = new JsonObject();
        json.addProperty("step", node.step().describe());
        json.addProperty("runtime", node.step().runtime());
        node.step().construct().ifPresent(construct -> json.add("construct", construct(construct)));
        JsonArray gtids = new JsonArray();
        node.threads().forEach(t -> gtids.add(t.gtid()));
        json.add("gtids", gtids);
        JsonArray children = new JsonArray();
        node.children().forEach(child -> children.add(node(child)));
        json.add("children", children);
        return json;
    }

    /** The document as a tree. */
    public static JsonObject toJson(OpenMpPicture picture) {
        JsonObject root = new JsonObject();
        root.addProperty("schema", SCHEMA);
        JsonObject target = new JsonObject();
        target.addProperty("kind", picture.target().kind());
        target.addProperty("name", picture.target().name());
        target.addProperty("runtime", picture.target().runtime());
        target.addProperty("runtimeRead", picture.runtimeReading());
        target.addProperty("ompVersion", picture.version().yyyymm());
        target.addProperty("openmp", picture.version().words());
        root.add("target", target);
        root.add("icvs", strings(picture.processIcvs()));
        JsonArray controls = new JsonArray();
        picture.startup().lines().forEach(controls::add);
        root.add("displayControlVariables", controls);
        if (picture.startup().environmentNotRead().isEmpty()) {
            JsonObject environment = new JsonObject();
            picture.startup().environment().forEach(environment::addProperty);
            root.add("environment", environment);
        }

        JsonArray regions = new JsonArray();
        for (ParallelRegion region : picture.regions()) {
            JsonObject json = new JsonObject();
            json.addProperty("id", region.id());
            json.addProperty("level", region.level());
            json.addProperty("activeLevel", region.activeLevel());
            json.addProperty("teamSize", region.teamSize());
            json.addProperty("serialized", region.serialized());
            json.addProperty("ended", region.ended());
            json.add("enclosing", id(region.enclosing()));
            json.add("teamPath", numbers(region.teamPath()));
            region.teams().ifPresent(teams -> {
                JsonObject league = new JsonObject();
                league.addProperty("teamNumber", teams.teamNumber());
                league.addProperty("leagueSize", teams.leagueSize());
                json.add("teams", league);
            });
            region.function().ifPresent(function -> json.add("function", function(function)));
            json.add("toolData", toolData(region.toolData()));
            json.add("icvs", strings(region.icvs()));
            regions.add(json);
        }
        root.add("regions", regions);

        JsonArray threads = new JsonArray();
        for (OpenMpThread thread : picture.threads()) {
            JsonObject json = new JsonObject();
            json.addProperty("name", thread.name());
            json.addProperty("gtid", thread.gtid());
            if (thread.lwp().isPresent()) {
                json.addProperty("lwp", thread.lwp().getAsLong());
            }
            json.addProperty("pthread", Text.hex(thread.pthread()));
            json.addProperty("threadNum", thread.threadNum());
            json.add("teamPath", numbers(thread.teamPath()));
            json.addProperty("state", Text.stateName(thread));
            // absent when libomp tracks no states: the 0 its memory holds then is no wait id
            thread.waitId().ifPresent(waitId -> json.addProperty("waitId", Text.hex(waitId)));
            json.add("region", id(thread.region()));
            json.add("toolData", toolData(thread.toolData()));
            json.add("icvs", strings(thread.icvs()));
            JsonArray tasks = new JsonArray();
            picture.chain(thread).forEach(task -> tasks.add(task(task)));
            json.add("tasks", tasks);
            picture.history().ifPresent(history -> {
                // every event the recorder keeps; recentEvents (the text's default tail) stays for older readers
                JsonArray events = new JsonArray();
                List<RecordedEvent> kept = history.events(thread);
                List<String> described = history.describe(thread, kept);
                for (int i = 0; i < kept.size(); i++) {
                    JsonObject e = event(kept.get(i), described.get(i));
                    e.addProperty("sequence", Long.toString(kept.get(i).sequence()));
                    events.add(e);
                }
                json.add("events", events);
                history.of(thread).ifPresent(recorded -> {
                    json.addProperty("eventsWritten", Long.toString(recorded.eventsWritten()));
                    json.addProperty("eventsLost", Long.toString(recorded.eventsLost()));
                });
                JsonArray recent = new JsonArray();
                List<RecordedEvent> tail = history.recent(thread);
                List<String> tailWords = history.describe(thread, tail);
                for (int i = 0; i < tail.size(); i++) {
                    recent.add(event(tail.get(i), tailWords.get(i)));
                }
                json.add("recentEvents", recent);
                List<String> why = history.whyHere(picture, thread);
                if (!why.isEmpty()) {
                    JsonArray sentences = new JsonArray();
                    why.forEach(sentences::add);
                    json.add("whyHere", sentences);
                }
            });
            threads.add(json);
        }
        root.add("threads", threads);
        root.add("tasksNotStarted", tasksNotStarted(picture));
        picture.history().ifPresent(history -> root.add("recorder", recorder(history, picture)));
        JsonArray notices = new JsonArray();
        picture.notices().forEach(notices::add);
        root.add("notices", notices);
        JsonArray problems = new JsonArray();
        picture.problems().forEach(problems::add);
        root.add("problems", problems);
        return root;
    }

    /** One recorded event: its time (the target's CLOCK_MONOTONIC), in words, and its code return address. */
    private static JsonObject event(RecordedEvent event, String words) {
        JsonObject e = new JsonObject();
        e.addProperty("timeNanos", Long.toString(event.timeNanos()));
        e.addProperty("event", words);
        e.addProperty("codeptr", Text.hex(event.codeReturnAddress()));
        return e;
    }

    private static JsonObject recorder(RecordedHistory history, OpenMpPicture picture) {
        RecorderSnapshot snapshot = history.snapshot();
        JsonObject json = new JsonObject();
        json.addProperty("module", snapshot.module());
        json.addProperty("monitoring", snapshot.monitoring().name().toLowerCase(Locale.ROOT));
        json.addProperty("ringCapacity", snapshot.ringCapacity());
        json.addProperty("newestEventNanos", Long.toString(history.newestEventNanos()));
        JsonObject registrations = new JsonObject();
        snapshot.registrations().forEach((callback, result) -> registrations.addProperty(
                "ompt_callback_" + callback.name().toLowerCase(Locale.ROOT), result.name().toLowerCase(Locale.ROOT)));
        json.add("registrations", registrations);
        JsonArray holders = new JsonArray();
        for (LockHolder holder : history.lockHolders()) {
            JsonObject h = new JsonObject();
            h.addProperty("waitId", Text.hex(holder.waitId()));
            h.addProperty("kind", holder.kindName());
            h.add("holderLwp", holder.holder().<JsonElement>map(t -> new JsonPrimitive(t.lwp())).orElse(JsonNull.INSTANCE));
            JsonArray waiters = new JsonArray();
            holder.waiters().forEach(w -> waiters.add(w.lwp()));
            h.add("waiterLwps", waiters);
            holders.add(h);
        }
        json.add("lockHolders", holders);
        JsonArray deadlocks = new JsonArray();
        for (List<RecordedThread> cycle : history.deadlocks()) {
            JsonArray lwps = new JsonArray();
            cycle.forEach(t -> lwps.add(t.lwp()));
            deadlocks.add(lwps);
        }
        json.add("deadlocks", deadlocks);
        JsonArray marks = new JsonArray();
        for (Mark mark : snapshot.marks()) {
            JsonObject m = new JsonObject();
            m.addProperty("sequence", mark.sequence());
            m.addProperty("timeNanos", Long.toString(mark.timeNanos()));
            m.addProperty("command", mark.isSnapshot() ? "snapshot" : "mark");
            m.addProperty("modifier", Long.toUnsignedString(mark.modifier()));
            m.addProperty("text", mark.text());
            snapshot.threads().stream().filter(t -> t.serial() == mark.threadSerial()).findFirst()
                    .ifPresent(t -> m.addProperty("lwp", t.lwp()));
            marks.add(m);
        }
        json.add("marks", marks);
        JsonArray devices = new JsonArray();
        history.devices(picture).forEach(activity -> {
            var device = activity.device();
            JsonObject d = new JsonObject();
            d.addProperty("device", device.deviceNumber());
            d.addProperty("type", device.type());
            d.addProperty("initializeTimeNanos", Long.toString(device.initializeTimeNanos()));
            device.finalizeTimeNanos().ifPresent(t -> d.addProperty("finalizeTimeNanos", Long.toString(t)));
            d.addProperty("loads", device.loads());
            d.addProperty("tracing", device.tracing().name().toLowerCase(Locale.ROOT));
            JsonArray entryPoints = new JsonArray();
            device.entryPoints().forEach(entryPoints::add);
            d.add("entryPoints", entryPoints);
            d.addProperty("targetRegions", activity.targetRegions());
            activity.lastTarget().ifPresent(last -> {
                JsonObject t = new JsonObject();
                t.addProperty("kind", last.kindName());
                t.addProperty("codeptr", Text.hex(last.codeReturnAddress()));
                t.addProperty("timeNanos", Long.toString(last.timeNanos()));
                activity.lastTargetThread().ifPresent(thread -> t.addProperty("lwp", thread.lwp()));
                d.add("lastTarget", t);
            });
            d.addProperty("summary", activity.summary());
            devices.add(d);
        });
        json.add("devices", devices);
        return json;
    }

    /** The tasks created and not started, with where each waits (schema: tasksNotStarted). */
    private static JsonObject tasksNotStarted(OpenMpPicture picture) {
        JsonArray tasks = new JsonArray();
        for (OpenMpPicture.NotStarted notStarted : picture.notStarted()) {
            JsonObject json = new JsonObject();
            json.add("task", task(picture.tasks().get(notStarted.taskId())));
            notStarted.creatorId().ifPresent(id -> json.addProperty("creator", id));
            json.addProperty("creatorAddress", Text.hex(notStarted.creator()));
            if (notStarted.queued()) {
                JsonObject queue = new JsonObject();
                queue.addProperty("gtid", notStarted.queueGtid().getAsLong());
                queue.addProperty("position", notStarted.position());
                json.add("queue", queue);
            } else {
                JsonObject waitsFor = new JsonObject();
                notStarted.predecessorId().ifPresent(id -> waitsFor.addProperty("task", id));
                waitsFor.addProperty("address", Text.hex(notStarted.predecessor()));
                waitsFor.addProperty("unmet", notStarted.unmet());
                json.add("waitsFor", waitsFor);
            }
            tasks.add(json);
        }
        JsonArray deques = new JsonArray();
        picture.queuedByGtid().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry -> {
            JsonObject deque = new JsonObject();
            deque.addProperty("gtid", entry.getKey());
            deque.addProperty("count", entry.getValue());
            deques.add(deque);
        });
        JsonObject json = new JsonObject();
        json.add("tasks", tasks);
        json.add("deques", deques);
        json.addProperty("notListed", picture.notStartedNotListed());
        return json;
    }

    private static JsonObject task(Task task) {
        JsonObject json = new JsonObject();
        json.addProperty("id", task.id());
        json.addProperty("address", Text.hex(task.address()));
        if (task.lightweightTeam() != 0) {
            json.addProperty("lightweightTeam", Text.hex(task.lightweightTeam()));
        }
        json.addProperty("kind", task.kind().name().toLowerCase(Locale.ROOT));
        json.addProperty("status", task.status().name().toLowerCase(Locale.ROOT));
        task.region().ifPresent(region -> json.addProperty("region", region));
        task.flags().ifPresent(flags -> json.add("flags", flags(flags)));
        task.function().ifPresent(function -> json.add("function", function(function)));
        task.frames().ifPresent(frames -> {
            JsonObject f = new JsonObject();
            f.addProperty("exitFrame", Text.hex(frames.exitFrame()));
            f.addProperty("exitFrameFlags", frames.exitFrameFlags());
            f.addProperty("enterFrame", Text.hex(frames.enterFrame()));
            f.addProperty("enterFrameFlags", frames.enterFrameFlags());
            json.add("frames", f);
        });
        task.toolData().ifPresent(data -> json.add("toolData", toolData(data)));
        json.add("icvs", strings(task.icvs()));
        return json;
    }

    private static JsonObject function(CodeLocation location) {
        JsonObject json = new JsonObject();
        json.addProperty("address", Text.hex(location.address()));
        location.symbol().ifPresent(symbol -> json.addProperty("symbol", symbol));
        json.addProperty("displayName", location.displayName());
        location.module().ifPresent(module -> json.addProperty("module", module));
        location.source().ifPresent(line -> json.addProperty("source", line));
        location.entryPoint().ifPresent(entry -> json.addProperty("entryPoint", Text.hex(entry)));
        location.entrySymbol().ifPresent(symbol -> json.addProperty("entrySymbol", symbol));
        location.resolvedBy().ifPresent(how -> json.addProperty("resolvedBy", how.description()));
        location.note().ifPresent(note -> json.addProperty("note", note));
        return json;
    }

    private static JsonObject flags(TaskHandle.TaskFlags flags) {
        JsonObject json = new JsonObject();
        json.addProperty("explicit", flags.explicit());
        json.addProperty("final", flags.isFinal());
        json.addProperty("tied", flags.tied());
        json.addProperty("started", flags.started());
        json.addProperty("executing", flags.executing());
        json.addProperty("complete", flags.complete());
        json.addProperty("taskSerial", flags.taskSerial());
        json.addProperty("teamSerial", flags.teamSerial());
        return json;
    }

    private static JsonObject toolData(ToolData data) {
        JsonObject json = new JsonObject();
        json.addProperty("value", Long.toUnsignedString(data.value()));
        json.addProperty("ptr", Text.hex(data.pointer()));
        return json;
    }

    private static JsonElement id(Optional<String> id) {
        return id.<JsonElement>map(JsonPrimitive::new).orElse(JsonNull.INSTANCE);
    }

    private static JsonArray numbers(List<Long> values) {
        JsonArray array = new JsonArray();
        values.forEach(array::add);
        return array;
    }

    private static JsonObject strings(Map<String, IcvReading> values) {
        JsonObject json = new JsonObject();
        values.forEach((name, reading) -> json.addProperty(name, Text.icv(reading)));
        return json;
    }
}
