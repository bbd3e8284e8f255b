package dev.jompd.cli;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.ompd.ToolData;
import dev.jompd.core.ompd.FunctionNames;
import dev.jompd.core.target.Symbolizer;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The report as one JSON document, schema {@value #SCHEMA} (documented in the README). Addresses are
 * "0x…" strings (64-bit values do not survive JSON numbers); regions are referred to by their id.
 */
public final class JsonReport {
    public static final String SCHEMA = "jompd-inspect/1";

    private JsonReport() {}

    /** The report without source lines, with the notices the snapshot itself calls for. */
    public static String render(TargetDescription target, ProcessSnapshot snapshot, Symbolizer symbols) {
        return render(target, snapshot, symbols, SourceLines.NONE, InspectCommand.notices(snapshot));
    }

    /** The report as {@code jompd inspect --json} prints it: with source lines and the snapshot's notices. */
    public static String render(TargetDescription target, ProcessSnapshot snapshot, Symbolizer symbols, SourceLines lines) {
        return render(target, snapshot, symbols, lines, InspectCommand.notices(snapshot));
    }

    /** The report with {@code file:line} of task functions and the given notices. */
    public static String render(TargetDescription target, ProcessSnapshot snapshot, Symbolizer symbols,
                                SourceLines lines, java.util.List<String> notices) {
        JsonObject root = new JsonObject();
        root.addProperty("schema", SCHEMA);
        JsonObject targetJson = new JsonObject();
        targetJson.addProperty("kind", target.kind());
        targetJson.addProperty("name", target.name());
        targetJson.addProperty("runtime", target.runtime());
        targetJson.addProperty("ompVersion", snapshot.ompVersion());
        root.add("target", targetJson);
        root.add("icvs", strings(snapshot.processIcvs()));
        JsonArray controls = new JsonArray();
        snapshot.controlVariables().forEach(controls::add);
        root.add("displayControlVariables", controls);

        Map<String, String> ids = regionIds(snapshot);
        JsonArray regions = new JsonArray();
        for (ProcessSnapshot.RegionView region : snapshot.regions().values()) {
            JsonObject json = new JsonObject();
            json.addProperty("id", ids.get(region.key()));
            json.addProperty("level", region.level());
            json.addProperty("activeLevel", region.activeLevel());
            json.addProperty("teamSize", region.teamSize());
            // OpenMP: a region executed by a team of one thread is inactive (serialized).
            json.addProperty("serialized", region.level() > 0 && region.teamSize() == 1);
            json.add("enclosing", region.enclosing().map(ids::get).map(id -> (com.google.gson.JsonElement)
                    new com.google.gson.JsonPrimitive(id)).orElse(JsonNull.INSTANCE));
            json.add("toolData", toolData(region.toolData()));
            json.add("icvs", strings(region.icvs()));
            regions.add(json);
        }
        root.add("regions", regions);

        JsonArray threads = new JsonArray();
        try (FunctionNames names = new FunctionNames(symbols)) {
        for (ProcessSnapshot.ThreadView thread : snapshot.threads()) {
            JsonObject json = new JsonObject();
            json.addProperty("gtid", thread.gtid());
            if (thread.lwp().isPresent()) {
                json.addProperty("lwp", thread.lwp().getAsLong());
            }
            json.addProperty("pthread", hex(thread.pthread()));
            json.addProperty("threadNum", thread.threadNum());
            json.addProperty("state", thread.state());
            json.addProperty("waitId", hex(thread.waitId()));
            json.add("region", thread.region().map(ids::get).map(id -> (com.google.gson.JsonElement)
                    new com.google.gson.JsonPrimitive(id)).orElse(JsonNull.INSTANCE));
            json.add("toolData", toolData(thread.toolData()));
            json.add("icvs", strings(thread.icvs()));
            JsonArray tasks = new JsonArray();
            for (ProcessSnapshot.TaskView task : thread.tasks()) {
                tasks.add(task(task, symbols, names, lines));
            }
            json.add("tasks", tasks);
            threads.add(json);
        }
        }
        root.add("threads", threads);
        JsonArray noticesJson = new JsonArray();
        notices.forEach(noticesJson::add);
        root.add("notices", noticesJson);
        JsonArray problems = new JsonArray();
        snapshot.problems().forEach(problems::add);
        root.add("problems", problems);
        return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(root);
    }

    /** r0, r1, … in the snapshot's order (innermost regions of the first thread first). */
    static Map<String, String> regionIds(ProcessSnapshot snapshot) {
        Map<String, String> ids = new LinkedHashMap<>();
        for (String key : snapshot.regions().keySet()) {
            ids.put(key, "r" + ids.size());
        }
        return ids;
    }

    private static JsonObject task(ProcessSnapshot.TaskView task, Symbolizer symbols, FunctionNames names,
                                   SourceLines lines) {
        JsonObject json = new JsonObject();
        json.addProperty("address", hex(task.address()));
        if (task.lightweightTeam() != 0) {
            json.addProperty("lightweightTeam", hex(task.lightweightTeam()));
        }
        task.flags().ifPresent(flags -> json.add("flags", flags(flags)));
        names.ofTask(task).ifPresent(code -> {
            // The user's code (main._omp_fn.0 behind libomp's GOMP wrapper, the task function behind clang's
            // .omp_task_entry.); the runtime's own entry point beside it when they differ.
            JsonObject function = new JsonObject();
            function.addProperty("address", hex(code.address()));
            code.symbol().ifPresent(symbol -> function.addProperty("symbol", symbol));
            code.location().ifPresent(location -> {
                function.addProperty("name", code.displayName());
                function.addProperty("module", location.module());
                lines.of(location).ifPresent(line -> function.addProperty("source", line));
            });
            if (code.resolved()) {
                function.addProperty("entryPoint", hex(code.entryPoint()));
                symbols.locate(code.entryPoint()).ifPresent(entry -> function.addProperty("entrySymbol", entry.toString()));
                function.addProperty("resolvedBy", code.resolution().description());
            }
            code.note().ifPresent(note -> function.addProperty("note", note));
            json.add("function", function);
        });
        task.frames().ifPresent(frames -> {
            JsonObject f = new JsonObject();
            f.addProperty("exitFrame", hex(frames.exitFrame()));
            f.addProperty("exitFrameFlags", frames.exitFrameFlags());
            f.addProperty("enterFrame", hex(frames.enterFrame()));
            f.addProperty("enterFrameFlags", frames.enterFrameFlags());
            json.add("frames", f);
        });
        task.toolData().ifPresent(data -> json.add("toolData", toolData(data)));
        json.add("icvs", strings(task.icvs()));
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
        json.addProperty("ptr", hex(data.pointer()));
        return json;
    }

    private static JsonObject strings(Map<String, String> values) {
        JsonObject json = new JsonObject();
        values.forEach(json::addProperty);
        return json;
    }

    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }
}
