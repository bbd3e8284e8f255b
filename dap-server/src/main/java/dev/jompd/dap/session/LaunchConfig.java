package dev.jompd.dap.session;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.jompd.core.launch.OpenMpLaunch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A launch or attach request's arguments, with the attribute names VS Code's C/C++ users already write:
 * {@code program}, {@code args}, {@code cwd}, {@code environment}, {@code coreDumpPath}, {@code processId},
 * {@code miDebuggerPath}, {@code stopOnEntry}, {@code setupCommands}; plus {@code gdbTimeout} (ms) and
 * {@code openmpRuntime} ({@code "jompd"} or {@code "program"}: which OpenMP runtime a launched program runs on) and
 * {@code recorder} ({@code true}: the launched program runs with the jompd-recorder, an OMPT tool).
 * Each attribute's type is checked, with a message naming it.
 */
public record LaunchConfig(Kind kind, Optional<Path> program, List<String> args, Optional<Path> cwd,
                           Map<String, String> environment, Optional<Path> core, OptionalLong processId,
                           String gdbPath, boolean stopOnEntry, Duration gdbTimeout, List<SetupCommand> setupCommands,
                           OpenMpLaunch.RuntimeChoice openmpRuntime, boolean recorder) {

    /** Run the program, attach to a process, or open a core file (post-mortem). */
    public enum Kind { LAUNCH, ATTACH, CORE }

    /**
     * One of cppdbg's setupCommands: gdb's command (an MI command when it starts with {@code -}, as the
     * {@code -enable-pretty-printing} and {@code -gdb-set disassembly-flavor intel} of VS Code's C/C++ launch
     * configurations; else a console command), and whether its failure is only told, not the launch's end.
     */
    public record SetupCommand(String text, boolean ignoreFailures) {
        public boolean mi() {
            return text.startsWith("-");
        }
    }

    static final Duration DEFAULT_GDB_TIMEOUT = Duration.ofSeconds(30);

    public static LaunchConfig launch(JsonObject arguments, String defaultGdb) {
        Optional<Path> core = path(arguments, "coreDumpPath");
        Optional<Path> program = path(arguments, "program");
        if (core.isEmpty() && program.isEmpty()) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "launch: `program` is required (the executable to debug)");
        }
        core.ifPresent(file -> requireFile(file, "coreDumpPath"));
        program.ifPresent(file -> requireFile(file, "program"));
        Optional<Path> cwd = path(arguments, "cwd");
        cwd.ifPresent(directory -> {
            if (!Files.isDirectory(directory)) {
                throw new DapException(ErrorId.LAUNCH_FAILED, "launch: `cwd` " + directory + " is not a directory");
            }
        });
        return new LaunchConfig(core.isPresent() ? Kind.CORE : Kind.LAUNCH, program, strings(arguments, "args"), cwd,
                environment(arguments), core, OptionalLong.empty(), gdbPath(arguments, defaultGdb),
                bool(arguments, "stopOnEntry", false), timeout(arguments), setupCommands(arguments), openmpRuntime(arguments),
                core.isEmpty() && bool(arguments, "recorder", false));
    }

    /**
     * {@code openmpRuntime}: {@code "jompd"} runs the program on jompd's OMPD-enabled libomp, {@code "program"}
     * on its own runtime; absent: jompd's when the program was built for GCC's libgomp ({@link OpenMpLaunch#decide}).
     */
    private static OpenMpLaunch.RuntimeChoice openmpRuntime(JsonObject arguments) {
        JsonElement value = arguments.get("openmpRuntime");
        if (value == null || value.isJsonNull()) {
            return OpenMpLaunch.RuntimeChoice.AUTO;
        }
        String text = value.isJsonPrimitive() ? value.getAsString() : "";
        return switch (text) {
            case "jompd" -> OpenMpLaunch.RuntimeChoice.JOMPD;
            case "program" -> OpenMpLaunch.RuntimeChoice.PROGRAM;
            default -> throw new DapException(ErrorId.LAUNCH_FAILED, "launch: `openmpRuntime` must be \"jompd\" or \"program\", not " + value);
        };
    }

    public static LaunchConfig attach(JsonObject arguments, String defaultGdb) {
        JsonElement id = arguments.get("processId");
        long pid;
        if (id == null || id.isJsonNull()) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "attach: `processId` is required (the process to attach to)");
        } else if (id.isJsonPrimitive() && (id.getAsJsonPrimitive().isNumber() || id.getAsJsonPrimitive().isString())) {
            try {
                pid = Long.parseLong(id.getAsString().trim());
            } catch (NumberFormatException e) {
                throw new DapException(ErrorId.LAUNCH_FAILED, "attach: `processId` must be a process id, not " + id);
            }
        } else {
            throw new DapException(ErrorId.LAUNCH_FAILED, "attach: `processId` must be a number, not " + id);
        }
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "attach: `processId` " + pid + " is not a process id");
        }
        Optional<Path> program = path(arguments, "program");
        program.ifPresent(file -> requireFile(file, "program"));
        return new LaunchConfig(Kind.ATTACH, program, List.of(), Optional.empty(), Map.of(), Optional.empty(),
                OptionalLong.of(pid), gdbPath(arguments, defaultGdb), bool(arguments, "stopOnEntry", true), timeout(arguments),
                setupCommands(arguments), OpenMpLaunch.RuntimeChoice.PROGRAM, false);
    }

    private static void requireFile(Path file, String attribute) {
        if (!Files.isRegularFile(file)) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "`" + attribute + "` " + file + " does not exist or is not a file");
        }
    }

    private static String gdbPath(JsonObject arguments, String defaultGdb) {
        return string(arguments, "miDebuggerPath").filter(s -> !s.isBlank()).orElse(defaultGdb);
    }

    private static Duration timeout(JsonObject arguments) {
        JsonElement value = arguments.get("gdbTimeout");
        if (value == null || value.isJsonNull()) {
            return DEFAULT_GDB_TIMEOUT;
        }
        if (!isNumber(value) || value.getAsLong() < 100 || value.getAsLong() > 3_600_000) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "`gdbTimeout` must be a number of milliseconds between 100 and 3600000, not " + value);
        }
        return Duration.ofMillis(value.getAsLong());
    }

    private static boolean isNumber(JsonElement value) {
        return value.isJsonPrimitive() && value.getAsJsonPrimitive().isNumber();
    }

    static Optional<String> string(JsonObject arguments, String name) {
        JsonElement value = arguments.get(name);
        if (value == null || value.isJsonNull()) {
            return Optional.empty();
        }
        if (!value.isJsonPrimitive() || !value.getAsJsonPrimitive().isString()) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "`" + name + "` must be a string, not " + abbreviate(value));
        }
        return Optional.of(value.getAsString());
    }

    private static Optional<Path> path(JsonObject arguments, String name) {
        return string(arguments, name).filter(s -> !s.isBlank()).map(s -> Path.of(s).toAbsolutePath().normalize());
    }

    /** A true/false attribute; {@code absent} when it is not given (the default package.json documents). */
    private static boolean bool(JsonObject arguments, String name, boolean absent) {
        JsonElement value = arguments.get(name);
        if (value == null || value.isJsonNull()) {
            return absent;
        }
        if (!value.isJsonPrimitive() || !value.getAsJsonPrimitive().isBoolean()) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "`" + name + "` must be true or false, not " + abbreviate(value));
        }
        return value.getAsBoolean();
    }

    private static List<String> strings(JsonObject arguments, String name) {
        JsonElement value = arguments.get(name);
        if (value == null || value.isJsonNull()) {
            return List.of();
        }
        if (!value.isJsonArray()) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "`" + name + "` must be an array of strings, not " + abbreviate(value));
        }
        List<String> list = new ArrayList<>();
        for (JsonElement element : value.getAsJsonArray()) {
            if (!element.isJsonPrimitive()) {
                throw new DapException(ErrorId.LAUNCH_FAILED, "`" + name + "` must be an array of strings; it holds " + abbreviate(element));
            }
            list.add(element.getAsString());
        }
        return List.copyOf(list);
    }

    /** {@code environment}: cppdbg's [{name, value}] list, or an object {NAME: value}. */
    private static Map<String, String> environment(JsonObject arguments) {
        JsonElement value = arguments.has("environment") ? arguments.get("environment") : arguments.get("env");
        Map<String, String> environment = new LinkedHashMap<>();
        if (value == null || value.isJsonNull()) {
            return environment;
        }
        if (value.isJsonObject()) {
            for (var entry : value.getAsJsonObject().entrySet()) {
                if (!entry.getValue().isJsonPrimitive()) {
                    throw new DapException(ErrorId.LAUNCH_FAILED, "`environment`: the value of " + entry.getKey() + " must be a string");
                }
                environment.put(entry.getKey(), entry.getValue().getAsString());
            }
            return environment;
        }
        if (!value.isJsonArray()) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "`environment` must be a list of {\"name\", \"value\"} objects, not " + abbreviate(value));
        }
        for (JsonElement element : value.getAsJsonArray()) {
            if (!element.isJsonObject() || !(element.getAsJsonObject().get("name") instanceof JsonPrimitive name)
                    || name.getAsString().isEmpty() || name.getAsString().contains("=")) {
                throw new DapException(ErrorId.LAUNCH_FAILED, "`environment` entries must be {\"name\": \"NAME\", \"value\": \"...\"}, not "
                        + abbreviate(element));
            }
            JsonElement entryValue = element.getAsJsonObject().get("value");
            if (entryValue != null && !entryValue.isJsonNull() && !entryValue.isJsonPrimitive()) {
                throw new DapException(ErrorId.LAUNCH_FAILED, "`environment`: the value of " + name.getAsString()
                        + " must be a string, not " + abbreviate(entryValue));
            }
            environment.put(name.getAsString(), entryValue == null || entryValue.isJsonNull() ? "" : entryValue.getAsString());
        }
        return environment;
    }

    /** cppdbg's setupCommands: [{"text": "...", "ignoreFailures": true|false, ...}] or plain strings. */
    private static List<SetupCommand> setupCommands(JsonObject arguments) {
        JsonElement value = arguments.get("setupCommands");
        if (value == null || value.isJsonNull()) {
            return List.of();
        }
        if (!value.isJsonArray()) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "`setupCommands` must be an array");
        }
        List<SetupCommand> commands = new ArrayList<>();
        for (JsonElement element : (JsonArray) value) {
            if (element.isJsonPrimitive()) {
                commands.add(new SetupCommand(element.getAsString(), false));
            } else if (element.isJsonObject() && element.getAsJsonObject().get("text") instanceof JsonPrimitive text) {
                JsonElement ignore = element.getAsJsonObject().get("ignoreFailures");
                if (ignore != null && !(ignore instanceof JsonPrimitive primitive && primitive.isBoolean())) {
                    throw new DapException(ErrorId.LAUNCH_FAILED, "`setupCommands` entries' `ignoreFailures` must be true or false, not "
                            + abbreviate(ignore));
                }
                commands.add(new SetupCommand(text.getAsString(), ignore != null && ignore.getAsBoolean()));
            } else {
                throw new DapException(ErrorId.LAUNCH_FAILED, "`setupCommands` entries must be strings or {\"text\": \"...\"}, not " + abbreviate(element));
            }
        }
        return List.copyOf(commands);
    }

    private static String abbreviate(JsonElement value) {
        String text = value.toString();
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }
}
