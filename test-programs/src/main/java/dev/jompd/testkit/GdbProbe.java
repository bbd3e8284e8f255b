package dev.jompd.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Ground truth from debug information: gdb evaluates C expressions over the runtime's DWARF on a
 * core (for example {@code __kmp_threads[0]->th.th_info.ds.ds_tid}). Nothing of jompd is involved,
 * so tests can check jompd against it. One gdb run answers a whole batch of expressions.
 */
public final class GdbProbe {
    private static final String SCRIPT = """
            import gdb
            out = open(OUT_PATH, "w")
            def esc(s):
                return s.replace("\\\\", "\\\\\\\\").replace("\\n", "\\\\n").replace("\\t", "\\\\t")
            def value_text(v):
                code = v.type.strip_typedefs().code
                if code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_CHAR):
                    return str(int(v))
                if code == gdb.TYPE_CODE_PTR:
                    return str(int(v.cast(gdb.lookup_type("unsigned long"))))
                return str(v)
            def evaluate_all(lwp):
                for i, e in enumerate(EXPRESSIONS):
                    try:
                        out.write("R\\t%d\\t%d\\tok\\t%s\\n" % (lwp, i, esc(value_text(gdb.parse_and_eval(e)))))
                    except Exception as ex:
                        out.write("R\\t%d\\t%d\\terr\\t%s\\n" % (lwp, i, esc(str(ex))))
            if PER_THREAD:
                for t in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
                    t.switch()
                    evaluate_all(t.ptid[1])
            else:
                evaluate_all(0)
            out.close()
            """;

    /** Every thread's frames, innermost first, by gdb's unwinder: name, function start, its line. */
    private static final String BACKTRACE_SCRIPT = """
            import gdb
            out = open(OUT_PATH, "w")
            for t in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
                t.switch()
                f = gdb.newest_frame()
                depth = 0
                while f is not None and depth < 256:
                    name = f.name() or "??"
                    start = 0
                    line = 0
                    fname = ""
                    try:
                        fn = f.function()
                        if fn is not None:
                            start = int(fn.value().address)
                            sal = gdb.find_pc_line(start)
                            line = sal.line
                            fname = sal.symtab.filename if sal.symtab else ""
                    except Exception:
                        pass
                    here = 0
                    hfile = ""
                    try:
                        sal = f.find_sal()
                        if sal.symtab is not None:
                            here = sal.line
                            hfile = sal.symtab.filename
                    except Exception:
                        pass
                    out.write("F\\t%d\\t%d\\t%s\\t%d\\t%d\\t%s\\t%d\\t%s\\n" % (t.ptid[1], depth, name, start, line, fname, here, hfile))
                    depth += 1
                    try:
                        f = f.older()
                    except Exception:
                        f = None
            out.close()
            """;

    /** The source line of each address, as gdb's {@code info line *ADDRESS} finds it in the line tables. */
    private static final String LINES_SCRIPT = """
            import gdb
            out = open(OUT_PATH, "w")
            for a in ADDRESSES:
                sal = gdb.find_pc_line(a)
                if sal.symtab is not None and sal.line > 0:
                    out.write("L\\t%d\\t%s:%d\\n" % (a, sal.symtab.fullname(), sal.line))
            out.close()
            """;

    /**
     * One frame of a thread as gdb unwinds it from DWARF CFI: its function's name, start address and line
     * ({@code line}, {@code file}: where the function begins), and where the frame is ({@code frameLine},
     * {@code frameFile}: the line gdb's {@code bt} prints, 0 and empty without line information).
     */
    public record Frame(String function, long functionStart, int line, String file, int frameLine, String frameFile) {
        /** {@code barrier_straggler.c:81}: the frame's file name (no directory) and line, as gdb's {@code bt} has them. */
        public String frameSource() {
            return frameFile.substring(frameFile.lastIndexOf('/') + 1) + ":" + frameLine;
        }
    }

    private final Path executable;
    private final Path core;

    private GdbProbe(Path executable, Path core) {
        this.executable = executable;
        this.core = core;
    }

    public static GdbProbe onCore(Path executable, Path core) {
        return new GdbProbe(executable, core);
    }

    /** One evaluation: the value as gdb prints it (integers and pointers in decimal), or gdb's error. */
    public record Value(String expression, Optional<String> text, Optional<String> error) {
        public String orThrow() {
            return text.orElseThrow(() -> new IllegalStateException("gdb cannot evaluate " + expression + ": "
                    + error.orElse("?")));
        }

        /** The value as a number (gdb's decimal text), for integers, enums, booleans and pointers. */
        public long asLong() {
            // gdb prints unsigned 64-bit values above Long.MAX_VALUE too: keep their bits.
            return new java.math.BigInteger(orThrow().trim()).longValue();
        }
    }

    /** Evaluates each expression in the core's first thread. */
    public Map<String, Value> evaluate(List<String> expressions) {
        return run(expressions, false).getOrDefault(0L, Map.of());
    }

    public Value evaluate(String expression) {
        return evaluate(List.of(expression)).get(expression);
    }

    /** Evaluates each expression in every thread of the core: LWP → expression → value. */
    public Map<Long, Map<String, Value>> evaluatePerThread(List<String> expressions) {
        return run(expressions, true);
    }

    /**
     * libomp's own list of its threads, read through its symbols: each non-null {@code __kmp_threads[gtid]} with
     * the LWP of the thread whose pthread ({@code $fs_base} on x86-64) is that entry's {@code ds_thread}: gtid → LWP.
     * Idle pool threads are there too (the program records only the threads it runs).
     */
    public Map<Long, Long> openMpThreads() {
        long capacity = evaluate("__kmp_threads_capacity").asLong();
        List<String> slots = new java.util.ArrayList<>();
        for (long gtid = 0; gtid < capacity; gtid++) {
            slots.add("(long)__kmp_threads[" + gtid + "]");
        }
        Map<String, Value> entries = evaluate(slots);
        Map<Long, String> pthreads = new java.util.TreeMap<>();
        for (long gtid = 0; gtid < capacity; gtid++) {
            if (entries.get(slots.get((int) gtid)).asLong() != 0) {
                pthreads.put(gtid, "(long)__kmp_threads[" + gtid + "]->th.th_info.ds.ds_thread");
            }
        }
        Map<String, Value> pthreadOfEntry = evaluate(List.copyOf(pthreads.values()));
        Map<Long, Long> lwpOfPthread = new java.util.HashMap<>();
        evaluatePerThread(List.of("(long)$fs_base")).forEach((lwp, values) ->
                lwpOfPthread.put(values.get("(long)$fs_base").asLong(), lwp));
        Map<Long, Long> threads = new java.util.TreeMap<>();
        for (Map.Entry<Long, String> entry : pthreads.entrySet()) {
            long gtid = entry.getKey();
            long pthread = pthreadOfEntry.get(entry.getValue()).asLong();
            Long lwp = lwpOfPthread.get(pthread);
            if (lwp == null) {
                throw new IllegalStateException("__kmp_threads[" + gtid + "]'s pthread 0x" + Long.toHexString(pthread)
                        + " is no thread of the core " + core);
            }
            threads.put(gtid, lwp);
        }
        return threads;
    }

    /** Every thread's backtrace, innermost frame first: LWP → frames. */
    public Map<Long, List<Frame>> backtraces() {
        Fixtures.requireTool("gdb");
        try {
            Path scratch = Files.createTempDirectory("jompd-gdbprobe");
            try {
                Path out = scratch.resolve("out.tsv");
                Path script = scratch.resolve("bt.py");
                Files.writeString(script, "OUT_PATH = " + pythonString(out.toString()) + "\n" + BACKTRACE_SCRIPT);
                Commands.Result result = Commands.run(List.of("gdb", "-batch", "-nx",
                        "-ex", "set pagination off", "-ex", "set print thread-events off",
                        executable.toString(), core.toString(), "-x", script.toString()),
                        Map.of(), null, Duration.ofMinutes(5));
                if (!Files.exists(out)) {
                    throw new IllegalStateException("gdb backtraces produced nothing:\n" + result.output());
                }
                Map<Long, List<Frame>> frames = new LinkedHashMap<>();
                for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                    String[] fields = line.split("\t", 9);
                    if (fields.length == 9 && fields[0].equals("F")) {
                        frames.computeIfAbsent(Long.parseLong(fields[1]), k -> new java.util.ArrayList<>())
                                .add(new Frame(fields[3], Long.parseLong(fields[4]), Integer.parseInt(fields[5]), fields[6],
                                        Integer.parseInt(fields[7]), fields[8]));
                    }
                }
                return frames;
            } finally {
                try (var files = Files.walk(scratch)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The full path and line gdb finds for each code address ({@code /src/tasks.c:40}); an address without
     * a line is absent.
     */
    public Map<Long, String> sourceLines(List<Long> addresses) {
        Fixtures.requireTool("gdb");
        try {
            Path scratch = Files.createTempDirectory("jompd-gdbprobe");
            try {
                Path out = scratch.resolve("out.tsv");
                Path script = scratch.resolve("lines.py");
                StringBuilder prelude = new StringBuilder("OUT_PATH = ").append(pythonString(out.toString()))
                        .append("\nADDRESSES = [");
                addresses.forEach(a -> prelude.append(Long.toUnsignedString(a)).append(", "));
                prelude.append("]\n");
                Files.writeString(script, prelude + LINES_SCRIPT);
                Commands.Result result = Commands.run(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off",
                        executable.toString(), core.toString(), "-x", script.toString()), Map.of(), null,
                        Duration.ofMinutes(5));
                if (!Files.exists(out)) {
                    throw new IllegalStateException("gdb line lookup produced nothing:\n" + result.output());
                }
                Map<Long, String> lines = new LinkedHashMap<>();
                for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                    String[] fields = line.split("\t", 3);
                    if (fields.length == 3 && fields[0].equals("L")) {
                        lines.put(Long.parseUnsignedLong(fields[1]), fields[2]);
                    }
                }
                return lines;
            } finally {
                try (var files = Files.walk(scratch)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Map<Long, Map<String, Value>> run(List<String> expressions, boolean perThread) {
        Fixtures.requireTool("gdb");
        try {
            Path scratch = Files.createTempDirectory("jompd-gdbprobe");
            try {
                Path out = scratch.resolve("out.tsv");
                Path script = scratch.resolve("probe.py");
                StringBuilder prelude = new StringBuilder("OUT_PATH = ").append(pythonString(out.toString()))
                        .append("\nPER_THREAD = ").append(perThread ? "True" : "False").append("\nEXPRESSIONS = [");
                expressions.forEach(e -> prelude.append(pythonString(e)).append(", "));
                prelude.append("]\n");
                Files.writeString(script, prelude + SCRIPT);
                Commands.Result result = Commands.run(List.of("gdb", "-batch", "-nx",
                        "-ex", "set pagination off", "-ex", "set print thread-events off",
                        executable.toString(), core.toString(), "-x", script.toString()),
                        Map.of(), null, Duration.ofMinutes(5));
                if (!Files.exists(out)) {
                    throw new IllegalStateException("gdb probe produced nothing:\n" + result.output());
                }
                Map<Long, Map<String, Value>> values = new LinkedHashMap<>();
                for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                    String[] fields = line.split("\t", 5);
                    if (fields.length != 5 || !fields[0].equals("R")) {
                        continue;
                    }
                    long lwp = Long.parseLong(fields[1]);
                    String expression = expressions.get(Integer.parseInt(fields[2]));
                    String text = unescape(fields[4]);
                    Value value = fields[3].equals("ok")
                            ? new Value(expression, Optional.of(text), Optional.empty())
                            : new Value(expression, Optional.empty(), Optional.of(text));
                    values.computeIfAbsent(lwp, k -> new LinkedHashMap<>()).put(expression, value);
                }
                return values;
            } finally {
                try (var files = Files.walk(scratch)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String pythonString(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                quoted.append(String.format("\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    /** gdb's C-escaped string ({@code \\n}, {@code \\t}, {@code \\\\}) as plain text. */
    static String unescape(String text) {
        StringBuilder plain = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) {
                char next = text.charAt(++i);
                plain.append(switch (next) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    default -> next;
                });
            } else {
                plain.append(c);
            }
        }
        return plain.toString();
    }
}
