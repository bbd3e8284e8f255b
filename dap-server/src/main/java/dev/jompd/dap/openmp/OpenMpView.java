package dev.jompd.dap.openmp;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.cli.JsonReport;
import dev.jompd.cli.SourceLines;
import dev.jompd.cli.TargetDescription;
import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Icv;
import dev.jompd.core.ompd.Icvs;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.ParallelHandle;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.ompd.Scope;
import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.ompd.ThreadIdKind;
import dev.jompd.core.ompd.ToolData;
import dev.jompd.core.ompd.FunctionNames;
import dev.jompd.core.target.Symbolizer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;

/**
 * OpenMP's picture of one stop, as the DAP server shows it: a name per OS thread, the four OpenMP
 * scopes of a frame, the whole tree as {@code jompd-inspect/1} JSON. Everything comes from jompd's OMPD
 * (no memory read or libomp knowledge here); a query OMPD cannot answer shows its return code.
 */
public final class OpenMpView {
    /** A task frame further than this from a stack pointer lies on another thread's stack. */
    private static final long SAME_STACK = 64L << 20;
    private static final int MAX_TASK_CHAIN = 256;

    private final AddressSpaceHandle process;
    private final TargetDescription target;
    private final Symbolizer symbols;
    private final Map<Long, String> namesByPthread;
    private Map<Long, ThreadHandle> byLwp;

    OpenMpView(AddressSpaceHandle process, TargetDescription target, Symbolizer symbols, Map<Long, String> namesByPthread) {
        this.process = process;
        this.target = target;
        this.symbols = symbols;
        this.namesByPthread = namesByPthread;
    }

    /**
     * The name of every OpenMP thread by its pthread_t: needs no OS thread list, so it is computed while gdb
     * still lists the threads.
     */
    static Map<Long, String> describeAll(AddressSpaceHandle process) {
        Map<Long, String> names = new HashMap<>();
        for (ThreadHandle thread : attempt(() -> Ompd.threads(process)).orElse(List.of())) {
            attempt(thread::pthreadId).ifPresent(pthread -> names.putIfAbsent(pthread, describe(thread)));
        }
        return names;
    }

    /** "omp 2/4 · level 2 · …" of the thread with this pthread_t (as libthread_db gave it to gdb). */
    public Optional<String> threadNameByPthread(long pthread) {
        return Optional.ofNullable(namesByPthread.get(pthread));
    }

    /** The OpenMP thread on OS thread {@code lwp}, if it is one. */
    public Optional<ThreadHandle> thread(long lwp) {
        if (byLwp == null) {
            Map<Long, ThreadHandle> map = new HashMap<>();
            for (ThreadHandle thread : Ompd.threads(process)) {
                try {
                    map.putIfAbsent(thread.threadId(ThreadIdKind.LWP), thread);
                } catch (OmpdException notListed) {
                    // an OpenMP thread the target does not list (exited OS thread): nothing to name
                }
            }
            byLwp = map;
        }
        return Optional.ofNullable(byLwp.get(lwp));
    }

    /** "omp 2/4 · level 2 · wait_barrier_explicit", when {@code lwp} is an OpenMP thread. */
    public Optional<String> threadName(long lwp) {
        return thread(lwp).map(OpenMpView::describe);
    }

    static String describe(ThreadHandle thread) {
        StringBuilder name = new StringBuilder("omp ");
        Optional<ParallelHandle> region = attempt(thread::currentParallel);
        String number = attempt(thread::threadNum).map(String::valueOf).orElse("?");
        if (region.isPresent()) {
            name.append(number).append('/').append(attempt(region.get()::teamSize).map(String::valueOf).orElse("?"))
                    .append(" · level ").append(attempt(region.get()::level).map(String::valueOf).orElse("?"));
        } else {
            name.append("gtid ").append(attempt(thread::gtid).map(String::valueOf).orElse("?")).append(" · no team");
        }
        attempt(thread::state).ifPresent(state -> name.append(" · ").append(shortState(state.name())));
        return name.toString();
    }

    private static String shortState(String cName) {
        return cName.startsWith("ompt_state_") ? cName.substring("ompt_state_".length()) : cName;
    }

    /**
     * The OpenMP scopes of a frame of OS thread {@code lwp}: its task, that task's region, the thread,
     * the process. {@code frameAddress} is the frame's canonical frame address (empty: the innermost frame),
     * which picks the task whose code the frame belongs to by the tasks' exit frames.
     */
    public List<OmpScope> scopes(long lwp, OptionalLong frameAddress) {
        Optional<ThreadHandle> thread = thread(lwp);
        if (thread.isEmpty()) {
            return List.of(new OmpScope(OmpScope.PROCESS, processRows()));
        }
        List<OmpScope> scopes = new ArrayList<>();
        Optional<TaskHandle> task = taskOfFrame(thread.get(), frameAddress);
        scopes.add(new OmpScope(OmpScope.TASK, task.map(this::taskRows)
                .orElse(List.of(OmpVariable.leaf("task", "none (the thread executes no task)", "")))));
        Optional<ParallelHandle> region = task.flatMap(t -> attempt(t::parallel)).or(() -> attempt(thread.get()::currentParallel));
        scopes.add(new OmpScope(OmpScope.PARALLEL, region.map(OpenMpView::regionRows)
                .orElse(List.of(OmpVariable.leaf("region", "none (the thread is in no team)", "")))));
        scopes.add(new OmpScope(OmpScope.THREAD, threadRows(thread.get())));
        scopes.add(new OmpScope(OmpScope.PROCESS, processRows()));
        return scopes;
    }

    /** The task chain of a thread, innermost first (bounded, loop-safe). */
    static List<TaskHandle> taskChain(ThreadHandle thread) {
        List<TaskHandle> chain = new ArrayList<>();
        Set<TaskHandle> seen = new HashSet<>();
        Optional<TaskHandle> task = attempt(thread::currentTask);
        while (task.isPresent() && seen.add(task.get()) && chain.size() < MAX_TASK_CHAIN) {
            chain.add(task.get());
            task = attempt(task.get()::generating);
        }
        return chain;
    }

    /**
     * The task a frame belongs to. A task's exit frame is the frame address (rbp, __builtin_frame_address)
     * of the frame that called the task's code: a runtime function, or the encountering code for an
     * undeferred task. The task's own frames lie below it: a frame belongs to the innermost task whose exit
     * frame is at or above the frame's canonical frame address, on the same stack. The calling frame (its
     * CFA is above its rbp) and frames older than every such exit frame (the thread's start, the runtime's
     * loop) go to the next outer task on this stack.
     */
    static Optional<TaskHandle> taskOfFrame(ThreadHandle thread, OptionalLong frameAddress) {
        List<TaskHandle> chain = taskChain(thread);
        if (chain.isEmpty()) {
            return Optional.empty();
        }
        if (frameAddress.isEmpty()) {
            return Optional.of(chain.getFirst());
        }
        long cfa = frameAddress.getAsLong();
        TaskHandle outermostOnStack = null;
        for (TaskHandle task : chain) {
            Optional<TaskHandle.TaskFrames> frames = attempt(task::frames);
            if (frames.isEmpty() || frames.get().exitFrame() == 0) {
                continue;
            }
            long exit = frames.get().exitFrame();
            long distance = exit - cfa;
            if (Long.compareUnsigned(exit, cfa) >= 0 && Long.compareUnsigned(distance, SAME_STACK) < 0) {
                return Optional.of(task);
            }
            if (Long.compareUnsigned(Math.abs(distance), SAME_STACK) < 0) {
                outermostOnStack = task;
            }
        }
        return Optional.of(outermostOnStack != null ? outermostOnStack : chain.getFirst());
    }

    private List<OmpVariable> taskRows(TaskHandle task) {
        List<OmpVariable> rows = new ArrayList<>();
        rows.add(OmpVariable.leaf("task", hex(task.address()), "kmp_taskdata_t *"));
        attempt(task::flags).ifPresent(flags -> rows.add(OmpVariable.leaf("kind", describe(flags), "task flags")));
        // The user's code (behind libomp's GOMP wrapper or clang's task thunk), demangled: FunctionNames.
        try (FunctionNames names = new FunctionNames(symbols)) {
            attempt(() -> names.ofTask(task)).ifPresent(code -> rows.add(OmpVariable.leaf("function",
                    code.location().isPresent() ? code.displayName() + " (" + hex(code.address()) + ")" : hex(code.address()),
                    "task function")));
        }
        attempt(task::frames).ifPresent(frames -> {
            rows.add(OmpVariable.leaf("exit frame", hex(frames.exitFrame()) + " flags 0x" + Integer.toHexString(frames.exitFrameFlags()), "ompt_frame_t"));
            rows.add(OmpVariable.leaf("enter frame", hex(frames.enterFrame()) + " flags 0x" + Integer.toHexString(frames.enterFrameFlags()), "ompt_frame_t"));
        });
        attempt(task::toolData).ifPresent(data -> rows.add(toolData(data)));
        rows.addAll(icvRows(task, Scope.TASK));
        return rows;
    }

    static String describe(TaskHandle.TaskFlags flags) {
        List<String> words = new ArrayList<>();
        words.add(flags.explicit() ? "explicit" : "implicit");
        words.add(flags.tied() ? "tied" : "untied");
        if (flags.isFinal()) words.add("final");
        if (flags.taskSerial()) words.add("undeferred");
        if (flags.teamSerial()) words.add("team serial");
        if (flags.started()) words.add("started");
        if (flags.executing()) words.add("executing");
        if (flags.complete()) words.add("complete");
        return String.join(", ", words);
    }

    private static List<OmpVariable> regionRows(ParallelHandle region) {
        List<OmpVariable> rows = new ArrayList<>();
        attempt(region::level).ifPresent(level -> rows.add(OmpVariable.leaf("level", String.valueOf(level), "int")));
        attempt(region::activeLevel).ifPresent(level -> rows.add(OmpVariable.leaf("active level", String.valueOf(level), "int")));
        attempt(region::teamSize).ifPresent(size -> rows.add(OmpVariable.leaf("team size", String.valueOf(size), "int")));
        rows.add(OmpVariable.leaf("serialized", String.valueOf(region.isSerializedLevel()), "bool"));
        rows.add(OmpVariable.leaf("team", hex(region.teamAddress()), "kmp_base_team_t *"));
        attempt(region::toolData).ifPresent(data -> rows.add(toolData(data)));
        rows.addAll(icvRows(region, Scope.PARALLEL));
        return rows;
    }

    private static List<OmpVariable> threadRows(ThreadHandle thread) {
        List<OmpVariable> rows = new ArrayList<>();
        attempt(thread::gtid).ifPresent(gtid -> rows.add(OmpVariable.leaf("gtid", String.valueOf(gtid), "int")));
        attempt(thread::threadNum).ifPresent(n -> rows.add(OmpVariable.leaf("thread number", String.valueOf(n), "int")));
        attempt(thread::state).ifPresent(state -> {
            rows.add(OmpVariable.leaf("state", state.name(), "ompt_state_t"));
            rows.add(OmpVariable.leaf("wait id", hex(state.waitId()), "ompt_wait_id_t"));
        });
        attempt(thread::pthreadId).ifPresent(id -> rows.add(OmpVariable.leaf("pthread", hex(id), "pthread_t")));
        attempt(thread::toolData).ifPresent(data -> rows.add(toolData(data)));
        rows.addAll(icvRows(thread, Scope.THREAD));
        return rows;
    }

    private List<OmpVariable> processRows() {
        List<OmpVariable> rows = new ArrayList<>();
        attempt(() -> Ompd.ompVersionString(process)).ifPresent(v -> rows.add(OmpVariable.leaf("runtime", v, "")));
        rows.add(OmpVariable.leaf("OpenMP threads", attempt(() -> Ompd.threads(process).size()).map(String::valueOf)
                .orElse("?"), "int"));
        rows.addAll(icvRows(process, Scope.ADDRESS_SPACE));
        attempt(() -> Ompd.displayControlVariables(process)).ifPresent(lines -> {
            List<OmpVariable> settings = new ArrayList<>();
            for (String line : lines) {
                int equals = line.indexOf('=');
                settings.add(equals > 0 ? OmpVariable.leaf(line.substring(0, equals), line.substring(equals + 1), "")
                        : OmpVariable.leaf(line, "", ""));
            }
            rows.add(new OmpVariable("display control variables", settings.size() + " settings", "", settings));
        });
        return rows;
    }

    private static List<OmpVariable> icvRows(Object handle, Scope scope) {
        List<OmpVariable> rows = new ArrayList<>();
        for (Icv icv : Icv.ALL) {
            if (icv.scope() != scope) {
                continue;
            }
            String value;
            try {
                value = Icvs.string(handle, scope, icv);
            } catch (OmpdException e) {
                value = "<" + e.rc().cName() + ">";
            }
            rows.add(OmpVariable.leaf(icv.name(), value, "ICV " + icv.id()));
        }
        return rows;
    }

    private static OmpVariable toolData(ToolData data) {
        return OmpVariable.leaf("tool data", "value " + Long.toUnsignedString(data.value()) + ", ptr " + hex(data.pointer()),
                "ompt_data_t");
    }

    /** The whole OpenMP picture in the command line's JSON schema ({@code jompd-inspect/1}). */
    public JsonObject tree() {
        // With file:line of each task's function (one addr2line run per module), as jompd inspect --json.
        ProcessSnapshot snapshot = ProcessSnapshot.take(process);
        String json = JsonReport.render(target, snapshot, symbols, SourceLines.ofTasks(snapshot, symbols));
        return JsonParser.parseString(json).getAsJsonObject();
    }

    public AddressSpaceHandle process() {
        return process;
    }

    public TargetDescription target() {
        return target;
    }

    public Symbolizer symbols() {
        return symbols;
    }

    static String hex(long value) {
        return "0x" + Long.toHexString(value);
    }

    /** A query OMPD may not answer: empty then (the reason is not the user's business here). */
    static <T> Optional<T> attempt(Supplier<T> query) {
        try {
            return Optional.ofNullable(query.get());
        } catch (OmpdException e) {
            return Optional.empty();
        }
    }
}
