package dev.jompd.dap.session;

import com.google.gson.GsonBuilder;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.ParallelHandle;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.openmp.OmpScope;
import dev.jompd.dap.openmp.OmpVariable;
import dev.jompd.dap.openmp.OpenMpView;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.Task;
import dev.jompd.report.Text;
import dev.jompd.report.TextReport;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

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
            ompd tree                 the whole process: regions, threads, tasks, ICVs
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
                + ": no OpenMP picture: " + debuggee.openMpProblem()));
        int selectedId = frame.map(StopState.FrameRef::thread).orElse(debuggee.lastStopThread());
        Optional<GdbThread> selected = debuggee.threads().stream().filter(t -> t.id() == selectedId).findFirst();
        OptionalLong lwp = selected.map(GdbThread::lwp).orElse(OptionalLong.empty());
        return switch (command) {
            case "init" -> Ompd.versionString() + "\n" + Ompd.ompVersionString(view.process()) + "\n"
                    + Ompd.threads(view.process()).size() + " OpenMP threads in " + view.target().backend();
            case "threads" -> threads(view, debuggee.threads(), selectedId);
            case "parallel" -> parallel(selectedThread(view, lwp));
            case "icvs" -> icvs(view, lwp, words.length > 1 ? words[1] : null);
            case "tasks" -> tasks(view.picture(), pictureThread(view, lwp));
            case "tree" -> TextReport.tree(view.picture(), new TextReport.Options(false, false, thread -> gdbIds(thread,
                    debuggee.threads()), thread -> thread.lwp().equals(lwp))).stripTrailing();
            case "stacks" -> withStacks(view, debuggee, stacks -> stacks.text().stripTrailing());
            case "diagnose" -> withStacks(view, debuggee, stacks -> Diagnosis.text(Diagnosis.of(view.picture(),
                    Optional.of(stacks))).stripTrailing());
            case "json" -> new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create().toJson(view.tree());
            default -> throw new DapException(ErrorId.EVALUATION_FAILED, "unknown ompd command \"" + command + "\"\n" + HELP);
        };
    }

    private static ThreadHandle selectedThread(OpenMpView view, OptionalLong lwp) {
        if (lwp.isEmpty()) {
            throw new DapException(ErrorId.EVALUATION_FAILED, "the selected thread has no LWP");
        }
        return view.thread(lwp.getAsLong()).orElseThrow(() ->
                new DapException(ErrorId.EVALUATION_FAILED, "the selected thread (LWP " + lwp.getAsLong() + ") is not an OpenMP thread"));
    }

    /** This stop's parallel stacks (unwound once per stop, shared with jompd/parallelStacks). */
    private static String withStacks(OpenMpView view, Debuggee debuggee,
                                     java.util.function.Function<ParallelStacks, String> render) {
        return render.apply(debuggee.parallelStacks().orElseThrow(() -> new DapException(ErrorId.EVALUATION_FAILED,
                "no OpenMP picture: " + debuggee.openMpProblem())));
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

    private static String threads(OpenMpView view, List<GdbThread> threads, int selected) {
        StringBuilder out = new StringBuilder(String.format("  %-5s %-8s %-5s %-4s %-5s %-5s %-6s %s%n",
                "gdb", "LWP", "gtid", "num", "level", "team", "path", "state"));
        StringBuilder others = new StringBuilder();
        for (GdbThread thread : threads) {
            Optional<OpenMpThread> omp = thread.lwp().isPresent() ? view.picture().threadByLwp(thread.lwp().getAsLong())
                    : Optional.empty();
            String mark = thread.id() == selected ? "* " : "  ";
            if (omp.isEmpty()) {
                others.append(others.isEmpty() ? "" : ", ").append(thread.id());
                continue;
            }
            OpenMpThread t = omp.get();
            boolean inTeam = t.region().isPresent();
            out.append(mark).append(String.format("%-5d %-8s %-5s %-4s %-5s %-5s %-6s %s%n", thread.id(),
                    thread.lwp().getAsLong(), t.gtid(), t.threadNum(), inTeam ? t.level() : "-", inTeam ? t.teamSize() : "-",
                    t.teamPath().isEmpty() ? "-" : t.path(), t.stateKnown() ? Text.stateName(t) : "(" + Text.stateName(t) + ")"));
        }
        if (!others.isEmpty()) {
            out.append("not OpenMP threads: ").append(others).append('\n');
        }
        return out.toString().stripTrailing();
    }

    private static String parallel(ThreadHandle thread) {
        StringBuilder out = new StringBuilder();
        Optional<ParallelHandle> region = attempt(thread::currentParallel);
        Set<String> seen = new HashSet<>();
        while (region.isPresent() && seen.add(region.get().toString()) && seen.size() < 256) {
            ParallelHandle r = region.get();
            out.append(String.format("level %s: team of %s, active level %s%s, team 0x%x%n",
                    attempt(r::level).map(String::valueOf).orElse("?"),
                    attempt(r::teamSize).map(String::valueOf).orElse("?"),
                    attempt(r::activeLevel).map(String::valueOf).orElse("?"),
                    r.isSerializedLevel() ? " (serialized)" : "", r.teamAddress()));
            region = attempt(r::enclosing);
        }
        return out.isEmpty() ? "the thread is in no parallel region" : out.toString().stripTrailing();
    }

    private static String icvs(OpenMpView view, OptionalLong lwp, String filter) {
        List<OmpScope> scopes = lwp.isPresent() ? view.scopes(lwp.getAsLong(), OptionalLong.empty())
                : view.scopes(-1, OptionalLong.empty());
        StringBuilder out = new StringBuilder();
        for (OmpScope scope : scopes) {
            boolean wholeScope = filter == null || filter.equals("all") || scope.name().toLowerCase(Locale.ROOT)
                    .contains(filter.equals("address_space") ? "process" : filter.toLowerCase(Locale.ROOT));
            StringBuilder rows = new StringBuilder();
            for (OmpVariable row : scope.variables()) {
                if (row.type().startsWith("ICV") && (wholeScope || row.name().equals(filter))) {
                    rows.append(String.format("  %-24s %s%n", row.name(), row.value()));
                }
            }
            if (!rows.isEmpty()) {
                out.append(scope.name()).append('\n').append(rows);
            }
        }
        return out.isEmpty() ? "no ICV matches " + filter : out.toString().stripTrailing();
    }

    private static String tasks(OpenMpPicture picture, OpenMpThread thread) {
        StringBuilder out = new StringBuilder();
        for (Task task : picture.chain(thread)) {
            out.append(task.describe()).append(" at ").append(Text.hex(task.address()));
            task.region().flatMap(picture::region).ifPresent(r -> out.append(" in ").append(r.describe()));
            out.append('\n');
        }
        return out.isEmpty() ? "the thread executes no task" : out.toString().stripTrailing();
    }

    private static <T> Optional<T> attempt(java.util.function.Supplier<T> query) {
        try {
            return Optional.ofNullable(query.get());
        } catch (dev.jompd.core.ompd.OmpdException e) {
            return Optional.empty();
        }
    }
}
