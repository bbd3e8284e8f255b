package dev.jompd.gdb;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.core.ompd.Icv;
import dev.jompd.core.ompd.Icvs;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.ParallelHandle;
import dev.jompd.core.ompd.Scope;
import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.FrameOwnership;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.JsonReport;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.Task;
import dev.jompd.report.Text;
import dev.jompd.report.TextReport;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The {@code ompd} commands. Each handler validates its arguments, asks ompd-core and formats the
 * answer as text for gdb; none reads memory or knows libomp's structures.
 */
final class Handlers {
    /** One command: the target it runs on, its argument string, gdb (for frames) → text. */
    @FunctionalInterface
    interface Handler {
        String handle(Views views, String arguments, GdbChannel gdb);
    }

    static final Map<String, Handler> ALL = Map.ofEntries(
            Map.entry("init", Handlers::init),
            Map.entry("threads", Handlers::threads),
            Map.entry("parallel", Handlers::parallel),
            Map.entry("icvs", Handlers::icvs),
            Map.entry("tasks", Handlers::tasks),
            Map.entry("tree", Handlers::tree),
            Map.entry("stacks", Handlers::stacks),
            Map.entry("diagnose", Handlers::diagnose),
            Map.entry("bt", Handlers::backtrace),
            Map.entry("json", Handlers::json),
            Map.entry("task-function", StepEntries::taskFunction),
            Map.entry("region-entry", StepEntries::regionEntry),
            Map.entry("frame-owners", Handlers::frameOwners));

    /** Bound on task chains and region chains printed for one thread: far beyond real nesting. */
    private static final int MAX_CHAIN = 4096;

    private Handlers() {}

    // ---------------------------------------------------------------- ompd init

    static String init(Views views, String arguments, GdbChannel gdb) {
        Session.Target target = views.target();
        return "jompd: OMPD is ready for " + target.description().backend() + ": "
                + Ompd.ompVersionString(target.process()) + ", " + Ompd.threads(target.process()).size()
                + " OpenMP threads.\n(No `ompd init` is needed: every ompd command initialises what it needs.)\n";
    }

    // ---------------------------------------------------------------- ompd threads

    static String threads(Views views, String arguments, GdbChannel gdb) {
        Session.Target target = views.target();
        OpenMpPicture picture = target.picture();
        record Row(OptionalInt gdbNum, OpenMpThread thread) {}
        List<Row> rows = new ArrayList<>();
        for (OpenMpThread thread : picture.threads()) {
            rows.add(new Row(views.gdbNumber(thread), thread));
        }
        rows.sort(Comparator.comparingInt(row -> row.gdbNum().orElse(Integer.MAX_VALUE)));
        List<GdbThreads.GdbThread> osThreads = target.gdbThreads().list(false);

        StringBuilder out = new StringBuilder();
        out.append(picture.threads().size()).append(" OpenMP threads of ").append(osThreads.size()).append(" threads in ")
                .append(target.description().backend()).append(" (").append(target.description().runtime()).append(")\n");
        Table table = new Table("", "gdb", "LWP", "gtid", "thread", "level", "team", "path", "state");
        Set<Integer> openmpGdbNumbers = new HashSet<>();
        for (Row row : rows) {
            OpenMpThread thread = row.thread();
            row.gdbNum().ifPresent(openmpGdbNumbers::add);
            boolean inTeam = thread.region().isPresent();
            table.row(views.isSelected(thread) ? "*" : "",
                    row.gdbNum().isPresent() ? Integer.toString(row.gdbNum().getAsInt()) : "?",
                    thread.lwp().isPresent() ? Long.toString(thread.lwp().getAsLong()) : "?",
                    Long.toString(thread.gtid()), Long.toString(thread.threadNum()),
                    inTeam ? Long.toString(thread.level()) : "-", inTeam ? Long.toString(thread.teamSize()) : "-",
                    thread.teamPath().isEmpty() ? "-" : thread.path(), views.state(thread));
        }
        out.append(table.render("  "));
        List<String> others = osThreads.stream().filter(t -> !openmpGdbNumbers.contains(t.num()))
                .map(t -> t.num() + " (LWP " + t.lwp() + ")").toList();
        if (!others.isEmpty()) {
            out.append("Not OpenMP threads: gdb ").append(String.join(", ", others)).append('\n');
        }
        return out.toString();
    }

    // ---------------------------------------------------------------- ompd parallel

    static String parallel(Views views, String arguments, GdbChannel gdb) {
        ThreadHandle thread = views.selectedThread();
        StringBuilder out = new StringBuilder();
        out.append(capitalized(describe(views, thread))).append(": parallel regions, innermost first\n");
        Optional<ParallelHandle> region = Optional.of(thread.currentParallel());
        // The thread that stands for this one in each enclosing team: the primary thread of the team inside.
        ThreadHandle member = thread;
        Set<String> seen = new HashSet<>();
        while (region.isPresent() && seen.add(region.get().toString()) && seen.size() <= MAX_CHAIN) {
            ParallelHandle current = region.get();
            out.append(views.region(current));
            if (Views.attempt(current::level).orElse(0L) > 0) {
                String function = views.function(current);
                if (!function.isEmpty()) {
                    out.append("  ").append(function);
                }
            }
            Views.attempt(current::activeLevel).ifPresent(a -> out.append("  (active level ").append(a).append(')'));
            out.append('\n');
            long size = Views.attempt(current::teamSize).orElse(0L);
            for (int number = 0; number < size && number < MAX_CHAIN; number++) {
                int n = number;
                Optional<ThreadHandle> teammate = Views.attempt(() -> current.threadInParallel(n));
                out.append("    thread ").append(number).append("  ");
                if (teammate.isEmpty()) {
                    out.append("(unreadable)\n");
                    continue;
                }
                out.append(views.ids(teammate.get())).append("  ").append(views.state(teammate.get()));
                if (teammate.get().address() == member.address()) {
                    out.append(member == thread ? "   <- this thread" : "   <- this thread's ancestor");
                }
                out.append('\n');
            }
            Optional<ThreadHandle> primary = size > 0 ? Views.attempt(() -> current.threadInParallel(0)) : Optional.empty();
            if (primary.isPresent()) {
                member = primary.get();
            }
            region = Views.attempt(current::enclosing);
        }
        return out.toString();
    }

    // ---------------------------------------------------------------- ompd icvs

    static String icvs(Views views, String arguments, GdbChannel gdb) {
        String argument = arguments.trim().toLowerCase(Locale.ROOT);
        Set<Scope> scopes = switch (argument) {
            case "", "all" -> Set.of(Scope.ADDRESS_SPACE, Scope.THREAD, Scope.PARALLEL, Scope.TASK);
            case "address_space", "process", "global" -> Set.of(Scope.ADDRESS_SPACE);
            case "thread" -> Set.of(Scope.THREAD);
            case "parallel" -> Set.of(Scope.PARALLEL);
            case "task", "implicit_task" -> Set.of(Scope.TASK);
            default -> Icv.byName(argument).map(icv -> Set.of(icv.scope())).orElseThrow(() -> new BridgeException(
                    "unknown scope or ICV \"" + arguments.trim() + "\": use address_space, thread, parallel, task, "
                            + "or an ICV name such as nthreads-var"));
        };
        Optional<Icv> only = Icv.byName(argument);
        Session.Target target = views.target();
        Map<Scope, Object> handles = new LinkedHashMap<>();
        handles.put(Scope.ADDRESS_SPACE, target.process());
        StringBuilder out = new StringBuilder();
        Optional<ThreadHandle> thread = Optional.empty();
        if (!scopes.equals(Set.of(Scope.ADDRESS_SPACE))) {
            thread = Optional.of(views.selectedThread());
            out.append("ICVs seen from ").append(describe(views, thread.get())).append('\n');
        } else {
            out.append("ICVs of ").append(target.description().backend()).append('\n');
        }
        thread.ifPresent(t -> {
            handles.put(Scope.THREAD, t);
            Views.attempt(t::currentParallel).ifPresent(p -> handles.put(Scope.PARALLEL, p));
            Views.attempt(t::currentTask).ifPresent(k -> handles.put(Scope.TASK, k));
        });
        for (Scope scope : List.of(Scope.ADDRESS_SPACE, Scope.THREAD, Scope.PARALLEL, Scope.TASK)) {
            if (!scopes.contains(scope)) {
                continue;
            }
            Object handle = handles.get(scope);
            out.append(switch (scope) {
                case ADDRESS_SPACE -> "process (address_space scope):";
                case THREAD -> "thread scope:";
                case PARALLEL -> "parallel scope, the " + (handle == null ? "innermost region" : views.region((ParallelHandle) handle)) + ":";
                default -> "task scope, the " + (handle == null ? "current task" : views.taskKind((TaskHandle) handle, false)
                        + " " + views.hex(((TaskHandle) handle).address())) + ":";
            }).append('\n');
            Table table = new Table("", "");
            for (Icv icv : Ompd.icvs()) {
                if (icv.scope() != scope || only.isPresent() && !only.get().equals(icv)) {
                    continue;
                }
                String value;
                if (handle == null) {
                    value = "(no " + scope.name().toLowerCase(Locale.ROOT) + ")";
                } else {
                    try {
                        value = Icvs.string(handle, scope, icv);
                    } catch (OmpdException e) {
                        value = "(" + e.rc().cName() + ")";
                    }
                }
                table.row(icv.name(), value);
            }
            out.append(table.renderRows("  "));
        }
        return out.toString();
    }

    // ---------------------------------------------------------------- ompd tasks

    static String tasks(Views views, String arguments, GdbChannel gdb) {
        ThreadHandle handle = views.selectedThread();
        OpenMpPicture picture = views.target().picture();
        OpenMpThread thread = views.inPicture(handle);
        StringBuilder out = new StringBuilder();
        out.append(capitalized(describe(views, handle))).append(": tasks, innermost first (each generated by the next)\n");
        List<Task> chain = picture.chain(thread);
        for (int i = 0; i < chain.size(); i++) {
            Task task = chain.get(i);
            out.append('#').append(i).append("  ").append(task.kind().words()).append(' ').append(task.id())
                    .append(' ').append(views.hex(task.address()));
            task.function().ifPresent(f -> out.append("  ").append(f.describe()));
            out.append(", ").append(task.status().words());
            task.region().flatMap(picture::region).ifPresent(r -> out.append("  in ").append(r.describe()));
            out.append('\n');
            task.flags().ifPresent(flags -> {
                List<String> words = new ArrayList<>();
                if (flags.isFinal()) words.add("final");
                words.add(flags.tied() ? "tied" : "untied");
                if (flags.started()) words.add("started");
                if (flags.executing()) words.add("executing");
                if (flags.complete()) words.add("complete");
                if (flags.taskSerial()) words.add("serial");
                out.append("      flags: ").append(String.join(" ", words)).append('\n');
            });
            task.frames().ifPresent(frames -> out.append("      frames: exit ")
                    .append(views.hex(frames.exitFrame())).append(", enter ").append(views.hex(frames.enterFrame()))
                    .append('\n'));
        }
        return out.toString();
    }

    // ---------------------------------------------------------------- ompd tree

    static String tree(Views views, String arguments, GdbChannel gdb) {
        boolean all = arguments.trim().equals("all");
        OpenMpPicture picture = views.target().picture();
        long selectedLwp = views.target().context().selected().map(TargetContext.SelectedThread::lwp).orElse(-1L);
        return TextReport.tree(picture, new TextReport.Options(all, false, thread -> {
            OptionalInt number = views.gdbNumber(thread);
            return "gdb " + (number.isPresent() ? Integer.toString(number.getAsInt()) : "?")
                    + (thread.lwp().isPresent() ? "  LWP " + thread.lwp().getAsLong() : "") + "  gtid " + thread.gtid();
        }, thread -> thread.lwp().isPresent() && thread.lwp().getAsLong() == selectedLwp));
    }

    // ---------------------------------------------------------------- ompd stacks

    /** Every OpenMP thread's native stack, merged by common call path (jompd's own unwinder). */
    static String stacks(Views views, String arguments, GdbChannel gdb) {
        return parallelStacks(views, gdb).text();
    }

    /**
     * This stop's parallel stacks. A core file has every thread's registers; in a process gdb holds, gdb is
     * the one that read them, so they come from gdb (pc, stack and frame pointers, callee-saved registers).
     */
    private static ParallelStacks parallelStacks(Views views, GdbChannel gdb) {
        OpenMpPicture picture = views.target().picture();
        AddressSpace space = views.target().process().target();
        List<TargetThread> threads = views.target().coreFile() ? space.threads() : registersFromGdb(gdb);
        // the session's debug information: parsed once per module file, kept across stops
        try (Unwinder unwinder = new Unwinder(space, views.target().debugInfo())) {
            return ParallelStacks.of(picture, threads, unwinder);
        }
    }

    private static List<TargetThread> registersFromGdb(GdbChannel gdb) {
        JsonObject answer = gdb.ask("registers", question -> {
            JsonArray names = new JsonArray();
            Unwinder.REGISTERS.forEach(names::add);
            question.add("names", names);
        });
        List<TargetThread> threads = new ArrayList<>();
        for (JsonElement element : answer.getAsJsonArray("threads")) {
            JsonObject thread = element.getAsJsonObject();
            Map<String, Long> registers = new LinkedHashMap<>();
            for (Map.Entry<String, JsonElement> register : thread.getAsJsonObject("registers").entrySet()) {
                registers.put(register.getKey(), Long.parseUnsignedLong(register.getValue().getAsString().substring(2), 16));
            }
            threads.add(new TargetThread(thread.get("lwp").getAsLong(), registers));
        }
        return threads;
    }

    /** Why the threads wait: the command line's `jompd diagnose`, on gdb's target. */
    static String diagnose(Views views, String arguments, GdbChannel gdb) {
        ParallelStacks stacks = parallelStacks(views, gdb);
        return Diagnosis.text(Diagnosis.of(stacks.picture(), Optional.of(stacks)));
    }

    // ---------------------------------------------------------------- ompd bt

    static String backtrace(Views views, String arguments, GdbChannel gdb) {
        String argument = arguments.trim();
        StringBuilder out = new StringBuilder();
        if (argument.startsWith("on") || argument.equals("off")) {
            out.append("(jompd's `ompd bt` prints the marked backtrace itself; no filter to switch ")
                    .append(argument.equals("off") ? "off: use gdb's `bt`" : "on").append(")\n");
            if (argument.equals("off")) {
                return out.toString();
            }
            argument = "";
        }
        int limit;
        try {
            limit = argument.isEmpty() ? 256 : Integer.parseInt(argument);
        } catch (NumberFormatException e) {
            throw new BridgeException("usage: ompd bt [N]  (N: how many frames, default 256)");
        }
        ThreadHandle thread = views.selectedThread();
        MarkedFrames marked = markedFrames(views, gdb, thread, limit);
        List<JsonObject> frames = marked.frames();
        List<FrameOwnership.Mark> marks = marked.marks();
        OpenMpPicture picture = views.target().picture();

        out.append(capitalized(describe(views, thread))).append(": backtrace marked by OpenMP task and region\n");
        FrameOwnership.Mark previous = null;
        for (int i = 0; i < frames.size(); i++) {
            FrameOwnership.Mark mark = marks.get(i);
            if (!mark.equals(previous)) {
                out.append(label(picture, mark)).append('\n');
                previous = mark;
            }
            out.append("  ").append(frames.get(i).get("text").getAsString()).append('\n');
        }
        if (marked.more()) {
            out.append("  (more frames follow: ompd bt N shows N)\n");
        }
        return out.toString();
    }

    /**
     * Internal command of jompd.py's `ompd bt on` frame filter: the owner of each frame of the selected
     * thread's backtrace, one line per frame, innermost first: "LEVEL PC task KIND" for a task's own code
     * (KIND: initial, implicit, explicit or task), "LEVEL PC runtime" for the runtime's frames. The same rule
     * as `ompd bt` and the DAP server's scopes ({@link FrameOwnership} over the thread's stack chain).
     */
    static String frameOwners(Views views, String arguments, GdbChannel gdb) {
        int limit;
        try {
            limit = arguments.isBlank() ? 256 : Integer.parseInt(arguments.trim());
        } catch (NumberFormatException e) {
            throw new BridgeException("usage: frame-owners [N]  (N: how many frames, default 256)");
        }
        MarkedFrames marked = markedFrames(views, gdb, views.selectedThread(), limit);
        List<JsonObject> frames = marked.frames();
        List<FrameOwnership.Mark> marks = marked.marks();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < frames.size(); i++) {
            FrameOwnership.Mark mark = marks.get(i);
            out.append(i).append(' ').append(frames.get(i).get("pc").getAsString()).append(' ');
            if (mark.owner() == FrameOwnership.Owner.TASK && mark.task().isPresent()) {
                // "initial task" -> "initial", ..., "task" (kind unknown) -> "task"
                out.append("task ").append(mark.task().get().kind().words().split(" ")[0]);
            } else {
                out.append("runtime");
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** The selected thread's frames as gdb lists them, each marked with what it runs for. */
    private record MarkedFrames(List<JsonObject> frames, List<FrameOwnership.Mark> marks, boolean more) {}

    private static MarkedFrames markedFrames(Views views, GdbChannel gdb, ThreadHandle thread, int limit) {
        JsonObject answer = gdb.ask("frames", question -> question.addProperty("limit", limit));
        List<JsonObject> frames = new ArrayList<>();
        answer.getAsJsonArray("frames").forEach(element -> frames.add(element.getAsJsonObject()));
        long[] cfas = frames.stream().mapToLong(frame -> TargetContext.number(frame, "cfa").orElse(0)).toArray();
        OpenMpPicture picture = views.target().picture();
        return new MarkedFrames(frames, FrameOwnership.mark(picture.stackChain(views.inPicture(thread)), cfas),
                answer.has("more") && answer.get("more").getAsBoolean());
    }

    private static String label(OpenMpPicture picture, FrameOwnership.Mark mark) {
        if (mark.task().isEmpty()) {
            return "[OpenMP runtime]";
        }
        Task task = mark.task().get();
        StringBuilder text = new StringBuilder();
        text.append(mark.owner() == FrameOwnership.Owner.RUNTIME_FOR_TASK ? "[OpenMP runtime, called by " : "[");
        text.append(task.kind().words()).append(' ').append(task.id()).append(' ').append(Text.hex(task.address()));
        task.region().flatMap(picture::region).ifPresent(r -> text.append(" in ").append(r.describe()));
        return text.append(']').toString();
    }

    // ---------------------------------------------------------------- ompd json

    static String json(Views views, String arguments, GdbChannel gdb) {
        return JsonReport.render(views.target().picture()) + "\n";
    }

    // ---------------------------------------------------------------- shared

    /** "thread 3 (LWP 1234), OpenMP thread 1 (gtid 5)", thread 3 being gdb's number. */
    static String describe(Views views, ThreadHandle thread) {
        OptionalInt num = views.gdbNumber(thread);
        OptionalLong lwp = views.lwp(thread);
        return "thread " + (num.isPresent() ? num.getAsInt() : "?") + (lwp.isPresent() ? " (LWP " + lwp.getAsLong() + ")" : "")
                + ", OpenMP thread " + Views.attempt(thread::threadNum).map(String::valueOf).orElse("?")
                + " (gtid " + Views.attempt(thread::gtid).map(String::valueOf).orElse("?") + ")";
    }

    static String capitalized(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    /** Columns padded to their widest cell. */
    static final class Table {
        private final List<String[]> rows = new ArrayList<>();

        Table(String... header) {
            rows.add(header);
        }

        void row(String... cells) {
            rows.add(cells);
        }

        /** The rows without the header line. */
        String renderRows(String indent) {
            String all = render(indent);
            return all.substring(all.indexOf('\n') + 1);
        }

        String render(String indent) {
            int columns = rows.getFirst().length;
            int[] widths = new int[columns];
            for (String[] row : rows) {
                for (int c = 0; c < columns; c++) {
                    widths[c] = Math.max(widths[c], row[c].length());
                }
            }
            StringBuilder out = new StringBuilder();
            for (String[] row : rows) {
                StringBuilder line = new StringBuilder(indent);
                for (int c = 0; c < columns; c++) {
                    line.append(row[c]);
                    if (c < columns - 1) {
                        line.append(" ".repeat(widths[c] - row[c].length() + 2));
                    }
                }
                out.append(line.toString().stripTrailing()).append('\n');
            }
            return out.toString();
        }
    }
}
