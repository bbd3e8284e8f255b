package dev.jompd.gdb;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What gdb says about its target with every request: which kind of target it is, the process, the
 * files, the selected thread, and two counters the Python side bumps on gdb's events — {@code stop}
 * (the inferior resumed or stopped: caches are stale) and {@code modules} (objfiles came or went).
 *
 * @param kind        core file, local live process, remote (gdbserver), or none
 * @param inferior    gdb's inferior number
 * @param pid         the process id (for a core: the one gdb reports), 0 when there is no process
 * @param executable  gdb's executable file, when it has one
 * @param coreFiles   for a core target: the core files gdb holds (usually one)
 * @param connection  gdb's connection, as it describes it ({@code remote 127.0.0.1:1234})
 * @param stop        gdb's stop counter
 * @param modules     gdb's objfile counter
 * @param selected    gdb's selected thread, when there is one
 * @param debugger    which debugger asks ({@code gdb}, or {@code lldb} for jompd_lldb.py): how its thread
 *                    numbers are headed and its reads named; absent in gdb's requests
 */
public record TargetContext(Kind kind, int inferior, long pid, Optional<Path> executable, List<Path> coreFiles,
                            String connection, long stop, long modules, Optional<SelectedThread> selected,
                            String debugger) {

    public enum Kind { CORE, LIVE, REMOTE, NONE }

    /** gdb's selected thread: its number, LWP and pthread_t (thread handle), when gdb knows them. */
    public record SelectedThread(int num, long lwp, OptionalLong pthread) {}

    public TargetContext {
        coreFiles = List.copyOf(coreFiles);
    }

    /** Identity of the target: a change means another process or file, so the engine opens it afresh. */
    public String identity() {
        return kind + "|" + inferior + "|" + pid + "|" + executable.map(Path::toString).orElse("") + "|"
                + coreFiles + "|" + connection;
    }

    public static TargetContext parse(JsonObject json) {
        if (json == null) {
            return new TargetContext(Kind.NONE, 0, 0, Optional.empty(), List.of(), "", 0, 0, Optional.empty(), "gdb");
        }
        Kind kind = switch (string(json, "target").orElse("none")) {
            case "core" -> Kind.CORE;
            case "live" -> Kind.LIVE;
            case "remote" -> Kind.REMOTE;
            default -> Kind.NONE;
        };
        List<Path> cores = new ArrayList<>();
        if (json.has("cores") && json.get("cores").isJsonArray()) {
            json.getAsJsonArray("cores").forEach(element -> cores.add(Path.of(element.getAsString())));
        }
        Optional<SelectedThread> selected = Optional.empty();
        if (json.has("thread") && json.get("thread").isJsonObject()) {
            JsonObject thread = json.getAsJsonObject("thread");
            selected = Optional.of(new SelectedThread(thread.get("num").getAsInt(),
                    number(thread, "lwp").orElse(0), number(thread, "pthread")));
        }
        return new TargetContext(kind, (int) number(json, "inferior").orElse(1), number(json, "pid").orElse(0),
                string(json, "executable").filter(s -> !s.isEmpty()).map(Path::of), cores,
                string(json, "connection").orElse(""), number(json, "stop").orElse(0),
                number(json, "modules").orElse(0), selected,
                string(json, "debugger").filter(TargetContext::isDebuggerName).orElse("gdb"));
    }

    /** A debugger's name as it may appear in a table's heading and a backend's name: a short lower-case word. */
    private static boolean isDebuggerName(String name) {
        return name.matches("[a-z][a-z0-9-]{0,15}");
    }

    static Optional<String> string(JsonObject json, String name) {
        JsonElement element = json.get(name);
        return element == null || element.isJsonNull() ? Optional.empty() : Optional.of(element.getAsString());
    }

    /** A number sent as a JSON number or as a "0x…" string (64-bit values do not survive JSON numbers). */
    static OptionalLong number(JsonObject json, String name) {
        JsonElement element = json.get(name);
        if (element == null || element.isJsonNull()) {
            return OptionalLong.empty();
        }
        String text = element.getAsString();
        return OptionalLong.of(text.startsWith("0x") ? Long.parseUnsignedLong(text.substring(2), 16) : Long.parseLong(text));
    }
}
