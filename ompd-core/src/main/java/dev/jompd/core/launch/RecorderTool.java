package dev.jompd.core.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The jompd-recorder (an OMPT tool library, {@code libjompd-recorder.so}) for a program jompd starts:
 * {@code jompd run --recorder} and a debugger's launch with {@code "recorder": true}. The library is
 * {@code $JOMPD_RECORDER} (the library or its directory), else what the shipped {@code jompd-recorder}
 * script prints: it builds the library from the shipped sources on first use (about a second) into the
 * cache, once per source content. The program loads it the standard way, {@code OMP_TOOL_LIBRARIES}
 * (OpenMP 5.1 §4.2.1); {@code JOMPD_RECORDER_EVENTS} (events kept per thread) passes through untouched.
 */
public final class RecorderTool {
    /** The library's file name. */
    public static final String LIBRARY = "libjompd-recorder.so";
    /** The script that prints the library's path, building it on first use. */
    public static final String SCRIPT = "jompd-recorder";

    private RecorderTool() {}

    /**
     * The {@code jompd-recorder} script for a program whose code lives under {@code home}: a distribution's
     * {@code bin/}, else {@code recorder/} of the source tree above it (a build tree's classes or jars).
     */
    public static Path script(Path home) {
        Path shipped = home.resolve("bin").resolve(SCRIPT);
        if (Files.isRegularFile(shipped)) {
            return shipped;
        }
        Path at = home.toAbsolutePath();
        for (int up = 0; up < 5 && at != null; up++, at = at.getParent()) {
            Path sources = at.resolve("recorder").resolve(SCRIPT);
            if (Files.isRegularFile(sources) && Files.isRegularFile(sources.resolveSibling("recorder.c"))) {
                return sources;
            }
        }
        return shipped;
    }

    /**
     * The recorder library: {@code $JOMPD_RECORDER}, else the one {@code script} prints (building it once),
     * with the script's own messages going to {@code log}.
     *
     * @throws IllegalStateException saying why there is none (no script, no compiler, no omp-tools.h)
     */
    public static Path library(Path script, Map<String, String> environment, Consumer<String> log) {
        String explicit = environment.get("JOMPD_RECORDER");
        if (explicit != null && !explicit.isEmpty()) {
            Path given = Path.of(explicit);
            for (Path candidate : List.of(given, given.resolve(LIBRARY))) {
                if (Files.isRegularFile(candidate)) {
                    return candidate.toAbsolutePath();
                }
            }
            throw new IllegalStateException("JOMPD_RECORDER=" + explicit + " holds no " + LIBRARY);
        }
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("the jompd-recorder cannot be built: " + script + " is missing (set "
                    + "JOMPD_RECORDER to a built " + LIBRARY + ")");
        }
        ProcessBuilder builder = new ProcessBuilder("bash", script.toString());
        builder.environment().clear();
        builder.environment().putAll(environment);
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        try {
            Process process = builder.start();
            // The script prints the path on stdout and the compiler's messages on stderr: read both.
            List<String> errors = new ArrayList<>();
            Thread stderr = Thread.ofVirtual().start(() -> {
                try (var lines = process.errorReader(StandardCharsets.UTF_8)) {
                    lines.lines().forEach(line -> {
                        synchronized (errors) {
                            errors.add(line);
                        }
                        log.accept(line);
                    });
                } catch (IOException | java.io.UncheckedIOException ignored) {
                    // the process ended; what it said is in errors
                }
            });
            String output;
            try (var out = process.inputReader(StandardCharsets.UTF_8)) {
                output = out.lines().reduce((first, second) -> second).orElse("").strip();
            }
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(script + " did not finish within 5 minutes");
            }
            stderr.join(java.time.Duration.ofSeconds(5));
            Path library = output.isEmpty() ? null : Path.of(output);
            if (process.exitValue() != 0 || library == null || !Files.isRegularFile(library)) {
                String said;
                synchronized (errors) {
                    said = errors.isEmpty() ? "" : ": " + String.join(" ", errors.subList(Math.max(0, errors.size() - 3), errors.size()));
                }
                throw new IllegalStateException("the jompd-recorder could not be built (" + script + " exit "
                        + process.exitValue() + ")" + said);
            }
            return library;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + script + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building the jompd-recorder", e);
        }
    }

    /**
     * {@code base} with the recorder loaded: {@code OMP_TOOL_LIBRARIES} naming it first (a tool listed
     * there already comes after it; libomp starts the first whose {@code ompt_start_tool} accepts, so that
     * one no longer runs) and {@code OMP_TOOL} enabled.
     */
    public static Map<String, String> environment(Map<String, String> base, Path library) {
        Map<String, String> environment = new LinkedHashMap<>(base);
        String existing = base.get("OMP_TOOL_LIBRARIES");
        environment.put("OMP_TOOL_LIBRARIES", library + (existing == null || existing.isBlank() ? "" : ":" + existing));
        if (base.containsKey("OMP_TOOL")) {
            environment.put("OMP_TOOL", "enabled");
        }
        return environment;
    }

    /** What to tell the user about the recorder's loading (empty when there is nothing more than that it runs). */
    public static String notice(Map<String, String> base, Path library) {
        String existing = base.get("OMP_TOOL_LIBRARIES");
        String displaced = existing == null || existing.isBlank() ? ""
                : "; OMP_TOOL_LIBRARIES named " + existing + " too, which libomp no longer starts (one tool at a time)";
        String tool = base.containsKey("OMP_TOOL") && !"enabled".equals(base.get("OMP_TOOL")) ? "; OMP_TOOL set to enabled" : "";
        return "the jompd-recorder records what OpenMP does (" + library + ", "
                + base.getOrDefault("JOMPD_RECORDER_EVENTS", "1024") + " events per thread)" + displaced + tool;
    }
}
