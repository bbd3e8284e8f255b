package dev.jompd.dap.openmp;

import com.google.gson.JsonObject;
import dev.jompd.core.ompd.IcvReading;
import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.ompd.ThreadIdKind;
import dev.jompd.core.ompd.ToolData;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.report.CodeNames;
import dev.jompd.report.FrameOwnership;
import dev.jompd.report.JsonReport;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.OpenMpPicture.Task;
import dev.jompd.report.RecordedHistory;
import dev.jompd.report.StartupSettings;
import dev.jompd.report.TargetDescription;
import dev.jompd.report.Text;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * OpenMP's picture of one stop as the DAP server shows it: a name per OS thread, the four OpenMP scopes
 * of a frame, the whole tree as {@code jompd-inspect/1} JSON. It only renders the stop's
 * {@link OpenMpPicture} (the model every door shares): no memory is read and no libomp knowledge is here.
 */
public final class OpenMpView {
    private final AddressSpaceHandle process;
    private final TargetDescription target;
    private final CodeNames names;
    private final OpenMpPicture picture;

    OpenMpView(AddressSpaceHandle process, TargetDescription target, CodeNames names, OpenMpPicture picture) {
        this.process = process;
        this.target = target;
        this.names = names;
        this.picture = picture;
    }

    public OpenMpPicture picture() {
        return picture;
    }

    /** "omp 2/4 · level 2 · …" of the thread with this pthread_t (as libthread_db gave it to gdb). */
    public Optional<String> threadNameByPthread(long pthread) {
        return picture.threadByPthread(pthread).map(OpenMpThread::name);
    }

    /**
     * The OMPD handle of the picture's thread on OS thread {@code lwp}, if it is one, for core's rules that read the
     * runtime at a stop (step-into).
     */
    public Optional<ThreadHandle> thread(long lwp) {
        return picture.threadByLwp(lwp).map(thread -> Ompd.threadHandle(process, ThreadIdKind.GTID, thread.gtid()));
    }

    /** "omp 2/4 · level 2 · wait_barrier_explicit", when {@code lwp} is an OpenMP thread. */
    public Optional<String> threadName(long lwp) {
        return picture.threadByLwp(lwp).map(OpenMpThread::name);
    }

    /**
     * The OpenMP scopes of a frame of OS thread {@code lwp}: its task, that task's region, the thread, the
     * process. {@code frameAddress} is the frame's canonical frame address and {@code innermostFrameAddress}
     * the thread's innermost frame's (empty: the innermost frame itself), which pick the task whose code the
     * frame belongs to ({@link FrameOwnership}, the rule of every door).
     */
    public List<OmpScope> scopes(long lwp, OptionalLong frameAddress, OptionalLong innermostFrameAddress) {
        Optional<OpenMpThread> thread = picture.threadByLwp(lwp);
        if (thread.isEmpty()) {
            return List.of(new OmpScope(OmpScope.PROCESS, processRows()));
        }
        List<Task> chain = picture.stackChain(thread.get());
        Optional<Task> task = frameAddress.isPresent()
                ? FrameOwnership.taskOf(chain, frameAddress.getAsLong(),
                        innermostFrameAddress.orElse(frameAddress.getAsLong()))
                : chain.stream().findFirst();
        List<OmpScope> scopes = new ArrayList<>();
        scopes.add(new OmpScope(OmpScope.TASK, task.map(t -> taskRows(t, thread.get()))
                .orElse(List.of(OmpVariable.leaf("task", "none (the thread executes no task)", "")))));
        Optional<ParallelRegion> region = task.flatMap(Task::region).or(thread.get()::region).flatMap(picture::region);
        scopes.add(new OmpScope(OmpScope.PARALLEL, region.map(OpenMpView::regionRows)
                .orElse(List.of(OmpVariable.leaf("region", "none (the thread is in no team)", "")))));
        List<OmpVariable> threadRows = new ArrayList<>(threadRows(thread.get()));
        threadRows.addAll(historyRows(thread.get()));
        scopes.add(new OmpScope(OmpScope.THREAD, threadRows));
        scopes.add(new OmpScope(OmpScope.PROCESS, processRows()));
        return scopes;
    }

    /** {@link #scopes(long, OptionalLong, OptionalLong)} when only the frame's own address is known. */
    public List<OmpScope> scopes(long lwp, OptionalLong frameAddress) {
        return scopes(lwp, frameAddress, OptionalLong.empty());
    }

    private List<OmpVariable> taskRows(Task task, OpenMpThread viewer) {
        List<OmpVariable> rows = new ArrayList<>();
        rows.add(OmpVariable.leaf("task", task.kind().words() + " " + task.id() + " at " + Text.hex(task.address()),
                "kmp_taskdata_t *"));
        rows.add(OmpVariable.leaf("status", picture.statusWords(task, Optional.of(viewer)), "task flags"));
        task.flags().ifPresent(flags -> rows.add(OmpVariable.leaf("kind", Text.taskFlags(flags), "task flags")));
        task.function().ifPresent(function -> rows.add(OmpVariable.leaf("function",
                function.describe() + " (" + Text.hex(function.address()) + ")", "task function")));
        task.frames().ifPresent(frames -> {
            rows.add(OmpVariable.leaf("exit frame", Text.hex(frames.exitFrame()) + " flags 0x"
                    + Integer.toHexString(frames.exitFrameFlags()), "ompt_frame_t"));
            rows.add(OmpVariable.leaf("enter frame", Text.hex(frames.enterFrame()) + " flags 0x"
                    + Integer.toHexString(frames.enterFrameFlags()), "ompt_frame_t"));
        });
        task.toolData().ifPresent(data -> rows.add(toolData(data)));
        rows.addAll(icvRows(task.icvs()));
        return rows;
    }

    private static List<OmpVariable> regionRows(ParallelRegion region) {
        List<OmpVariable> rows = new ArrayList<>();
        rows.add(OmpVariable.leaf("region", region.id() + ", " + region.describe(), ""));
        rows.add(OmpVariable.leaf("level", String.valueOf(region.level()), "int"));
        rows.add(OmpVariable.leaf("active level", String.valueOf(region.activeLevel()), "int"));
        rows.add(OmpVariable.leaf("team size", String.valueOf(region.teamSize()), "int"));
        rows.add(OmpVariable.leaf("serialized", String.valueOf(region.serialized()), "bool"));
        if (region.ended()) {
            rows.add(OmpVariable.leaf("ended", region.endedBecause(), ""));
        }
        region.teams().ifPresent(teams -> {
            rows.add(OmpVariable.leaf("team number", String.valueOf(teams.teamNumber()), "int"));
            rows.add(OmpVariable.leaf("league size", String.valueOf(teams.leagueSize()), "int"));
        });
        if (!region.teamPath().isEmpty()) {
            rows.add(OmpVariable.leaf("team path", region.path(), "ancestor thread numbers"));
        }
        region.function().ifPresent(function -> rows.add(OmpVariable.leaf("function", function.describe(), "outlined function")));
        rows.add(toolData(region.toolData()));
        rows.addAll(icvRows(region.icvs()));
        return rows;
    }

    private static List<OmpVariable> threadRows(OpenMpThread thread) {
        List<OmpVariable> rows = new ArrayList<>();
        rows.add(OmpVariable.leaf("name", thread.name(), ""));
        rows.add(OmpVariable.leaf("gtid", String.valueOf(thread.gtid()), "int"));
        rows.add(OmpVariable.leaf("thread number", String.valueOf(thread.threadNum()), "int"));
        // "not tracked" without OMP_DEBUG: why, and what to set, is said once, in the process scope's note
        rows.add(OmpVariable.leaf("state", Text.stateName(thread), "ompt_state_t"));
        thread.waitId().ifPresent(waitId -> rows.add(OmpVariable.leaf("wait id", Text.hex(waitId), "ompt_wait_id_t")));
        rows.add(OmpVariable.leaf("pthread", Text.hex(thread.pthread()), "pthread_t"));
        rows.add(toolData(thread.toolData()));
        rows.addAll(icvRows(thread.icvs()));
        return rows;
    }

    /**
     * Every event the jompd-recorder keeps of the thread (a collapsed row: VS Code shows them when opened),
     * when the program runs with it.
     */
    private List<OmpVariable> historyRows(OpenMpThread thread) {
        return picture.history().map(history -> {
            var events = history.events(thread);
            List<OmpVariable> children = new ArrayList<>();
            List<String> described = history.describe(thread, events);
            for (int i = 0; i < events.size(); i++) {
                children.add(OmpVariable.leaf(history.relative(events.get(i).timeNanos()), described.get(i), "recorded event"));
            }
            List<OmpVariable> rows = new ArrayList<>();
            List<String> why = history.whyHere(picture, thread);
            if (!why.isEmpty()) {
                List<OmpVariable> sentences = new ArrayList<>();
                for (int i = 0; i < why.size(); i++) {
                    sentences.add(OmpVariable.leaf(String.valueOf(i + 1), why.get(i), "jompd-recorder"));
                }
                rows.add(new OmpVariable("why here", why.getLast(), RecordedHistory.TIME_REFERENCE, sentences));
            }
            long lost = history.of(thread).map(recorded -> recorded.eventsLost()).orElse(0L);
            rows.add(new OmpVariable("recent events", events.size() + " kept" + (lost > 0 ? ", " + lost
                    + " older ones overwritten" : "") + " (jompd-recorder)", RecordedHistory.TIME_REFERENCE, children));
            return rows;
        }).orElse(List.of());
    }

    private List<OmpVariable> processRows() {
        List<OmpVariable> rows = new ArrayList<>();
        // what the reader should know (no OMP_DEBUG: what is missing, what to set), once per picture
        picture.notices().forEach(notice -> rows.add(OmpVariable.leaf("note", notice, "")));
        rows.add(OmpVariable.leaf("runtime", picture.target().runtime() + ", " + picture.version().words(), ""));
        rows.add(OmpVariable.leaf("runtime read by", picture.runtimeReading(), ""));
        rows.add(OmpVariable.leaf("OpenMP threads", String.valueOf(picture.threads().size()), "int"));
        picture.history().ifPresent(history -> history.devices(picture).forEach(device -> rows.add(OmpVariable.leaf(
                "device " + device.device().deviceNumber(), device.summary(), "jompd-recorder"))));
        rows.addAll(icvRows(picture.processIcvs()));
        List<OmpVariable> environment = new ArrayList<>();
        picture.startup().environment().forEach((name, value) -> environment.add(OmpVariable.leaf(name, value, "")));
        rows.add(new OmpVariable(StartupSettings.ENVIRONMENT_HEADING, picture.startup().environmentNotRead()
                .map(why -> "not read: " + why).orElse(environment.isEmpty() ? "none set" : environment.size()
                        + " OMP_*/KMP_* variables: what the program runs with"), "", environment));
        List<OmpVariable> settings = new ArrayList<>();
        for (StartupSettings.Setting setting : picture.startup().settings()) {
            settings.add(OmpVariable.leaf(setting.name(), setting.shown(), ""));
        }
        if (!settings.isEmpty()) {
            rows.add(new OmpVariable(StartupSettings.HEADING, settings.size() + " values recorded before libomp read "
                    + "the environment: not what the program runs with (the ICVs are)", "", settings));
        }
        return rows;
    }

    private static List<OmpVariable> icvRows(Map<String, IcvReading> icvs) {
        List<OmpVariable> rows = new ArrayList<>();
        icvs.forEach((name, value) -> rows.add(OmpVariable.leaf(name, Text.quotedIfEmpty(Text.icv(value)), "ICV")));
        return rows;
    }

    private static OmpVariable toolData(ToolData data) {
        return OmpVariable.leaf("tool data", "value " + Long.toUnsignedString(data.value()) + ", ptr "
                + Text.hex(data.pointer()), "ompt_data_t");
    }

    /** The whole OpenMP picture in the command line's JSON schema ({@code jompd-inspect/1}). */
    public JsonObject tree() {
        return JsonReport.toJson(picture);
    }

    public AddressSpaceHandle process() {
        return process;
    }

    public TargetDescription target() {
        return target;
    }

    /**
     * The target's parsed debug information, kept while its modules stay the same (the picture's names of
     * code use it too): what the stop's unwinder reads, so a module is parsed once, not at every stop.
     */
    public DebugInfoCache debugInfo() {
        return names.debugInfo();
    }
}
