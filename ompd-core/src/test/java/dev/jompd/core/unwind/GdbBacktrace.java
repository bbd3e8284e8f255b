package dev.jompd.core.unwind;

import dev.jompd.testkit.Commands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The truth about native stacks: gdb's own unwinder, run over a core or a held process, one frame per
 * line through gdb's Python API ({@code Frame.name()}, {@code find_sal()}, {@code type()} are what
 * {@code bt} prints, without parsing its text). Nothing of jompd is involved.
 */
public final class GdbBacktrace {
    private static final String SCRIPT = """
            import gdb
            KINDS = {gdb.NORMAL_FRAME: "normal", gdb.INLINE_FRAME: "inline", gdb.TAILCALL_FRAME: "tailcall",
                     gdb.SIGTRAMP_FRAME: "sigtramp"}
            out = open(OUT_PATH, "w")
            for thread in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
                thread.switch()
                frame = gdb.newest_frame()
                level = 0
                while frame is not None and level < 2000:
                    sal = frame.find_sal()
                    name = frame.name() or "??"
                    file = sal.symtab.filename if sal.symtab is not None else ""
                    line = sal.line if sal.symtab is not None else 0
                    out.write("F\\t%d\\t%d\\t%s\\t%s\\t%s\\t%d\\t%x\\n" % (thread.ptid[1], level,
                              KINDS.get(frame.type(), "other"), name, file, line, frame.pc()))
                    try:
                        frame = frame.older()
                    except gdb.error as e:
                        out.write("E\\t%d\\t%s\\n" % (thread.ptid[1], str(e).replace("\\n", " ")))
                        break
                    level += 1
            out.close()
            """;

    /** One frame as gdb shows it: function, source file (as the debug info names it), line (0: none). */
    public record Frame(long pc, String kind, String function, String file, int line) {
        String fileName() {
            int slash = file.lastIndexOf('/');
            return slash < 0 ? file : file.substring(slash + 1);
        }
    }

    private GdbBacktrace() {}

    public static Map<Long, List<Frame>> ofCore(Path executable, Path core) {
        return run(List.of(executable.toString(), core.toString()), List.of());
    }

    /** gdb attaches to the process, reads every stack and detaches: the process stays as it was. */
    public static Map<Long, List<Frame>> ofProcess(long pid) {
        return run(List.of("-p", Long.toString(pid)), List.of("-ex", "detach"));
    }

    private static Map<Long, List<Frame>> run(List<String> target, List<String> after) {
        try {
            Path scratch = Files.createTempDirectory("jompd-gdb-bt");
            try {
                Path out = scratch.resolve("frames.tsv");
                Path script = scratch.resolve("frames.py");
                Files.writeString(script, "OUT_PATH = '" + out + "'\n" + SCRIPT);
                List<String> command = new ArrayList<>(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off",
                        "-ex", "set print thread-events off"));
                command.addAll(target);
                command.addAll(List.of("-x", script.toString()));
                command.addAll(after);
                Commands.Result result = Commands.run(command, Map.of(), null, Duration.ofMinutes(5));
                if (!Files.exists(out)) {
                    throw new IllegalStateException("gdb printed no frames:\n" + result.output());
                }
                Map<Long, List<Frame>> stacks = new LinkedHashMap<>();
                for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
                    String[] fields = line.split("\t", -1);
                    if (fields[0].equals("F") && fields.length == 8) {
                        stacks.computeIfAbsent(Long.parseLong(fields[1]), lwp -> new ArrayList<>())
                                .add(new Frame(Long.parseUnsignedLong(fields[7], 16), fields[3], fields[4], fields[5],
                                        Integer.parseInt(fields[6])));
                    }
                }
                return stacks;
            } finally {
                try (var files = Files.walk(scratch)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
