package dev.jompd.testkit;

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
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What each thread waits in, as gdb's unwinder sees it: every thread's backtrace cut into <em>runs</em> of
 * runtime frames between the program's own frames, each run with its libomp entry point (the function the
 * program called, such as {@code __kmpc_barrier}) and the program's frame that called it (function, file,
 * line of the call). Nothing of jompd is involved, so tests can hold jompd's per-thread answer against it.
 *
 * <p>A thread at a barrier that runs a task there has two runtime runs: the innermost is what the task waits
 * in (or none, when the task is in the program's code), the next the barrier; the program's frames between
 * them are the task's, outermost its task entry. Frames are classified by where their code is: in the OpenMP
 * runtime (the shared library that defines {@code __kmpc_barrier}, whatever its file name: a gcc program's
 * {@code libgomp.so.1} alias of libomp too), in another shared library (the C library), or in the executable.
 */
public final class GdbWaitTruth {
    /** Where a frame's code is. */
    public enum Kind {
        /** The executable: the program's code (and what the compiler generated for it, outlined functions). */
        PROGRAM,
        /** The OpenMP runtime library. */
        RUNTIME,
        /** Any other shared library (libc, the vdso). */
        SYSTEM
    }

    /** One frame: innermost is depth 0; file and line of the frame's pc (for a caller: of its call). */
    public record Frame(int depth, Kind kind, String function, String file, int line) {
        @Override
        public String toString() {
            return "#" + depth + " " + function + (file.isEmpty() ? "" : " (" + Path.of(file).getFileName() + ":" + line + ")");
        }
    }

    /**
     * Consecutive frames outside the program (runtime or system), innermost first; {@code callers} are the
     * program's frames right outside them, up to the next run (innermost first: the first is the call site).
     */
    public record Run(List<Frame> frames, List<Frame> callers) {
        public Run {
            frames = List.copyOf(frames);
            callers = List.copyOf(callers);
        }

        /** Whether any frame is the OpenMP runtime's (a run of the C library alone, such as read(), is not). */
        public boolean inRuntime() {
            return frames.stream().anyMatch(f -> f.kind() == Kind.RUNTIME);
        }

        /** The program's frame that called into this run (absent at a thread's root, such as a worker's start). */
        public Optional<Frame> caller() {
            return callers.isEmpty() ? Optional.empty() : Optional.of(callers.getFirst());
        }

        /**
         * The runtime's entry point of this run: its outermost runtime frame, passing over the frames that only
         * carry a thread into work ({@link #CARRIERS}: {@code __kmpc_fork_call} → {@code __kmp_join_call} at the
         * end of a region, a worker's {@code __kmp_launch_thread} → {@code __kmp_fork_barrier}). Names as
         * {@link #normalized}. Empty for a run without runtime frames.
         */
        public Optional<String> entry() {
            List<Frame> runtime = frames.stream().filter(f -> f.kind() == Kind.RUNTIME).toList();
            if (runtime.isEmpty()) {
                return Optional.empty();
            }
            int i = runtime.size() - 1;
            while (i > 0 && CARRIERS.contains(normalized(runtime.get(i).function()))) {
                i--;
            }
            return Optional.of(normalized(runtime.get(i).function()));
        }

        /** The innermost frame's function, normalized (for a run of the C library: what the thread is blocked in). */
        public String innermost() {
            return normalized(frames.getFirst().function());
        }

        @Override
        public String toString() {
            return (inRuntime() ? entry().orElseThrow() : innermost()) + " <- "
                    + caller().map(Frame::toString).orElse("(thread root)");
        }
    }

    /**
     * A thread's {@code th.th_ident} in libomp ({@code __kmp_threads[gtid]->th.th_ident}, read through libomp's
     * DWARF): the {@code ident_t} of its last {@code __kmpc_barrier} (set unconditionally before the wait), or of
     * a later {@code __kmpc_barrier_master}, {@code __kmpc_copyprivate}, reduction or lock entry.
     */
    public record Ident(long flags, String psource) {
        /** {@code KMP_IDENT_BARRIER_EXPL} 0x20 and the implicit barriers' mask {@code 0x1C0}: which barrier. */
        public static final long BARRIER_BITS = 0x20 | 0x1C0;
        /** The barrier bits of each barrier wait (kmp.h: EXPL 0x20, IMPL_FOR 0x40, IMPL_SECTIONS 0xC0, IMPL_SINGLE 0x140). */
        public static final Map<String, Long> BARRIER_FLAGS = Map.of("barrier", 0x20L, "implicit_for", 0x40L,
                "implicit_sections", 0xC0L, "implicit_single", 0x140L);

        public long barrierBits() {
            return flags & BARRIER_BITS;
        }

        /** The line in {@code ";file;function;line;column;;"}, 0 when unknown (a build without -g: {@code ;unknown;unknown;0;0;;}). */
        public int line() {
            String[] fields = psource.split(";", -1);
            try {
                return fields.length > 3 ? Integer.parseInt(fields[3]) : 0;
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        /** The function field of {@code psource}. */
        public String function() {
            String[] fields = psource.split(";", -1);
            return fields.length > 2 ? fields[2] : "";
        }
    }

    /**
     * One thread's backtrace and its runs, innermost first; {@code leading} the program's frames above the first
     * run; {@code ident} its {@code th_ident} (absent for a thread that is no OpenMP thread, or a null ident).
     */
    public record ThreadStack(long lwp, List<Frame> frames, List<Frame> leading, List<Run> runs, Optional<Ident> ident) {
        public ThreadStack {
            frames = List.copyOf(frames);
            leading = List.copyOf(leading);
            runs = List.copyOf(runs);
        }

        /** The runs that enter the runtime, innermost first. */
        public List<Run> runtimeRuns() {
            return runs.stream().filter(Run::inRuntime).toList();
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("LWP " + lwp + ":");
            frames.forEach(f -> text.append("\n  ").append(f.kind().name().charAt(0)).append(' ').append(f));
            return text.toString();
        }
    }

    /**
     * Runtime frames that carry a thread into a region or a worker into its loop, not a wait of their own: an
     * entry point is looked for inside them.
     */
    public static final Set<String> CARRIERS = Set.of("__kmpc_fork_call", "__kmpc_fork_teams", "__kmp_launch_worker",
            "__kmp_launch_thread", "GOMP_parallel", "GOMP_parallel_end", "GOMP_teams_reg");

    /**
     * libomp's entry points for each wait (the words of hang_constructs' {@code thread.<k>.wait}), for
     * clang's {@code __kmpc_*} calls and gcc's {@code GOMP_*} ones. The end of a parallel region:
     * {@code __kmp_join_call} on its primary thread (called at the region's line), and on its workers, which
     * have no program frame under the wait, {@code __kmp_join_barrier} or, once arrived, {@code __kmp_fork_barrier}.
     */
    public static final Map<String, Set<String>> ENTRIES = Map.ofEntries(
            Map.entry("barrier", Set.of("__kmpc_barrier", "GOMP_barrier")),
            Map.entry("implicit_for", Set.of("__kmpc_barrier", "GOMP_barrier", "GOMP_loop_end")),
            Map.entry("implicit_sections", Set.of("__kmpc_barrier", "GOMP_sections_end")),
            Map.entry("implicit_single", Set.of("__kmpc_barrier", "GOMP_barrier")),
            Map.entry("implicit_parallel", Set.of("__kmp_join_call", "__kmp_join_barrier", "__kmp_fork_barrier")),
            Map.entry("taskwait", Set.of("__kmpc_omp_taskwait", "GOMP_taskwait")),
            Map.entry("taskgroup", Set.of("__kmpc_end_taskgroup", "GOMP_taskgroup_end")),
            Map.entry("ordered", Set.of("__kmpc_ordered", "GOMP_ordered_start")),
            Map.entry("critical", Set.of("__kmpc_critical", "__kmpc_critical_with_hint", "GOMP_critical_start",
                    "GOMP_critical_name_start")),
            Map.entry("lock", Set.of("omp_set_lock", "__kmpc_set_lock")),
            Map.entry("nest_lock", Set.of("omp_set_nest_lock", "__kmpc_set_nest_lock")));

    /**
     * The name without libomp's API prefix ({@code __kmp_api_omp_set_lock} is the program's {@code omp_set_lock},
     * {@code __kmp_api_GOMP_barrier} its {@code GOMP_barrier}), a symbol version or gdb's template arguments.
     */
    public static String normalized(String function) {
        String name = function;
        int at = name.indexOf('@');
        if (at > 0) {
            name = name.substring(0, at);
        }
        if (name.startsWith("__kmp_api_")) {
            name = name.substring("__kmp_api_".length());
        }
        return name;
    }

    private static final String SCRIPT = """
            import gdb
            out = open(OUT_PATH, "w")
            def esc(s):
                return s.replace("\\\\", "\\\\\\\\").replace("\\t", "\\\\t").replace("\\n", "\\\\n")
            def runtime_library():
                for name in ("__kmpc_barrier", "GOMP_barrier"):
                    try:
                        library = gdb.solib_name(int(gdb.parse_and_eval("(unsigned long)&" + name)))
                    except gdb.error:
                        continue
                    if library:
                        return library
                return None
            runtime = runtime_library()
            out.write("R\\t%s\\n" % esc(runtime or ""))
            for t in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
                t.switch()
                f = gdb.newest_frame()
                depth = 0
                while f is not None and depth < 512:
                    library = gdb.solib_name(f.pc())
                    kind = "PROGRAM" if library is None else "RUNTIME" if library == runtime else "SYSTEM"
                    file = ""
                    line = 0
                    try:
                        sal = f.find_sal()
                        if sal.symtab is not None:
                            file = sal.symtab.filename
                            line = sal.line
                    except Exception:
                        pass
                    out.write("F\\t%d\\t%d\\t%s\\t%s\\t%s\\t%d\\n" % (t.ptid[1], depth, kind, esc(f.name() or "??"),
                                                               esc(file), line))
                    depth += 1
                    try:
                        f = f.older()
                    except Exception:
                        f = None
                try:
                    gtid = int(gdb.parse_and_eval("__kmp_gtid"))
                    if 0 <= gtid < int(gdb.parse_and_eval("__kmp_threads_capacity")):
                        ident = gdb.parse_and_eval("__kmp_threads[%d]->th.th_ident" % gtid)
                        if int(ident) != 0:
                            out.write("I\\t%d\\t%d\\t%s\\n" % (t.ptid[1], int(ident["flags"]), esc(ident["psource"].string())))
                except Exception:
                    pass
            out.close()
            """;

    private GdbWaitTruth() {}

    /** Every thread of a core, by LWP. */
    public static Map<Long, ThreadStack> ofCore(Path executable, Path core) {
        return run(List.of(executable.toString(), core.toString()), OptionalLong.empty());
    }

    /** Every thread of a live process, by LWP: gdb attaches, reads and detaches (the process goes on). */
    public static Map<Long, ThreadStack> ofProcess(long pid) {
        return run(List.of("-p", Long.toString(pid)), OptionalLong.of(pid));
    }

    private static Map<Long, ThreadStack> run(List<String> target, OptionalLong pid) {
        Fixtures.requireTool("gdb");
        try {
            Path scratch = Files.createTempDirectory("jompd-waittruth");
            try {
                Path out = scratch.resolve("out.tsv");
                Path script = scratch.resolve("waits.py");
                Files.writeString(script, "OUT_PATH = \"" + out.toString().replace("\\", "\\\\").replace("\"", "\\\"")
                        + "\"\n" + SCRIPT);
                List<String> command = new ArrayList<>(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off",
                        "-ex", "set print thread-events off"));
                command.addAll(target);
                command.addAll(List.of("-x", script.toString()));
                Commands.Result result = Commands.run(command, Map.of(), null, Duration.ofMinutes(5));
                if (!Files.exists(out)) {
                    throw new IllegalStateException("gdb backtraces of " + target + " produced nothing:\n" + result.output());
                }
                Map<Long, ThreadStack> stacks = parse(Files.readAllLines(out, StandardCharsets.UTF_8));
                if (stacks.isEmpty()) {
                    throw new IllegalStateException("gdb found no threads in " + target + ":\n" + result.output());
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

    /** The script's lines (R: the runtime library; F: LWP, depth, kind, function, file, line) as thread stacks. */
    static Map<Long, ThreadStack> parse(List<String> lines) {
        Map<Long, List<Frame>> frames = new LinkedHashMap<>();
        Map<Long, Ident> idents = new LinkedHashMap<>();
        boolean runtimeFound = false;
        for (String line : lines) {
            String[] fields = line.split("\t", -1);
            if (fields[0].equals("R")) {
                runtimeFound = fields.length == 2 && !fields[1].isEmpty();
            } else if (fields[0].equals("F") && fields.length == 7) {
                frames.computeIfAbsent(Long.parseLong(fields[1]), k -> new ArrayList<>()).add(new Frame(
                        Integer.parseInt(fields[2]), Kind.valueOf(fields[3]), GdbProbe.unescape(fields[4]), GdbProbe.unescape(fields[5]),
                        Integer.parseInt(fields[6])));
            } else if (fields[0].equals("I") && fields.length == 4) {
                idents.put(Long.parseLong(fields[1]), new Ident(Long.parseLong(fields[2]), GdbProbe.unescape(fields[3])));
            } else {
                throw new IllegalStateException("unexpected line from gdb's script: " + line);
            }
        }
        if (!runtimeFound) {
            throw new IllegalStateException("gdb found no OpenMP runtime (no __kmpc_barrier in any shared library)");
        }
        Map<Long, ThreadStack> stacks = new LinkedHashMap<>();
        frames.forEach((lwp, list) -> stacks.put(lwp, stackOf(lwp, list, Optional.ofNullable(idents.get(lwp)))));
        return stacks;
    }

    /** Cuts a backtrace into the program's leading frames and the runs outside it with their callers. */
    static ThreadStack stackOf(long lwp, List<Frame> frames, Optional<Ident> ident) {
        int i = 0;
        List<Frame> leading = new ArrayList<>();
        while (i < frames.size() && frames.get(i).kind() == Kind.PROGRAM) {
            leading.add(frames.get(i++));
        }
        List<Run> runs = new ArrayList<>();
        while (i < frames.size()) {
            List<Frame> run = new ArrayList<>();
            while (i < frames.size() && frames.get(i).kind() != Kind.PROGRAM) {
                run.add(frames.get(i++));
            }
            List<Frame> callers = new ArrayList<>();
            while (i < frames.size() && frames.get(i).kind() == Kind.PROGRAM) {
                callers.add(frames.get(i++));
            }
            runs.add(new Run(run, callers));
        }
        return new ThreadStack(lwp, frames, leading, runs, ident);
    }
}
