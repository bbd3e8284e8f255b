package dev.jompd.dap.session;

import com.google.gson.GsonBuilder;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.openmp.OpenMpView;
import dev.jompd.report.ConsoleReport;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.TextReport;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The {@code ompd …} commands of the debug console, named as the gdb bridge names them (init, threads,
 * parallel, icvs, tasks, tree, json), answered from the session's OpenMP picture of the current stop.
 */
final class OmpdCommands {
    static final String HELP = """
            ompd init                 what OMPD found in this process
            ompd threads              every OpenMP thread: gdb thread, LWP, gtid, number, level, team size, state
            ompd parallel             the selected thread's regions, innermost first
            ompd icvs [SCOPE|NAME]    ICVs seen from the selected thread (task, parallel, thread, process)
            ompd tasks                the selected thread's task chain
            ompd tree [all] [history N|all]
                                      the whole process: regions, threads, tasks, ICVs; every thread on
                                      its own line with all; N (or every) recorded events per thread
            ompd stacks               where every thread is: parallel stacks (jompd's own unwinder)
            ompd diagnose             why threads wait: barriers, locks, critical sections, deadlocks
            ompd json                 the same as JSON (schema jompd-inspect/1)
            The selected thread is the frame's thread (or the thread of the last stop).""";

    String run(String arguments, Debuggee debuggee, Optional<StopState.FrameRef> frame) {
        String[] words = arguments.isBlank() ? new String[] {"help"} : arguments.split("\\s+");
        String command = words[0].toLowerCase(Locale.ROOT);
        if (command.equals("help")) {
            return HELP;
        }
        OpenMpView view = debuggee.openMp().orElseThrow(() -> new DapException(ErrorId.EVALUATION_FAILED, "ompd " + command
                + ": " + debuggee.openMpProblem()));
        int selectedId = frame.map(StopState.FrameRef::thread).orElse(debuggee.lastStopThread());
        Optional<GdbThread> selected = debuggee.threads().stream().filter(t -> t.id() == selectedId).findFirst();
        OptionalLong lwp = selected.map(GdbThread::lwp).orElse(OptionalLong.empty());
        return switch (command) {
            case "init" -> Ompd.versionString() + "\n" + Ompd.ompVersionString(view.process()) + "\n"
                    + Ompd.threads(view.process()).size() + " OpenMP threads in " + view.target().backend();
            case "threads" -> ConsoleReport.threads(view.picture(), console(debuggee.threads(), selectedId),
                    debuggee.threads().stream().map(t -> new ConsoleReport.DebuggerThread(t.id(), t.lwp())).toList())
                    .stripTrailing();
            case "parallel" -> ConsoleReport.parallel(view.picture(), pictureThread(view, lwp),
                    console(debuggee.threads(), selectedId)).stripTrailing();
            case "icvs" -> icvs(view, lwp, words.length > 1 ? words[1] : "", console(debuggee.threads(), selectedId));
            case "tasks" -> ConsoleReport.tasks(view.picture(), pictureThread(view, lwp),
                    console(debuggee.threads(), selectedId)).stripTrailing();
            case "tree" -> {
                TextReport.TreeArguments asked;
                try {
                    asked = TextReport.TreeArguments.parse(arguments.strip().substring(words[0].length()));
                } catch (IllegalArgumentException e) {
                    throw new DapException(ErrorId.EVALUATION_FAILED, e.getMessage());
                }
                yield TextReport.tree(view.picture(), new TextReport.Options(asked.all(), false, thread -> gdbIds(thread,
                        debuggee.threads()), thread -> thread.lwp().equals(lwp), asked.history())).stripTrailing();
            }
            case "stacks" -> withStacks(view, debuggee, stacks -> TextReport.stacks(stacks).stripTrailing());
            case "diagnose" -> withStacks(view, debuggee, stacks -> TextReport.diagnosis(Diagnosis.of(view.picture(),
                    Optional.of(stacks))).stripTrailing());
            case "json" -> new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(view.tree());
            default -> throw new DapException(ErrorId.EVALUATION_FAILED, "unknown ompd command \"" + command + "\"\n" + HELP);
        };
    }

    /** This stop's parallel stacks (unwound once per stop, shared with jompd/parallelStacks). */
    private static String withStacks(OpenMpView view, Debuggee debuggee,
                                     java.util.function.Function<ParallelStacks, String> render) {
        return render.apply(debuggee.parallelStacks().orElseThrow(() -> new DapException(ErrorId.EVALUATION_FAILED,
                debuggee.openMpProblem())));
    }

    private static OpenMpThread pictureThread(OpenMpView view, OptionalLong lwp) {
        if (lwp.isEmpty()) {
            throw new DapException(ErrorId.EVALUATION_FAILED, "the selected thread has no LWP");
        }
        return view.picture().threadByLwp(lwp.getAsLong()).orElseThrow(() ->
                new DapException(ErrorId.EVALUATION_FAILED, "the selected thread (LWP " + lwp.getAsLong() + ") is not an OpenMP thread"));
    }

    /** "gdb 3  LWP 4711  gtid 5", as the gdb bridge's tree names threads. */
    private static String gdbIds(OpenMpThread thread, List<GdbThread> threads) {
        String gdb = threads.stream().filter(t -> t.lwp().equals(thread.lwp())).findFirst()
                .map(t -> Integer.toString(t.id())).orElse("?");
        return "gdb " + gdb + (thread.lwp().isPresent() ? "  LWP " + thread.lwp().getAsLong() : "") + "  gtid " + thread.gtid();
    }

    /**
     * How the console names threads: by gdb's numbers (the DAP thread ids), the frame's thread selected; the
     * same renderings as the gdb bridge's commands.
     */
    private static ConsoleReport.Options console(List<GdbThread> threads, int selectedId) {
        return new ConsoleReport.Options("gdb", thread -> threads.stream()
                .filter(t -> thread.lwp().isPresent() && t.lwp().equals(thread.lwp())).findFirst()
                .map(t -> OptionalInt.of(t.id())).orElse(OptionalInt.empty()),
                thread -> thread.lwp().isPresent() && threads.stream().anyMatch(t -> t.id() == selectedId
                        && t.lwp().equals(thread.lwp())));
    }

    private static String icvs(OpenMpView view, OptionalLong lwp, String argument, ConsoleReport.Options console) {
        ConsoleReport.IcvSelection selection;
        try {
            selection = ConsoleReport.IcvSelection.of(argument);
        } catch (IllegalArgumentException e) {
            throw new DapException(ErrorId.EVALUATION_FAILED, e.getMessage());
        }
        Optional<OpenMpThread> thread = selection.needsThread() ? Optional.of(pictureThread(view, lwp)) : Optional.empty();
        return ConsoleReport.icvs(view.picture(), selection, thread, console).stripTrailing();
    }
}
