package dev.jompd.gdb;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.cli.JsonReport;
import dev.jompd.cli.RegionTree;
import dev.jompd.cli.SourceLines;
import dev.jompd.core.ompd.Icv;
import dev.jompd.core.ompd.Icvs;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.ParallelHandle;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.ompd.Scope;
import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.target.Symbolizer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

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

    static final Map<String, Handler> ALL = Map.of(
            "init", Handlers::init,
            "threads", Handlers::threads,
            "parallel", Handlers::parallel,
            "icvs", Handlers::icvs,
            "tasks", Handlers::tasks,
            "tree", Handlers::tree,
            "bt", Handlers::backtrace,
            "json", Handlers::json,
            "task-function", Handlers::taskFunction);

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
        List<ThreadHandle> threads = Ompd.threads(target.process());
        record Row(OptionalInt gdbNum, ThreadHandle thread) {}
        List<Row> rows = new ArrayList<>();
        for (ThreadHandle thread : threads) {
            rows.add(new Row(views.gdbNumber(thread), thread));
        }
        rows.sort(Comparator.comparingInt(row -> row.gdbNum().orElse(Integer.MAX_VALUE)));
        List<GdbThreads.GdbThread> osThreads = target.gdbThreads().list(false);

        StringBuilder out = new StringBuilder();
        out.append(threads.size()).append(" OpenMP threads of ").append(osThreads.size()).append(" threads in ")
                .append(target.description().backend()).append(" (").append(target.description().runtime()).append(")\n");
        Table table = new Table("", "gdb", "LWP", "gtid", "thread", "level", "team", "state");
        Set<Integer> openmpGdbNumbers = new HashSet<>();
        for (Row row : rows) {
            ThreadHandle thread = row.thread();
            row.gdbNum().ifPresent(openmpGdbNumbers::add);
            Optional<ParallelHandle> region = Views.attempt(thread::currentParallel);
            table.row(views.isSelected(thread) ? "*" : "",
                    row.gdbNum().isPresent() ? Integer.toString(row.gdbNum().getAsInt()) : "?",
                    views.lwp(thread).isPresent() ? Long.toString(views.lwp(thread).getAsLong()) : "?",
                    Views.attempt(thread::gtid).map(String::valueOf).orElse("?"),
                    Views.attempt(thread::threadNum).map(String::valueOf).orElse("?"),
                    region.flatMap(r -> Views.attempt(r::level)).map(String::valueOf).orElse("-"),
                    region.flatMap(r -> Views.attempt(r::teamSize)).map(String::valueOf).orElse("-"),
                    views.state(thread));
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

    // ---------------------------------------------------------------- ompd step (internal)

    /** The entry point of the selected thread's current task, for {@code ompd step} ({@code 0x…}). */
    static String taskFunction(Views views, String arguments, GdbChannel gdb) {
        return views.hex(views.selectedThread().currentTask().function());
    }

    // ---------------------------------------------------------------- ompd tasks

    static String tasks(Views views, String arguments, GdbChannel gdb) {
        ThreadHandle thread = views.selectedThread();
        StringBuilder out = new StringBuilder();
        out.append(capitalized(describe(views, thread))).append(": tasks, innermost first (each generated by the next)\n");
        List<TaskHandle> chain = taskChain(thread);
        for (int i = 0; i < chain.size(); i++) {
            TaskHandle task = chain.get(i);
            out.append('#').append(i).append("  ").append(views.taskKind(task, i == chain.size() - 1))
                    .append(' ').append(views.hex(task.address()));
            String function = views.function(task);
            if (!function.isEmpty()) {
                out.append("  ").append(function);
            }
            Views.attempt(task::parallel).ifPresent(p -> out.append("  in ").append(views.region(p)));
            out.append('\n');
            Views.attempt(task::flags).ifPresent(flags -> {
                List<String> words = new ArrayList<>();
                if (flags.isFinal()) words.add("final");
                words.add(flags.tied() ? "tied" : "untied");
                if (flags.started()) words.add("started");
                if (flags.executing()) words.add("executing");
                if (flags.complete()) words.add("complete");
                if (flags.taskSerial()) words.add("serial");
                out.append("      flags: ").append(String.join(" ", words)).append('\n');
            });
            Views.attempt(task::frames).ifPresent(frames -> out.append("      frames: exit ")
                    .append(views.hex(frames.exitFrame())).append(", enter ").append(views.hex(frames.enterFrame()))
                    .append('\n'));
        }
        return out.toString();
    }

    /** The thread's current task and the tasks that generated it, innermost first. */
    static List<TaskHandle> taskChain(ThreadHandle thread) {
        List<TaskHandle> chain = new ArrayList<>();
        Optional<TaskHandle> task = Views.attempt(thread::currentTask);
        Set<TaskHandle> seen = new HashSet<>();
        while (task.isPresent() && seen.add(task.get()) && chain.size() < MAX_CHAIN) {
            chain.add(task.get());
            task = Views.attempt(task.get()::generating);
        }
        return chain;
    }

    // ---------------------------------------------------------------- ompd tree

    static String tree(Views views, String arguments, GdbChannel gdb) {
        boolean all = arguments.trim().equals("all");
        Session.Target target = views.target();
        ProcessSnapshot snapshot = ProcessSnapshot.take(target.process());
        RegionTree tree = RegionTree.of(snapshot);
        Map<Long, Integer> gdbByLwp = new TreeMap<>();
        target.gdbThreads().list(false).forEach(t -> gdbByLwp.put(t.lwp(), t.num()));

        StringBuilder out = new StringBuilder();
        out.append("OpenMP process ").append(target.description().backend()).append(": runtime ")
                .append(target.description().runtime()).append(", OpenMP ").append(snapshot.ompVersion()).append(", ")
                .append(snapshot.threads().size()).append(" OpenMP threads, ").append(snapshot.regions().size())
                .append(" parallel regions\n");
        TreePrinter printer = new TreePrinter(views, snapshot, tree, gdbByLwp, all, out);
        tree.roots().forEach(root -> printer.region(root, 1));
        if (tree.threadsByRegion().containsKey(RegionTree.NO_TEAM)) {
            out.append("  threads in no team (idle in the pool):\n");
            printer.threads(tree.threadsByRegion().get(RegionTree.NO_TEAM), 2);
        }
        if (!snapshot.problems().isEmpty()) {
            out.append("Problems:\n");
            snapshot.problems().forEach(p -> out.append("  ").append(p).append('\n'));
        }
        return out.toString();
    }

    /** Prints the region tree with each team's threads under it, alike threads grouped. */
    private record TreePrinter(Views views, ProcessSnapshot snapshot, RegionTree tree,
                               Map<Long, Integer> gdbByLwp, boolean all, StringBuilder out) {
        void region(String key, int depth) {
            ProcessSnapshot.RegionView region = snapshot.regions().get(key);
            out.append("  ".repeat(depth)).append(tree.ids().get(key)).append(" level ").append(region.level());
            if (region.level() > 0 && region.teamSize() == 1) {
                out.append(" serialized");
            }
            out.append(", team of ").append(region.teamSize()).append(", active level ").append(region.activeLevel());
            List<ProcessSnapshot.ThreadView> members = tree.threadsByRegion().getOrDefault(key, List.of());
            members.stream().filter(t -> !t.tasks().isEmpty() && t.tasks().getFirst().function().isPresent())
                    .map(t -> t.tasks().getFirst()).findFirst()
                    .filter(task -> region.level() > 0 && task.function().getAsLong() != 0)
                    .ifPresent(task -> out.append("  ").append(views.function(task)));
            out.append('\n');
            threads(members, depth + 1);
            for (String child : tree.children().getOrDefault(key, List.of())) {
                region(child, depth + 1);
            }
        }

        void threads(List<ProcessSnapshot.ThreadView> threads, int depth) {
            String indent = "  ".repeat(depth);
            List<List<ProcessSnapshot.ThreadView>> groups = new ArrayList<>();
            for (ProcessSnapshot.ThreadView thread : threads) {
                if (!all && !groups.isEmpty() && alike(groups.getLast().getFirst(), thread)) {
                    groups.getLast().add(thread);
                } else {
                    groups.add(new ArrayList<>(List.of(thread)));
                }
            }
            long selectedLwp = views.target().context().selected().map(TargetContext.SelectedThread::lwp).orElse(-1L);
            for (List<ProcessSnapshot.ThreadView> group : groups) {
                ProcessSnapshot.ThreadView first = group.getFirst();
                String state = first.state().replace("ompt_state_", "");
                if (group.size() == 1) {
                    out.append(indent).append("thread ").append(first.threadNum()).append("  gdb ").append(gdbNumber(first))
                            .append(first.lwp().isPresent() ? "  LWP " + first.lwp().getAsLong() : "")
                            .append("  gtid ").append(first.gtid()).append("  ").append(state);
                    if (first.waitId() != 0) {
                        out.append(" on 0x").append(Long.toHexString(first.waitId()));
                    }
                    if (first.lwp().isPresent() && first.lwp().getAsLong() == selectedLwp) {
                        out.append("   <- selected");
                    }
                } else {
                    out.append(indent).append("threads ").append(first.threadNum()).append("..").append(group.getLast().threadNum())
                            .append(" (").append(group.size()).append(" alike)  gdb ")
                            .append(dev.jompd.cli.Ranges.compact(group.stream().map(t -> (long) gdbNumber(t)).toList()))
                            .append("  ").append(state);
                    if (group.stream().anyMatch(t -> t.lwp().isPresent() && t.lwp().getAsLong() == selectedLwp)) {
                        out.append("   <- selected among them");
                    }
                }
                out.append('\n');
                List<ProcessSnapshot.TaskView> tasks = first.tasks();
                for (int i = 0; i < tasks.size(); i++) {
                    ProcessSnapshot.TaskView task = tasks.get(i);
                    boolean explicit = task.flags().map(TaskHandle.TaskFlags::explicit).orElse(false);
                    boolean outermost = i == tasks.size() - 1;
                    if (!explicit && i > 0) {
                        continue; // implicit tasks of enclosing regions: the tree above shows them
                    }
                    out.append(indent).append("    ").append(explicit ? "explicit task" : outermost ? "initial task" : "implicit task")
                            .append(group.size() == 1 ? " 0x" + Long.toHexString(task.address()) : "");
                    if (task.function().isPresent() && task.function().getAsLong() != 0 && (explicit || !outermost)) {
                        out.append("  ").append(views.function(task));
                    }
                    out.append('\n');
                }
            }
        }

        private int gdbNumber(ProcessSnapshot.ThreadView thread) {
            return thread.lwp().isPresent() ? gdbByLwp.getOrDefault(thread.lwp().getAsLong(), -1) : -1;
        }

        private static boolean alike(ProcessSnapshot.ThreadView a, ProcessSnapshot.ThreadView b) {
            return a.state().equals(b.state()) && a.tasks().size() == b.tasks().size() && !a.tasks().isEmpty()
                    && Objects.equals(a.tasks().getFirst().function(), b.tasks().getFirst().function())
                    && Objects.equals(a.tasks().getFirst().flags().map(TaskHandle.TaskFlags::explicit),
                            b.tasks().getFirst().flags().map(TaskHandle.TaskFlags::explicit));
        }
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
        JsonObject answer = gdb.ask("frames", question -> question.addProperty("limit", limit));
        List<JsonObject> frames = new ArrayList<>();
        for (JsonElement element : answer.getAsJsonArray("frames")) {
            frames.add(element.getAsJsonObject());
        }
        long[] addresses = new long[frames.size()];
        for (int i = 0; i < frames.size(); i++) {
            // The address __builtin_frame_address(0) gives in that frame (what OMPT records): CFA - 16
            // on x86-64 (return address and saved rbp lie between them).
            long cfa = TargetContext.number(frames.get(i), "cfa").orElse(0);
            addresses[i] = cfa == 0 ? 0 : cfa - 16;
        }
        List<TaskHandle> chain = taskChain(thread);
        List<FrameMarker.TaskFrames> chainFrames = chain.stream().map(task -> Views.attempt(task::frames)
                .map(f -> new FrameMarker.TaskFrames(f.exitFrame(), f.enterFrame()))
                .orElse(new FrameMarker.TaskFrames(0, 0))).toList();
        List<FrameMarker.Mark> marks = FrameMarker.mark(chainFrames, addresses);

        out.append(capitalized(describe(views, thread))).append(": backtrace marked by OpenMP task and region\n");
        FrameMarker.Mark previous = null;
        for (int i = 0; i < frames.size(); i++) {
            FrameMarker.Mark mark = marks.get(i);
            if (!mark.equals(previous)) {
                out.append(label(views, mark, chain)).append('\n');
                previous = mark;
            }
            out.append("  ").append(frames.get(i).get("text").getAsString()).append('\n');
        }
        if (answer.has("more") && answer.get("more").getAsBoolean()) {
            out.append("  (more frames follow: ompd bt N shows N)\n");
        }
        return out.toString();
    }

    private static String label(Views views, FrameMarker.Mark mark, List<TaskHandle> chain) {
        if (mark.owner() == FrameMarker.Owner.RUNTIME) {
            return "[OpenMP runtime]";
        }
        TaskHandle task = chain.get(mark.task());
        StringBuilder text = new StringBuilder();
        text.append(mark.owner() == FrameMarker.Owner.RUNTIME_FOR_TASK ? "[OpenMP runtime, called by " : "[");
        text.append(views.taskKind(task, mark.task() == chain.size() - 1)).append(' ').append(views.hex(task.address()));
        Views.attempt(task::parallel).ifPresent(p -> text.append(" in ").append(views.region(p)));
        return text.append(']').toString();
    }

    // ---------------------------------------------------------------- ompd json

    static String json(Views views, String arguments, GdbChannel gdb) {
        Session.Target target = views.target();
        ProcessSnapshot snapshot = ProcessSnapshot.take(target.process());
        // As `jompd inspect --json`: task functions with their file:line.
        return JsonReport.render(target.description(), snapshot, target.symbols(),
                SourceLines.ofTasks(snapshot, target.symbols())) + "\n";
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
