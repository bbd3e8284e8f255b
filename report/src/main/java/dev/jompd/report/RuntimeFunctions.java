package dev.jompd.report;

import dev.jompd.core.unwind.NativeFrame;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What libomp's functions (and the system's modules) mean on a thread's stack, as data: the resource
 * {@code libomp-functions.table}, one pattern per row. The one reading of runtime frames, for the diagnosis
 * ({@link ThreadWait}) and the parallel stacks' folded runs ({@link ParallelStacks}).
 */
final class RuntimeFunctions {
    /** What a function (or module) on the stack means. */
    enum Meaning {
        /** A worker waiting for its next region in the thread pool. */
        THREAD_POOL_IDLE,
        /** The barrier at the end of a region (workers in it; the primary thread in its join). */
        IMPLICIT_BARRIER,
        /** Any barrier's wait. */
        BARRIER_WAIT,
        TASKGROUP_END,
        TASK_WAIT,
        /** gcc's end of a worksharing loop: its implicit barrier ({@code GOMP_loop_end}). */
        LOOP_END,
        /** gcc's end of a sections construct: its implicit barrier ({@code GOMP_sections_end}). */
        SECTIONS_END,
        /** A taskyield: a task scheduling point where the thread may run another task. */
        TASKYIELD,
        /** Waiting for the thread's turn in an ordered region (iteration order). */
        ORDERED_WAIT,
        CRITICAL_WAIT,
        LOCK_ACQUIRE,
        /** libomp calls the program's code (an outlined region, a task, a teams region) from here. */
        INVOKE,
        /** libomp runs an explicit task from here. */
        INVOKE_TASK,
        /** The primary thread forks a region from here. */
        FORK_CALL,
        /** A worker thread's start in libomp. */
        THREAD_LAUNCH,
        /** An entry point the compiler calls ({@code __kmpc_*}). */
        ENTRY_POINT,
        /** A module of the C library or the dynamic linker (matched against module names). */
        SYSTEM_LIBRARY
    }

    /** One row: a meaning, whether it matches function or module names, and the pattern. */
    record Row(Meaning meaning, boolean module, Pattern pattern) {}

    private static final String RESOURCE = "libomp-functions.table";
    private static final List<Row> ROWS = parse(load());
    private static final Map<Meaning, List<Pattern>> BY_MEANING = byMeaning(ROWS);

    private RuntimeFunctions() {}

    /** Every row of the table, in order. */
    static List<Row> rows() {
        return ROWS;
    }

    /** Whether the function {@code name} means {@code meaning}. */
    static boolean is(String name, Meaning meaning) {
        for (Pattern pattern : BY_MEANING.get(meaning)) {
            if (pattern.matcher(name).find()) {
                return true;
            }
        }
        return false;
    }

    /** Whether some function of {@code names} means {@code meaning}. */
    static boolean any(List<String> names, Meaning meaning) {
        for (String name : names) {
            if (is(name, meaning)) {
                return true;
            }
        }
        return false;
    }

    /** A frame of the C library or the dynamic linker: below the program's own code, never its subject. */
    static boolean system(NativeFrame frame) {
        return frame.module().map(m -> is(m, Meaning.SYSTEM_LIBRARY)).orElse(false);
    }

    static List<Row> parse(String text) {
        List<Row> rows = new ArrayList<>();
        for (String line : text.lines().toList()) {
            String row = line.strip();
            if (row.isEmpty() || row.startsWith("#")) {
                continue;
            }
            String[] parts = row.split("\\s+", 3);
            if (parts.length != 3 || !(parts[1].equals("function") || parts[1].equals("module"))) {
                throw new IllegalArgumentException(RESOURCE + ": not MEANING function|module PATTERN: " + line);
            }
            rows.add(new Row(Meaning.valueOf(parts[0]), parts[1].equals("module"), Pattern.compile(parts[2])));
        }
        return List.copyOf(rows);
    }

    private static Map<Meaning, List<Pattern>> byMeaning(List<Row> rows) {
        Map<Meaning, List<Pattern>> patterns = new EnumMap<>(Meaning.class);
        for (Meaning meaning : Meaning.values()) {
            patterns.put(meaning, rows.stream().filter(r -> r.meaning() == meaning).map(Row::pattern).toList());
            if (patterns.get(meaning).isEmpty()) {
                throw new IllegalStateException(RESOURCE + " has no row for " + meaning);
            }
        }
        return patterns;
    }

    private static String load() {
        try (InputStream in = RuntimeFunctions.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
