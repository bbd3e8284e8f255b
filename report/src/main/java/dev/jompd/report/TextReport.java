package dev.jompd.report;

import dev.jompd.core.ompd.IcvReading;
import dev.jompd.core.ompd.ThreadState;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.OpenMpPicture.Task;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The picture as text: the tree of regions with each thread under its innermost team and its tasks, the
 * process ICVs, the start-up settings, notices and problems. The command line prints all of it; the gdb
 * bridge's {@code ompd tree} prints the tree with gdb's thread numbers. Threads are grouped only when
 * {@link ThreadGroups#alike}; a task on several chains (an ancestor) is shown once and referred to after.
 */
public final class TextReport {
    /**
     * How to render.
     *
     * @param all      one line per thread instead of groups
     * @param colour   ANSI colours
     * @param ids      a thread's identities as this door names them ("gtid 5  LWP 4711", "gdb 3  LWP 4711")
     * @param selected the thread the user has selected (marked), if the door has one
     * @param history  how many of each thread's most recent recorded events to show ({@link #ALL_HISTORY}:
     *                 every event the recorder keeps)
     */
    public record Options(boolean all, boolean colour, Function<OpenMpThread, String> ids,
                          Predicate<OpenMpThread> selected, int history) {
        /** {@link #history()} for every recorded event. */
        public static final int ALL_HISTORY = Integer.MAX_VALUE;

        public Options {
            if (history < 0) {
                throw new IllegalArgumentException("a negative number of events: " + history);
            }
        }

        /** The last {@link RecordedHistory#RECENT_EVENTS} recorded events of each thread. */
        public Options(boolean all, boolean colour, Function<OpenMpThread, String> ids,
                       Predicate<OpenMpThread> selected) {
            this(all, colour, ids, selected, RecordedHistory.RECENT_EVENTS);
        }

        public static Options commandLine(boolean all, boolean colour) {
            return new Options(all, colour, thread -> "gtid " + thread.gtid()
                    + (thread.lwp().isPresent() ? "  LWP " + thread.lwp().getAsLong() : ""), thread -> false);
        }

        /** These options showing the last {@code events} recorded events of each thread. */
        public Options withHistory(int events) {
            return new Options(all, colour, ids, selected, events);
        }

        /**
         * What {@code --history} (and the gdb bridge's and DAP console's {@code history} argument) says: a
         * number of events (0 or more), or {@code all}.
         *
         * @throws IllegalArgumentException for anything else, saying what is expected
         */
        public static int parseHistory(String value) {
            String trimmed = value.trim();
            if (trimmed.equals("all")) {
                return ALL_HISTORY;
            }
            try {
                int events = Integer.parseInt(trimmed);
                if (events >= 0) {
                    return events;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            throw new IllegalArgumentException("history: expected a number of events (0 or more) or 'all', got '"
                    + value + "'");
        }
    }

    /**
     * What a console's {@code ompd tree [all] [history N|all]} asks for (the gdb bridge's and the DAP debug
     * console's): every thread on its own line, and how many recorded events per thread.
     */
    public record TreeArguments(boolean all, int history) {
        public static final String USAGE = "ompd tree [all] [history N|all]";

        /** @throws IllegalArgumentException with the usage, for words it does not know */
        public static TreeArguments parse(String arguments) {
            boolean all = false;
            int history = RecordedHistory.RECENT_EVENTS;
            String[] words = arguments.trim().isEmpty() ? new String[0] : arguments.trim().split("\\s+");
            for (int i = 0; i < words.length; i++) {
                if (words[i].equals("all")) {
                    all = true;
                } else if (words[i].equals("history") && i + 1 < words.length) {
                    try {
                        history = Options.parseHistory(words[++i]);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(e.getMessage() + "\nusage: " + USAGE);
                    }
                } else {
                    throw new IllegalArgumentException("usage: " + USAGE + " (not understood: " + words[i] + ")");
                }
            }
            return new TreeArguments(all, history);
        }
    }

    private final OpenMpPicture picture;
    private final Options options;
    private final Set<String> shownTasks = new HashSet<>();
    private final StringBuilder out = new StringBuilder();

    private TextReport(OpenMpPicture picture, Options options) {
        this.picture = picture;
        this.options = options;
    }

    /** The whole report, as {@code jompd inspect} prints it. */
    public static String render(OpenMpPicture picture, Options options) {
        TextReport report = new TextReport(picture, options);
        report.header();
        report.out.append(report.bold("Parallel regions")).append('\n');
        report.tree();
        report.history();
        report.icvsAndSettings();
        report.problems();
        return report.out.toString();
    }

    /** The header line and the tree only, as the gdb bridge's {@code ompd tree} prints it. */
    public static String tree(OpenMpPicture picture, Options options) {
        TextReport report = new TextReport(picture, options);
        report.out.append("OpenMP process ").append(picture.target().backend()).append(": ").append(report.summary())
                .append('\n');
        report.tree();
        report.history();
        report.problems();
        return report.out.toString();
    }

    /** Parallel stacks as text: the merged tree, each node with its thread count, the threads named where paths part. */
    public static String stacks(ParallelStacks stacks) {
        StringBuilder out = new StringBuilder();
        out.append("Parallel stacks: ").append(stacks.stacks().size()).append(" OpenMP threads\n");
        for (ParallelStacks.Node root : stacks.roots()) {
            stackNode(root, 1, out);
        }
        for (ParallelStacks.ThreadStack stack : stacks.stacks()) {
            stack.stack().truncation().ifPresent(t -> out.append("  note: ").append(stack.thread().name())
                    .append(": stack cut short, ").append(t).append('\n'));
        }
        return out.toString();
    }

    private static void stackNode(ParallelStacks.Node node, int depth, StringBuilder out) {
        // A chain of nodes all threads pass through prints one line each; where paths part, the count
        // and, at the ends, who they are.
        out.append("  ".repeat(depth)).append(node.threads().size()).append("× ").append(node.step().describe());
        if (node.children().isEmpty() || node.children().size() > 1 || node.children().getFirst().threads().size()
                != node.threads().size()) {
            out.append("   ").append(stackThreads(node.threads()));
        }
        out.append('\n');
        int childDepth = node.children().size() == 1 && node.children().getFirst().threads().size() == node.threads().size()
                ? depth : depth + 1;
        for (ParallelStacks.Node child : node.children()) {
            stackNode(child, childDepth, out);
        }
    }

    private static String stackThreads(List<OpenMpThread> threads) {
        if (threads.size() == 1) {
            return "[" + threads.getFirst().name() + "]";
        }
        List<String> states = threads.stream().filter(OpenMpThread::stateKnown).map(t -> Text.shortState(t.state().get()))
                .distinct().toList();
        return "[gtids " + Text.ranges(threads.stream().map(OpenMpThread::gtid).sorted().toList())
                + (states.size() == 1 ? ", all " + states.getFirst() : "") + "]";
    }

    /** The diagnosis's findings as text: each summary with its evidence. */
    public static String diagnosis(List<Diagnosis.Finding> findings) {
        StringBuilder out = new StringBuilder("Diagnosis\n");
        for (Diagnosis.Finding finding : findings) {
            out.append("  - ").append(finding.summary()).append('\n');
            finding.evidence().forEach(e -> out.append("      ").append(e).append('\n'));
        }
        return out.toString();
    }

    /** What the jompd-recorder kept: lock holders, deadlocks, each thread's most recent events. */
    private void history() {
        if (picture.history().isEmpty()) {
            return;
        }
        RecordedHistory history = picture.history().get();
        out.append('\n').append(bold("Recorded history")).append(" (jompd-recorder ").append(history.snapshot().module())
                .append(", monitoring ").append(history.snapshot().monitoring().name().toLowerCase(java.util.Locale.ROOT))
                .append(", ").append(history.snapshot().ringCapacity()).append(" events kept per thread")
                .append(")\n");
        for (var holder : history.lockHolders()) {
            out.append("  ").append(holder.kindName()).append(' ').append(Text.hex(holder.waitId())).append(": held by ")
                    .append(holder.holder().map(t -> "LWP " + t.lwp()).orElse("nobody the recorder saw"));
            if (!holder.waiters().isEmpty()) {
                out.append(", waited for by LWP ").append(Text.ranges(holder.waiters().stream()
                        .map(dev.jompd.core.recorder.RecordedThread::lwp).sorted().toList()));
            }
            out.append('\n');
        }
        for (var cycle : history.deadlocks()) {
            out.append(paint("31", "  deadlock: ")).append(String.join(" -> ", cycle.stream()
                    .map(t -> "LWP " + t.lwp()).toList())).append(" -> LWP ").append(cycle.getFirst().lwp())
                    .append(" (each waits for a mutex the next one holds)\n");
        }
        out.append("  (").append(RecordedHistory.TIME_REFERENCE).append(")\n");
        for (String mark : history.marks(picture)) {
            out.append("  ").append(mark).append('\n');
        }
        for (var device : history.devices(picture)) {
            out.append("  ").append(device.summary()).append('\n');
        }
        for (OpenMpThread thread : picture.threads()) {
            var why = history.whyHere(picture, thread);
            if (!why.isEmpty()) {
                out.append("  ").append(thread.name()).append(": why here\n");
                for (String sentence : why) {
                    out.append("    ").append(sentence).append('\n');
                }
            }
            var events = history.recent(thread, options.history());
            if (events.isEmpty()) {
                continue;
            }
            out.append("  ").append(thread.name()).append(", ").append(eventsShown(events.size(), history, thread))
                    .append(":\n");
            List<String> described = history.describe(thread, events);
            for (int i = 0; i < events.size(); i++) {
                out.append("    ").append(history.relative(events.get(i).timeNanos())).append("  ").append(described.get(i))
                        .append('\n');
            }
        }
    }

    /**
     * {@code last 8 of 40 events kept (152 older ones overwritten)}: how much of the thread's history is shown
     * and how much the recorder still has, so that a reader knows what asking for more would give.
     */
    private static String eventsShown(int shown, RecordedHistory history, OpenMpThread thread) {
        var recorded = history.of(thread);
        int kept = recorded.map(r -> r.events().size()).orElse(shown);
        long lost = recorded.map(r -> r.eventsLost()).orElse(0L);
        String text = shown == kept ? "all " + kept + " events kept" : "last " + shown + " of " + kept + " events kept";
        return text + (lost > 0 ? " (" + lost + " older ones overwritten)" : "");
    }

    private String summary() {
        return "runtime " + picture.target().runtime() + " (read by " + picture.runtimeReading() + "), "
                + picture.version().words() + ", "
                + picture.threads().size() + " OpenMP threads, " + picture.regions().size() + " parallel regions";
    }

    private void header() {
        out.append(bold("OpenMP process")).append(' ').append(picture.target().name()).append(" (")
                .append(picture.target().backend()).append(")\n  ").append(summary()).append('\n');
        for (String notice : picture.notices()) {
            out.append(paint("33", "  note: " + notice)).append('\n');
        }
        out.append('\n');
    }

    private void tree() {
        for (ParallelRegion root : picture.roots()) {
            region(root, 1, new HashSet<>());
        }
        List<OpenMpThread> idle = picture.members(Optional.empty());
        if (!idle.isEmpty()) {
            out.append("  threads in no team (idle in the pool):\n");
            threads(idle, 2);
        }
        // the tasks created and not started, which no thread's chain reaches
        NotStartedTasks.lines(picture, "  ").forEach(line -> out.append(line).append('\n'));
    }

    private void region(ParallelRegion region, int depth, Set<String> visited) {
        if (!visited.add(region.id()) || depth > picture.regions().size() + 1) {
            return; // corrupt memory can make a region its own ancestor
        }
        String indent = "  ".repeat(depth);
        out.append(indent).append(paint("36", region.id() + " " + region.describe()));
        if (region.level() > 0) {
            out.append(", active level ").append(region.activeLevel());
        }
        if (!region.teamPath().isEmpty()) {
            out.append(", team path ").append(region.path());
        }
        region.function().ifPresent(function -> out.append("  ").append(function.describe()));
        if (region.toolData().value() != 0) {
            out.append(", tool data ").append(Long.toUnsignedString(region.toolData().value()));
        }
        if (region.ended()) {
            out.append('\n').append(indent).append("  (ended: ").append(region.endedBecause()).append(')');
        }
        out.append('\n');
        threads(picture.members(Optional.of(region.id())), depth + 1);
        for (ParallelRegion child : picture.children(region)) {
            region(child, depth + 1, visited);
        }
    }

    private void threads(List<OpenMpThread> members, int depth) {
        String indent = "  ".repeat(depth);
        for (List<OpenMpThread> group : picture.groups(members, options.all())) {
            OpenMpThread first = group.getFirst();
            if (group.size() == 1) {
                out.append(indent).append(paint("1", "thread " + first.threadNum())).append("  ")
                        .append(options.ids().apply(first));
            } else {
                out.append(indent).append(paint("1", "threads " + Text.ranges(group.stream().map(OpenMpThread::threadNum).toList())))
                        .append(" (").append(group.size()).append(" alike)  gtids ")
                        .append(Text.ranges(group.stream().map(OpenMpThread::gtid).toList()));
                List<Long> lwps = group.stream().filter(t -> t.lwp().isPresent()).map(t -> t.lwp().getAsLong()).toList();
                if (lwps.size() == group.size()) {
                    out.append("  LWPs ").append(Text.ranges(lwps));
                }
            }
            out.append("  ").append(first.state().map(state -> paint(stateColour(state), Text.shortState(state)))
                    .orElseGet(() -> "(state " + Text.stateName(first) + ")"));
            if (first.waitId().orElse(0) != 0) {
                out.append(" on ").append(Text.hex(first.waitId().getAsLong()));
            }
            if (first.toolData().value() != 0) {
                out.append("  tool data ").append(Long.toUnsignedString(first.toolData().value()));
            }
            if (group.stream().anyMatch(options.selected())) {
                out.append(group.size() == 1 ? "   <- selected" : "   <- selected among them");
            }
            out.append('\n');
            tasks(group, indent + "    ");
        }
    }

    /** The group's chain, innermost first, until a task already shown. */
    private void tasks(List<OpenMpThread> group, String indent) {
        List<List<Task>> chains = group.stream().map(picture::chain).toList();
        int length = chains.getFirst().size();
        for (int position = 0; position < length; position++) {
            int at = position;
            List<Task> here = chains.stream().map(chain -> chain.get(at)).toList();
            Task task = here.getFirst();
            if (here.stream().allMatch(t -> shownTasks.contains(t.id()))) {
                out.append(indent).append("then ").append(task.kind().words()).append(' ').append(ids(here))
                        .append(" (shown above)\n");
                break;
            }
            here.forEach(t -> shownTasks.add(t.id()));
            out.append(indent).append(task.kind().words()).append(' ').append(ids(here));
            task.flags().ifPresent(f -> {
                if (f.isFinal()) out.append(" final");
                if (f.explicit() && !f.tied()) out.append(" untied");
            });
            task.function().ifPresent(function -> out.append("  ").append(function.describe()));
            if (task.status() != OpenMpPicture.TaskStatus.UNKNOWN) {
                out.append(", ").append(picture.statusWords(task, Optional.of(group.getFirst())));
            }
            out.append('\n');
            if (position == 0) {
                icvLine(group, task, indent + "  ");
            }
        }
        // the thread's own tasks suspended under the one it runs (at a barrier, a taskwait, a taskyield), which its
        // chain of generating tasks does not pass through
        for (OpenMpThread thread : group) {
            List<String> chain = thread.taskIds();
            List<Task> suspended = picture.stackChain(thread).stream().filter(t -> !chain.contains(t.id())).toList();
            if (suspended.isEmpty()) {
                continue;
            }
            out.append(indent).append(group.size() == 1 ? "" : "thread " + thread.threadNum() + ": ")
                    .append("suspended on its stack under the task it runs: ")
                    .append(String.join(", ", suspended.stream().map(t -> t.kind().words() + " " + t.id()
                            + t.function().map(f -> " " + f.describe()).orElse("")).toList())).append('\n');
        }
    }

    private static String ids(List<Task> tasks) {
        List<String> distinct = tasks.stream().map(Task::id).distinct().toList();
        if (distinct.size() <= 4) {
            return String.join(",", distinct);
        }
        return distinct.getFirst() + ",…," + distinct.getLast() + " (" + distinct.size() + ")";
    }

    private void icvLine(List<OpenMpThread> group, Task task, String indent) {
        List<String> icvs = new ArrayList<>();
        // ompd-* aliases repeat their OpenMP names; unreadable ICVs are left to --json, which keeps the reason.
        group.getFirst().icvs().forEach((name, reading) -> {
            boolean ownNumber = name.equals("thread-num-var");
            if ((!ownNumber || group.size() == 1) && !name.startsWith("ompd-")
                    && reading instanceof IcvReading.Value(String value)) {
                icvs.add(name + "=" + Text.quotedIfEmpty(value));
            }
        });
        task.icvs().forEach((name, reading) -> {
            if (!name.equals("implicit-task-var") && !name.equals("final-task-var") && !name.startsWith("ompd-")
                    && reading instanceof IcvReading.Value(String value)) {
                icvs.add(name + "=" + Text.quotedIfEmpty(value));
            }
        });
        out.append(indent).append("ICVs: ").append(String.join(" ", icvs)).append('\n');
    }

    private void icvsAndSettings() {
        out.append('\n').append(bold("Process ICVs")).append('\n');
        picture.processIcvs().forEach((name, reading) -> out.append("  ").append(pad(name, 24))
                .append(switch (reading) {
                    case IcvReading.Value value -> Text.quotedIfEmpty(value.text());
                    case IcvReading.Failed failed -> Text.notRead(failed);
                }).append('\n'));
        StartupSettings startup = picture.startup();
        out.append('\n').append(bold(StartupSettings.ENVIRONMENT_HEADING)).append(": ")
                .append(StartupSettings.ENVIRONMENT_LABEL).append('\n');
        if (startup.environmentNotRead().isPresent()) {
            out.append("  (not read: ").append(startup.environmentNotRead().get()).append(")\n");
        } else if (startup.environment().isEmpty()) {
            out.append("  (none set)\n");
        }
        startup.environment().forEach((name, value) -> out.append("  ").append(pad(name, 24))
                .append(Text.quotedIfEmpty(value)).append('\n'));
        List<StartupSettings.Setting> settings = picture.startup().settings().stream()
                .filter(s -> s.name().startsWith("OMP_")).toList();
        if (!settings.isEmpty()) {
            out.append('\n').append(bold(StartupSettings.HEADING)).append(": ").append(StartupSettings.LABEL).append('\n');
            settings.forEach(s -> out.append("  ").append(pad(s.name(), 24)).append(s.shown()).append('\n'));
        }
    }

    private void problems() {
        if (!picture.problems().isEmpty()) {
            out.append('\n').append(paint("31", "Problems")).append('\n');
            picture.problems().forEach(p -> out.append("  ").append(p).append('\n'));
        }
    }

    private static String stateColour(ThreadState state) {
        return state.name().startsWith("WAIT_") ? "33" : state.name().startsWith("WORK_") ? "32" : "0";
    }

    private String bold(String text) {
        return paint("1", text);
    }

    private String paint(String code, String text) {
        return options.colour() ? "\033[" + code + "m" + text + "\033[0m" : text;
    }

    private static String pad(String text, int width) {
        return text.length() >= width ? text + " " : text + " ".repeat(width - text.length());
    }
}
