package dev.jompd.cli;

import dev.jompd.core.ompd.CodeLocation;
import dev.jompd.core.ompd.FunctionNames;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.target.Symbolizer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * file:line of code addresses from the modules' DWARF, through binutils' addr2line (one run per module
 * for all addresses). Without addr2line, or without debug info, there is simply no line.
 */
public final class SourceLines {
    /** No lines at all (no addr2line run). */
    public static final SourceLines NONE = new SourceLines(List.of());

    private final Map<Long, String> lines = new HashMap<>();

    /** Resolves all {@code locations} at once. */
    public SourceLines(List<Symbolizer.Location> locations) {
        Map<Path, List<Symbolizer.Location>> byModule = new LinkedHashMap<>();
        for (Symbolizer.Location location : locations) {
            byModule.computeIfAbsent(location.modulePath(), k -> new ArrayList<>()).add(location);
        }
        byModule.forEach(this::resolve);
    }

    /**
     * The lines of every task function in {@code snapshot}, as the reports name them (the user's function
     * behind libomp's GOMP wrapper or clang's task thunk, {@link FunctionNames}).
     */
    public static SourceLines ofTasks(ProcessSnapshot snapshot, Symbolizer symbols) {
        try (FunctionNames names = new FunctionNames(symbols)) {
            return new SourceLines(snapshot.threads().stream()
                    .flatMap(thread -> thread.tasks().stream())
                    .map(names::ofTask).flatMap(Optional::stream)
                    .map(CodeLocation::location).flatMap(Optional::stream)
                    .distinct().toList());
        }
    }

    /** The full path and line, as addr2line prints it: {@code /src/nested.c:42}. */
    Optional<String> of(Symbolizer.Location location) {
        return Optional.ofNullable(lines.get(key(location)));
    }

    /** The file name and line only, for people: {@code nested.c:42}. */
    Optional<String> shortOf(Symbolizer.Location location) {
        return of(location).map(full -> full.substring(full.lastIndexOf('/') + 1));
    }

    private void resolve(Path module, List<Symbolizer.Location> locations) {
        if (!Files.isRegularFile(module)) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("addr2line", "-e", module.toString()));
        locations.forEach(location -> command.add("0x" + Long.toHexString(location.moduleOffset())));
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                return;
            }
            List<String> answers = output.lines().toList();
            for (int i = 0; i < Math.min(answers.size(), locations.size()); i++) {
                String answer = answers.get(i).replaceFirst(" \\(discriminator \\d+\\)$", "");
                if (!answer.startsWith("??")) {
                    lines.put(key(locations.get(i)), answer);
                }
            }
        } catch (IOException e) {
            // no addr2line: no lines
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long key(Symbolizer.Location location) {
        return location.modulePath().hashCode() * 31L + location.moduleOffset();
    }
}
