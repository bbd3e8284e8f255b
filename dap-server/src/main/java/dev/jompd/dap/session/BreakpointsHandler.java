package dev.jompd.dap.session;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.jompd.dap.gdb.GdbDebugger;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * setBreakpoints, setFunctionBreakpoints and setExceptionBreakpoints: the client's whole set for a source
 * (or of functions) replaces the previous one. Before launch they are remembered and planted when gdb loads
 * the program.
 */
final class BreakpointsHandler implements RequestHandler {
    /** One requested breakpoint: a line or a function name, with its conditions. */
    record Requested(int line, String function, Optional<String> condition, Optional<String> hitCondition) {}

    record SourceBreakpointsArguments(String path, List<Requested> breakpoints) {
        static SourceBreakpointsArguments from(JsonObject args, boolean linesStartAt1) {
            JsonObject source = Arguments.object(args, "source");
            String path = Arguments.optionalString(source, "path").orElseThrow(() -> Arguments.invalid(
                    "setBreakpoints: source.path is required (sources without a path are not supported)"));
            List<Requested> requested = new ArrayList<>();
            JsonElement list = args.get("breakpoints");
            if (list != null && !list.isJsonNull()) {
                for (JsonObject breakpoint : objects(list, "setBreakpoints")) {
                    int line = Arguments.integer(breakpoint, "line");
                    requested.add(new Requested(linesStartAt1 ? line : line + 1, null,
                            Arguments.optionalString(breakpoint, "condition"),
                            Arguments.optionalString(breakpoint, "hitCondition")));
                }
            } else if (args.get("lines") instanceof JsonArray legacy) {
                for (JsonElement line : legacy) {
                    if (!(line instanceof JsonPrimitive number) || !number.isNumber()) {
                        throw Arguments.invalid("setBreakpoints: `lines` must hold numbers, not " + DapSession.abbreviate(line));
                    }
                    int value = Arguments.integer(wrapped(number), "line");
                    requested.add(new Requested(value + (linesStartAt1 ? 0 : 1), null, Optional.empty(),
                            Optional.empty()));
                }
            }
            return new SourceBreakpointsArguments(path, requested);
        }
    }

    record FunctionBreakpointsArguments(List<Requested> breakpoints) {
        static FunctionBreakpointsArguments from(JsonObject args) {
            JsonElement list = args.get("breakpoints");
            if (list == null || !list.isJsonArray()) {
                throw Arguments.invalid("setFunctionBreakpoints: breakpoints must be an array");
            }
            List<Requested> requested = new ArrayList<>();
            for (JsonObject breakpoint : objects(list, "setFunctionBreakpoints")) {
                String name = Arguments.optionalString(breakpoint, "name").filter(n -> !n.isBlank())
                        .orElseThrow(() -> Arguments.invalid("setFunctionBreakpoints: each breakpoint needs a name"));
                requested.add(new Requested(0, name, Arguments.optionalString(breakpoint, "condition"),
                        Arguments.optionalString(breakpoint, "hitCondition")));
            }
            return new FunctionBreakpointsArguments(requested);
        }
    }

    private static JsonObject wrapped(JsonPrimitive line) {
        JsonObject object = new JsonObject();
        object.add("line", line);
        return object;
    }

    private static List<JsonObject> objects(JsonElement list, String what) {
        if (!list.isJsonArray()) {
            throw Arguments.invalid(what + ": breakpoints must be an array");
        }
        List<JsonObject> objects = new ArrayList<>();
        for (JsonElement element : list.getAsJsonArray()) {
            if (!element.isJsonObject()) {
                throw Arguments.invalid(what + ": each breakpoint must be an object");
            }
            objects.add(element.getAsJsonObject());
        }
        return objects;
    }

    @Override
    public List<String> commands() {
        return List.of("setBreakpoints", "setFunctionBreakpoints", "setExceptionBreakpoints");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        session.requirePhase(command, DapSession.Phase.INITIALIZED, DapSession.Phase.STARTED);
        JsonObject body = new JsonObject();
        GdbDebugger gdb = session.debuggee() == null ? null : session.debuggee().debugger();
        switch (command) {
            case "setBreakpoints" -> {
                SourceBreakpointsArguments args = SourceBreakpointsArguments.from(arguments, session.linesStartAt1());
                var result = session.breakpoints.setSource(args.path(),
                        args.breakpoints().stream().map(b -> new int[] {b.line()}).toList(),
                        args.breakpoints().stream().map(Requested::condition).toList(),
                        args.breakpoints().stream().map(Requested::hitCondition).toList(), gdb);
                body.add("breakpoints", DapSession.GSON.toJsonTree(result));
            }
            case "setFunctionBreakpoints" -> {
                FunctionBreakpointsArguments args = FunctionBreakpointsArguments.from(arguments);
                var result = session.breakpoints.setFunctions(
                        args.breakpoints().stream().map(Requested::function).toList(),
                        args.breakpoints().stream().map(Requested::condition).toList(),
                        args.breakpoints().stream().map(Requested::hitCondition).toList(), gdb);
                body.add("breakpoints", DapSession.GSON.toJsonTree(result));
            }
            default -> body.add("breakpoints", new JsonArray()); // no exception filters are offered
        }
        return body;
    }
}
