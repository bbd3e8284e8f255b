package dev.jompd.core.ompd;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Everything OMPD can say about a stopped process, taken in one walk: every OpenMP thread, the chain
 * of regions each is in, each thread's task chain, every ICV in every scope, tool data and the display
 * control variables. A part that cannot be read is recorded with its return code instead of aborting
 * the walk, so corrupt memory yields a partial picture plus the reasons, never an exception or a hang.
 */
public record ProcessSnapshot(long ompVersion, Map<String, String> processIcvs, List<String> controlVariables,
                              List<ThreadView> threads, Map<String, RegionView> regions, List<String> problems) {

    /** Bound on task chains (generating tasks): deeper means a corrupt loop. */
    static final int MAX_TASK_CHAIN = 4096;

    /** One OpenMP thread: ids, state, its innermost region's key, its task chain and thread ICVs. */
    public record ThreadView(long gtid, OptionalLong lwp, long pthread, long threadNum, String state, long waitId,
                             ToolData toolData, Optional<String> region, List<TaskView> tasks,
                             Map<String, String> icvs) {}

    /** A parallel region (or serialized level): key, level, size, tool data, enclosing region's key. */
    public record RegionView(String key, long level, long activeLevel, long teamSize, ToolData toolData,
                             Optional<String> enclosing, Map<String, String> icvs) {}

    /**
     * A task: address, flags, entry point, frames, tool data, task ICVs, and the user's function behind
     * the entry point ({@link TaskHandle#outlinedFunction()}, or why it could not be read): name both
     * through {@link FunctionNames}.
     */
    public record TaskView(long address, long lightweightTeam, Optional<TaskHandle.TaskFlags> flags,
                           OptionalLong function, Optional<TaskHandle.TaskFrames> frames,
                           Optional<ToolData> toolData, Map<String, String> icvs,
                           OptionalLong outlinedFunction, Optional<String> outlinedFunctionProblem) {}

    /** Takes the snapshot of {@code process} at its current stop. */
    public static ProcessSnapshot take(AddressSpaceHandle process) {
        List<String> problems = new ArrayList<>();
        long version = attempt(problems, "omp version", () -> Ompd.ompVersion(process)).orElse(-1L);
        Map<String, String> processIcvs = icvs(process, Scope.ADDRESS_SPACE);
        List<String> controls = attempt(problems, "display control variables",
                () -> Ompd.displayControlVariables(process)).orElse(List.of());
        Map<String, RegionView> regions = new LinkedHashMap<>();
        List<ThreadView> threads = new ArrayList<>();
        List<ThreadHandle> handles = attempt(problems, "thread list", () -> Ompd.threads(process)).orElse(List.of());
        for (ThreadHandle thread : handles) {
            threads.add(thread(thread, regions, problems));
        }
        return new ProcessSnapshot(version, processIcvs, controls, threads, regions, List.copyOf(problems));
    }

    private static ThreadView thread(ThreadHandle thread, Map<String, RegionView> regions, List<String> problems) {
        String who = "thread " + thread;
        long gtid = attempt(problems, who + " gtid", thread::gtid).orElse(-1L);
        OptionalLong lwp = attempt(problems, null, () -> thread.threadId(ThreadIdKind.LWP))
                .map(OptionalLong::of).orElse(OptionalLong.empty());
        long pthread = attempt(problems, who + " pthread", thread::pthreadId).orElse(0L);
        long threadNum = attempt(problems, who + " thread number", thread::threadNum).orElse(-1L);
        Optional<ThreadHandle.ThreadStateInfo> state = attempt(problems, null, thread::state);
        ToolData data = attempt(problems, who + " tool data", thread::toolData).orElse(new ToolData(0, 0));
        Optional<ParallelHandle> region = attempt(problems, null, thread::currentParallel);
        Optional<String> regionKey = region.map(r -> region(r, regions, problems));
        List<TaskView> tasks = new ArrayList<>();
        Optional<TaskHandle> task = attempt(problems, null, thread::currentTask);
        Set<TaskHandle> seen = new HashSet<>();
        while (task.isPresent() && seen.add(task.get()) && tasks.size() < MAX_TASK_CHAIN) {
            tasks.add(task(task.get(), problems));
            TaskHandle current = task.get();
            task = attempt(problems, null, current::generating);
        }
        if (task.isPresent()) {
            problems.add(who + ": task chain loops or exceeds " + MAX_TASK_CHAIN);
        }
        return new ThreadView(gtid, lwp, pthread, threadNum,
                state.map(ThreadHandle.ThreadStateInfo::name).orElse("unavailable"),
                state.map(ThreadHandle.ThreadStateInfo::waitId).orElse(0L), data, regionKey, tasks,
                icvs(thread, Scope.THREAD));
    }

    private static String region(ParallelHandle start, Map<String, RegionView> regions, List<String> problems) {
        String key = start.toString();
        ParallelHandle at = start;
        Set<String> walked = new HashSet<>();
        while (at != null && !regions.containsKey(at.toString()) && walked.add(at.toString())
                && walked.size() <= ParallelHandle.MAX_NESTING) {
            ParallelHandle region = at;
            Optional<ParallelHandle> enclosing = attempt(problems, null, region::enclosing);
            regions.put(region.toString(), new RegionView(region.toString(),
                    attempt(problems, region + " level", region::level).orElse(-1L),
                    attempt(problems, region + " active level", region::activeLevel).orElse(-1L),
                    attempt(problems, region + " team size", region::teamSize).orElse(-1L),
                    attempt(problems, region + " tool data", region::toolData).orElse(new ToolData(0, 0)),
                    enclosing.map(ParallelHandle::toString), icvs(region, Scope.PARALLEL)));
            at = enclosing.orElse(null);
        }
        return key;
    }

    private static TaskView task(TaskHandle task, List<String> problems) {
        OptionalLong function = attempt(problems, null, task::function).map(OptionalLong::of)
                .orElse(OptionalLong.empty());
        OptionalLong outlined = OptionalLong.empty();
        Optional<String> outlinedProblem = Optional.empty();
        if (function.isPresent()) {
            try {
                outlined = OptionalLong.of(task.outlinedFunction());
            } catch (OmpdException e) {
                outlinedProblem = Optional.of(e.getMessage()); // the entry point is shown, with this reason
            }
        }
        return new TaskView(task.address(), task.lightweightTeam(),
                attempt(problems, task + " flags", task::flags),
                function,
                attempt(problems, null, task::frames),
                attempt(problems, task + " tool data", task::toolData),
                icvs(task, Scope.TASK), outlined, outlinedProblem);
    }

    /** Every ICV of a scope in its string form, or the reason it cannot be read. */
    private static Map<String, String> icvs(Object handle, Scope scope) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Icv icv : Icv.ALL) {
            if (icv.scope() != scope) {
                continue;
            }
            try {
                values.put(icv.name(), Icvs.string(handle, scope, icv));
            } catch (OmpdException e) {
                values.put(icv.name(), "<" + e.rc().cName() + ">");
            }
        }
        return values;
    }

    /**
     * Runs one query; an OMPD failure becomes a recorded problem and an empty result. With
     * {@code what} null the query may legitimately have no answer (the outermost region's enclosing
     * one, states without OMP_DEBUG): then only failures other than unavailable/needs_state_tracking
     * are recorded.
     */
    private static <T> Optional<T> attempt(List<String> problems, String what, Supplier<T> query) {
        try {
            return Optional.ofNullable(query.get());
        } catch (OmpdException e) {
            boolean expectedAbsence = what == null
                    && (e.rc() == OmpdRc.UNAVAILABLE || e.rc() == OmpdRc.NEEDS_STATE_TRACKING);
            if (!expectedAbsence) {
                problems.add((what == null ? "query" : what) + ": " + e.getMessage());
            }
            return Optional.empty();
        }
    }
}
