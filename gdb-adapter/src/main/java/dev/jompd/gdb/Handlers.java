package dev.jompd.gdb;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.ConsoleReport;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

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
            Map.entry("code-move", StepEntries::codeMove),
            Map.entry("leave-move", StepEntries::leaveMove),
            Map.entry("frame-owners", Handlers::frameOwners));


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
        List<ConsoleReport.DebuggerThread> all = target.gdbThreads().list(false).stream()
                .map(t -> new ConsoleReport.DebuggerThread(t.num(), OptionalLong.of(t.lwp()))).toList();
        return ConsoleReport.threads(target.picture(), views.console(), all);
    }

    // ---------------------------------------------------------------- ompd parallel

    static String parallel(Views views, String arguments, GdbChannel gdb) {
        OpenMpThread thread = views.selectedThread();
        return ConsoleReport.parallel(views.target().picture(), thread, views.console());
    }

    // ---------------------------------------------------------------- ompd icvs

    static String icvs(Views views, String arguments, GdbChannel gdb) {
        ConsoleReport.IcvSelection selection;
        try {
            selection = ConsoleReport.IcvSelection.of(arguments);
        } catch (IllegalArgumentException e) {
            throw new BridgeException(e.getMessage());
        }
        Optional<OpenMpThread> thread = selection.needsThread()
                ? Optional.of(views.selectedThread()) : Optional.empty();
        return ConsoleReport.icvs(views.target().picture(), selection, thread, views.console());
    }

    // ---------------------------------------------------------------- ompd tasks

    static String tasks(Views views, String arguments, GdbChannel gdb) {
        return ConsoleReport.tasks(views.target().picture(), views.selectedThread(), views.console());
    }

    // ---------------------------------------------------------------- ompd tree

    static String tree(Views views, String arguments, GdbChannel gdb) {
        TextReport.TreeArguments asked;
        try {
            asked = TextReport.TreeArguments.parse(arguments);
        } catch (IllegalArgumentException e) {
            throw new BridgeException(e.getMessage());
        }
        OpenMpPicture picture = views.target().picture();
        long selectedLwp = views.target().context().selected().map(TargetContext.SelectedThread::lwp).orElse(-1L);
        return TextReport.tree(picture, new TextReport.Options(asked.all(), false, thread -> {
            OptionalInt number = views.gdbNumber(thread);
            return views.target().context().debugger() + " " + (number.isPresent() ? Integer.toString(number.getAsInt()) : "?")
                    + (thread.lwp().isPresent() ? "  LWP " + thread.lwp().getAsLong() : "") + "  gtid " + thread.gtid();
        }, thread -> thread.lwp().isPresent() && thread.lwp().getAsLong() == selectedLwp, asked.history()));
    }

    // ---------------------------------------------------------------- ompd stacks

    /** Every OpenMP thread's native stack, merged by common call path (jompd's own unwinder). */
    static String stacks(Views views, String arguments, GdbChannel gdb) {
        return TextReport.stacks(parallelStacks(views, gdb));
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
            threads.add(TargetThread.fromRegisters(thread.get("lwp").getAsLong(), registers));
        }
        return threads;
    }

    /** Why the threads wait: the command line's `jompd diagnose`, on gdb's target. */
    static String diagnose(Views views, String arguments, GdbChannel gdb) {
        ParallelStacks stacks = parallelStacks(views, gdb);
        return TextReport.diagnosis(Diagnosis.of(stacks.picture(), Optional.of(stacks)));
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
        OpenMpThread thread = views.selectedThread();
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
                // initial, implicit, explicit, or task (kind unknown): what jompd.py's frame filter reads
                OpenMpPicture.TaskKind kind = mark.task().get().kind();
                out.append("task ").append(kind == OpenMpPicture.TaskKind.UNKNOWN ? "task"
                        : kind.name().toLowerCase(Locale.ROOT));
            } else {
                out.append("runtime");
            }
            out.append('\n');
        }
        return out.toString();
    }

    /** The selected thread's frames as gdb lists them, each marked with what it runs for. */
    private record MarkedFrames(List<JsonObject> frames, List<FrameOwnership.Mark> marks, boolean more) {}

    private static MarkedFrames markedFrames(Views views, GdbChannel gdb, OpenMpThread thread, int limit) {
        JsonObject answer = gdb.ask("frames", question -> question.addProperty("limit", limit));
        List<JsonObject> frames = new ArrayList<>();
        answer.getAsJsonArray("frames").forEach(element -> frames.add(element.getAsJsonObject()));
        long[] cfas = frames.stream().mapToLong(frame -> TargetContext.number(frame, "cfa").orElse(0)).toArray();
        OpenMpPicture picture = views.target().picture();
        return new MarkedFrames(frames, FrameOwnership.mark(picture.stackChain(thread), cfas),
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
    static String describe(Views views, OpenMpThread thread) {
        return ConsoleReport.describe(thread, views.console());
    }

    static String capitalized(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }
}
