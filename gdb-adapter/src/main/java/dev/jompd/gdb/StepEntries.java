package dev.jompd.gdb;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import dev.jompd.core.ompd.RuntimeEntryPoints;

import java.util.ArrayList;
import java.util.List;

/**
 * The engine's part of {@code ompd step} (jompd.py moves the thread; the rules are ompd-core's
 * {@link RuntimeEntryPoints}): the breakpoints, sent in the {@code hello}, and at each the entry point of
 * the code it starts, asked by the internal commands {@code region-entry} and {@code task-function}, and
 * from there the move at each stop on the way to the code's first line ({@code code-move}); and of
 * {@code ompd next}, the move at each stop of a step over that may leave the code ({@code leave-move}).
 */
final class StepEntries {
    private StepEntries() {}

    /**
     * What jompd.py needs to know before stepping, sent once in the hello: where regions and tasks start,
     * and how the runtime's library is named (stepped out of, never into).
     */
    static JsonObject hello() {
        JsonObject step = new JsonObject();
        step.add("regionStarts", array(RuntimeEntryPoints.REGION_STARTS));
        step.add("taskStarts", array(RuntimeEntryPoints.TASK_STARTS));
        step.addProperty("runtimeLibraryPrefix", RuntimeEntryPoints.RUNTIME_LIBRARY_PREFIX);
        return step;
    }

    /** At a region start (the argument: which), the selected thread stopped there: the region's entry ({@code 0x…}). */
    static String regionEntry(Views views, String arguments, GdbChannel gdb) {
        String function = arguments.strip();
        if (!RuntimeEntryPoints.isRegionStart(function)) {
            throw new BridgeException("region-entry: \"" + function + "\" is not where libomp starts a region's code");
        }
        JsonObject registers = selectedThreadRegisters(gdb);
        RuntimeEntryPoints.RegisterReader reader = name -> {
            JsonElement value = registers.get(name);
            if (value == null) {
                throw new BridgeException("region-entry: gdb did not read register " + name);
            }
            return Long.parseUnsignedLong(value.getAsString().substring(2), 16);
        };
        return views.hex(RuntimeEntryPoints.regionEntry(function, reader, views.target()::process));
    }

    /** At a task start, the selected thread stopped there: the entry point of the task it begins ({@code 0x…}). */
    static String taskFunction(Views views, String arguments, GdbChannel gdb) {
        return views.hex(RuntimeEntryPoints.taskEntry(views.handle(views.selectedThread())));
    }

    /**
     * The move at the last stop of a walk from the code's entry to its first line
     * ({@link RuntimeEntryPoints#codeMove}): {@code arrived}, {@code step} or {@code finish}. The argument is
     * the walk in JSON, one {@code [file, line, function entry's file, function entry's line]} per stop.
     */
    static String codeMove(Views views, String arguments, GdbChannel gdb) {
        try {
            return RuntimeEntryPoints.codeMove(walk(JsonParser.parseString(arguments).getAsJsonArray()))
                    .name().toLowerCase(java.util.Locale.ROOT);
        } catch (JsonParseException | IllegalStateException | IndexOutOfBoundsException
                 | UnsupportedOperationException | NumberFormatException e) {
            throw new BridgeException("code-move: not a walk of [file, line, entry file, entry line] stops: " + arguments);
        }
    }

    /**
     * The move at the last stop of {@code ompd next} ({@link RuntimeEntryPoints#leaveMove}): {@code arrived},
     * {@code next} or {@code finish}. The argument is {@code {"walk": [...], "inRuntime": b, "programCodeBelow": b}},
     * the walk (from where the step started) as for {@code code-move}.
     */
    static String leaveMove(Views views, String arguments, GdbChannel gdb) {
        try {
            JsonObject question = JsonParser.parseString(arguments).getAsJsonObject();
            return RuntimeEntryPoints.leaveMove(walk(question.getAsJsonArray("walk")),
                    question.get("inRuntime").getAsBoolean(), question.get("programCodeBelow").getAsBoolean())
                    .name().toLowerCase(java.util.Locale.ROOT);
        } catch (JsonParseException | IllegalStateException | IndexOutOfBoundsException | NullPointerException
                 | UnsupportedOperationException | NumberFormatException e) {
            throw new BridgeException("leave-move: not {\"walk\": [[file, line, entry file, entry line], ...], "
                    + "\"inRuntime\": true|false, \"programCodeBelow\": true|false}: " + arguments);
        }
    }

    private static List<RuntimeEntryPoints.CodeStop> walk(JsonArray stops) {
        List<RuntimeEntryPoints.CodeStop> walk = new ArrayList<>();
        for (JsonElement element : stops) {
            JsonArray stop = element.getAsJsonArray();
            walk.add(new RuntimeEntryPoints.CodeStop(
                    new RuntimeEntryPoints.SourceLine(stop.get(0).getAsString(), stop.get(1).getAsInt()),
                    new RuntimeEntryPoints.SourceLine(stop.get(2).getAsString(), stop.get(3).getAsInt())));
        }
        return walk;
    }

    private static JsonObject selectedThreadRegisters(GdbChannel gdb) {
        JsonObject answer = gdb.ask("registers", question -> {
            question.add("names", array(RuntimeEntryPoints.REGISTERS_READ));
            question.addProperty("selected", true);
        });
        JsonArray threads = answer.getAsJsonArray("threads");
        if (threads == null || threads.isEmpty()) {
            throw new BridgeException("region-entry: gdb has no selected thread");
        }
        return threads.get(0).getAsJsonObject().getAsJsonObject("registers");
    }

    private static JsonArray array(Iterable<String> values) {
        JsonArray array = new JsonArray();
        values.forEach(array::add);
        return array;
    }
}
