package dev.jompd.report;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.IcvReading;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.ParallelHandle;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.ompd.LockNames;
import dev.jompd.core.ompd.RegionKey;
import dev.jompd.core.ompd.RuntimeLocks;
import dev.jompd.core.ompd.RuntimeTaskQueues;
import dev.jompd.core.ompd.RuntimeTasks;
import dev.jompd.core.ompd.RuntimeWaits;
import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.ompd.TaskKey;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.ompd.ThreadState;
import dev.jompd.core.ompd.ToolData;
import dev.jompd.core.recorder.Recorder;
import dev.jompd.core.recorder.RecorderFormatException;

import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.ProcessEnvironment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalLong;

/**
 * The OpenMP picture of one stop, computed once from ompd-core's walk ({@link ProcessSnapshot}) and
 * rendered by every door: the command line (text and JSON), the gdb bridge and the DAP server. Whatever a
 * door shows about a thread, a region or a task — its name, its team path, which threads are alike, which
 * task a frame belongs to — is decided here, once, so that the three doors say the same thing.
 *
 * <p>Regions are numbered outer-first ({@code r0} is the outermost region of the first thread that has
 * one), tasks in the order the threads' chains reach them ({@code t0, t1, …}); a task shared by several
 * chains (an ancestor) exists once.
 */
public final class OpenMpPicture {
    private final TargetDescription target;
    private final ProcessSnapshot snapshot;
    private final OpenMpVersion version;
    private final List<ParallelRegion> regions;
    private final Map<String, ParallelRegion> regionsById;
    private final List<OpenMpThread> threads;
    private final Map<String, Task> tasks;
    private final StartupSettings startup;
    private final List<String> notices;
    private final Optional<RecordedHistory> history;
    private final RuntimeLocks locks;
    private final LockNames lockNames;
    private final Map<Long, TaskCounts> taskCounts;
    private final Map<Long, List<Long>> taskgroups;
    private final List<String> problems;
    private final String runtimeReading;
    private final Map<Long, RuntimeWaits.Reading> barrierIdents;
    /** The target's names (demangling for the stacks' construct steps); the door keeps it open with the target. */
    private final CodeNames names;
    private final List<NotStarted> notStarted;

    private OpenMpPicture(TargetDescription target, ProcessSnapshot snapshot, CodeNames names, String runtimeReading,
                          Optional<RecordedHistory> history, List<String> historyProblems, RuntimeLocks locks,
                          LockNames lockNames, Map<Long, TaskCounts> taskCounts, Map<Long, List<Long>> taskgroups,
                          Map<Long, RuntimeWaits.Reading> barrierIdents, Map<String, String> environment,
                          Optional<String> environmentNotRead) {
        this.barrierIdents = Map.copyOf(barrierIdents);
        this.runtimeReading = runtimeReading;
        this.locks = locks;
        this.lockNames = lockNames;
        this.taskCounts = Map.copyOf(taskCounts);
        this.taskgroups = Map.copyOf(taskgroups);
        this.target = target;
        this.snapshot = snapshot;
        this.version = new OpenMpVersion(snapshot.ompVersion());
        this.startup = StartupSettings.of(snapshot.controlVariables(), environment, environmentNotRead);

        // Regions, outer-first: ids by breadth over the tree, roots and children in the walk's order.
        Map<RegionKey, List<RegionKey>> children = new LinkedHashMap<>();
        List<RegionKey> roots = new ArrayList<>();
        for (ProcessSnapshot.RegionView region : snapshot.regions().values()) {
            Optional<RegionKey> parent = region.enclosing().filter(snapshot.regions()::containsKey);
            if (parent.isPresent()) {
                children.computeIfAbsent(parent.get(), k -> new ArrayList<>()).add(region.key());
            } else {
                roots.add(region.key());
            }
        }
        // Siblings in the order of the threads that started them: the same numbering at every stop of a program.
        // (a lambda of ours, not Comparator.comparingLong's: the ahead-of-time cache holds ours, not the JDK's)
        children.values().forEach(list -> list.sort((a, b) -> Long.compare(
                snapshot.regions().get(a).encounteringThreadNum(), snapshot.regions().get(b).encounteringThreadNum())));
        Map<RegionKey, String> idByKey = new LinkedHashMap<>();
        Deque<RegionKey> queue = new ArrayDeque<>(roots);
        while (!queue.isEmpty() && idByKey.size() < snapshot.regions().size()) {
            RegionKey key = queue.removeFirst();
            if (idByKey.putIfAbsent(key, "r" + idByKey.size()) == null) {
                queue.addAll(children.getOrDefault(key, List.of()));
            }
        }
        for (RegionKey key : snapshot.regions().keySet()) { // a cycle left over by corrupt memory: still named
            idByKey.putIfAbsent(key, "r" + idByKey.size());
        }
        // Which threads are where: a region has ended once the thread that encountered it is back in the
        // enclosing region (libomp keeps an ended region's team, its "hot team", for the next region: its workers
        // wait in the fork barrier still showing the ended region as theirs, with the state of its implicit barrier)
        Set<RegionPlace> occupied = new HashSet<>();
        for (ProcessSnapshot.ThreadView thread : snapshot.threads()) {
            thread.region().ifPresent(region -> occupied.add(new RegionPlace(region, thread.threadNum())));
        }
        Map<String, ParallelRegion> byId = new LinkedHashMap<>();
        Map<RegionKey, List<Long>> pathByKey = new HashMap<>();
        for (Map.Entry<RegionKey, String> entry : idByKey.entrySet()) {
            ProcessSnapshot.RegionView view = snapshot.regions().get(entry.getKey());
            List<Long> path = teamPath(view, snapshot, pathByKey, 0);
            Optional<CodeLocation> function = view.function().isPresent()
                    && (view.level() > 0 && view.lightweightTeam() == 0 || view.teams().isPresent())
                    ? names.name(view.function().getAsLong()) : Optional.empty();
            boolean ended = view.level() > 0 && view.teamSize() > 1 && view.lightweightTeam() == 0
                    && view.encounteringThreadNum() >= 0 && view.enclosing().filter(enclosing ->
                    occupied.contains(new RegionPlace(enclosing, view.encounteringThreadNum()))).isPresent();
            byId.put(entry.getValue(), new ParallelRegion(entry.getValue(), view.level(), view.activeLevel(),
                    view.teamSize(), view.level() > 0 && view.teamSize() == 1, ended,
                    view.enclosing().map(idByKey::get), path, view.toolData(), function, view.icvs(), view.teams()));
        }
        this.regionsById = byId;
        this.regions = List.copyOf(byId.values());

        // Tasks once each, threads with their chains: ids in the order the chains reach them (t0, t1, … without
        // gaps), then the tasks only a thread's stack holds (its own tasks suspended under one it runs).
        Map<String, Task> taskMap = new LinkedHashMap<>();
        Map<TaskKey, String> taskIdByKey = new HashMap<>();
        List<OpenMpThread> threadList = new ArrayList<>();
        List<List<String>> chains = new ArrayList<>();
        for (ProcessSnapshot.ThreadView thread : snapshot.threads()) {
            List<String> chain = new ArrayList<>();
            List<ProcessSnapshot.TaskView> views = thread.tasks();
            for (int i = 0; i < views.size(); i++) {
                ProcessSnapshot.TaskView view = views.get(i);
                TaskKey key = view.key();
                String id = taskIdByKey.get(key);
                if (id == null) {
                    id = "t" + taskMap.size();
                    taskIdByKey.put(key, id);
                    taskMap.put(id, task(id, view, i == views.size() - 1, idByKey, byId, names));
                }
                chain.add(id);
            }
            chains.add(chain);
        }
        int index = 0;
        for (ProcessSnapshot.ThreadView thread : snapshot.threads()) {
            List<String> chain = chains.get(index++);
            List<String> stack = new ArrayList<>();
            for (ProcessSnapshot.TaskView view : thread.stackTasks()) {
                TaskKey key = view.key();
                String id = taskIdByKey.get(key);
                if (id == null) {
                    id = "t" + taskMap.size();
                    taskIdByKey.put(key, id);
                    taskMap.put(id, task(id, view, false, idByKey, byId, names));
                }
                stack.add(id);
            }
            Optional<ParallelRegion> region = thread.region().map(idByKey::get).map(byId::get);
            threadList.add(new OpenMpThread(thread.gtid(), thread.lwp(), thread.pthread(), thread.threadNum(),
                    thread.state().flatMap(ThreadHandle.ThreadStateInfo::state),
                    thread.state().map(state -> OptionalLong.of(state.code())).orElse(OptionalLong.empty()),
                    thread.waitId(), region.map(ParallelRegion::id),
                    region.map(ParallelRegion::teamPath).orElse(List.of()),
                    region.map(ParallelRegion::level).orElse(-1L), region.map(ParallelRegion::teamSize).orElse(-1L),
                    thread.toolData(), thread.icvs(), List.copyOf(chain), List.copyOf(stack),
                    region.map(r -> teamOf(r, byId)).orElse(OptionalLong.empty())));
        }
        this.notStarted = notStarted(snapshot, taskMap, taskIdByKey, idByKey, byId, names);
        this.tasks = taskMap;
        this.threads = List.copyOf(threadList);
        this.history = history;
        this.names = names;
        List<String> allProblems = new ArrayList<>(snapshot.problems());
        allProblems.addAll(historyProblems);
        environmentNotRead.ifPresent(allProblems::add);
        this.problems = List.copyOf(allProblems);
        this.notices = notices(snapshot, problems);
    }

    /**
     * The tasks created and not started, after every other task ({@code t<n>} on from the last id of the chains and
     * stacks), in the order libomp keeps them: each thread's deque from its head, then those waiting for dependences.
     */
    private static List<NotStarted> notStarted(ProcessSnapshot snapshot, Map<String, Task> taskMap,
                                               Map<TaskKey, String> taskIdByKey, Map<RegionKey, String> idByKey,
                                               Map<String, ParallelRegion> byId, CodeNames names) {
        Map<Long, String> idByAddress = new HashMap<>();
        taskIdByKey.forEach((key, id) -> {
            if (key.lightweight() == 0) {
                idByAddress.put(key.address(), id);
            }
        });
        List<NotStarted> found = new ArrayList<>();
        for (ProcessSnapshot.DeferredTaskView deferred : snapshot.deferred().tasks()) {
            TaskKey key = deferred.task().key();
            if (taskIdByKey.containsKey(key)) {
                continue; // a thread's chain or stack holds it: not a task that waits to start
            }
            String id = "t" + taskMap.size();
            taskIdByKey.put(key, id);
            idByAddress.put(key.address(), id);
            taskMap.put(id, task(id, deferred.task(), false, idByKey, byId, names));
        }
        for (ProcessSnapshot.DeferredTaskView deferred : snapshot.deferred().tasks()) {
            String id = taskIdByKey.get(deferred.task().key());
            Optional<String> creator = Optional.ofNullable(idByAddress.get(deferred.creator()));
            found.add(switch (deferred.reason()) {
                case RuntimeTaskQueues.Wait.Queued queued -> new NotStarted(id, creator, deferred.creator(),
                        OptionalLong.of(queued.gtid()), queued.threadNum(), queued.position(), Optional.empty(), 0, -1);
                case RuntimeTaskQueues.Wait.Dependences waits -> new NotStarted(id, creator, deferred.creator(),
                        OptionalLong.empty(), -1, -1, Optional.ofNullable(idByAddress.get(waits.predecessor())),
                        waits.predecessor(), waits.unmet());
            });
        }
        return List.copyOf(found);
    }

    /**
     * A task created and not started ({@code taskId}), with the task that created it ({@code creatorId} when that
     * task is in the picture, its kmp_taskdata_t {@code creator} always, 0 when unreadable), and why it has not
     * started: ready in the deque of the thread with gtid {@code queueGtid} (thread number {@code queueThreadNum} of
     * the team whose task team holds the deque) at {@code position} from its head (-1 for a task not in a deque), or waiting for its dependences on
     * {@code predecessorId} ({@code predecessor}: its kmp_taskdata_t) with {@code unmet} predecessors left.
     */
    public record NotStarted(String taskId, Optional<String> creatorId, long creator, OptionalLong queueGtid,
                             long queueThreadNum, int position, Optional<String> predecessorId, long predecessor, long unmet) {
        public boolean queued() {
            return queueGtid.isPresent();
        }
    }

    /** The tasks created and not started that the picture lists (deques first, from their heads). */
    public List<NotStarted> notStarted() {
        return notStarted;
    }

    /** How many tasks each thread's deque holds (by gtid), listed or not. */
    public Map<Long, Long> queuedByGtid() {
        return snapshot.deferred().queuedByGtid();
    }

    /** Tasks not started that were counted but not listed (beyond jompd's cap). */
    public long notStartedNotListed() {
        return snapshot.deferred().notListed();
    }

    /** The picture of {@code process} at its current stop, with what the jompd-recorder kept if it runs there. */
    public static OpenMpPicture take(AddressSpaceHandle process, TargetDescription target, CodeNames names) {
        ProcessSnapshot snapshot = ProcessSnapshot.take(process);
        String reading = process.layout().reading().toString();
        RuntimeLocks locks = RuntimeLocks.read(process);
        LockNames lockNames = LockNames.read(process, locks);
        // What each thread's innermost task would wait for at a taskwait or at the end of its taskgroup
        // and the taskgroups every task of a chain is in (which of them a taskgroup waits for)
        Map<Long, TaskCounts> counts = new HashMap<>();
        Map<Long, List<Long>> groups = new HashMap<>();
        Map<Long, RuntimeWaits.Reading> barrierIdents = new HashMap<>();
        for (ProcessSnapshot.ThreadView thread : snapshot.threads()) {
            // a task suspended on the thread's stack may wait too (at a taskwait or the end of a taskgroup,
            // running other tasks meanwhile): its counts as well as the innermost task's
            List<ProcessSnapshot.TaskView> waiting = new ArrayList<>(thread.tasks().isEmpty() ? List.of()
                    : List.of(thread.tasks().getFirst()));
            waiting.addAll(thread.stackTasks());
            for (ProcessSnapshot.TaskView task : waiting) {
                if (task.lightweightTeam() == 0) {
                    counts.computeIfAbsent(task.address(), address -> new TaskCounts(
                            RuntimeTasks.incompleteChildren(process, address), RuntimeTasks.taskgroupTasks(process, address)));
                }
            }
            barrierIdents.put(thread.gtid(), RuntimeWaits.threadIdent(process, thread.gtid()));
            for (ProcessSnapshot.TaskView task : thread.tasks()) {
                if (task.lightweightTeam() == 0 && !groups.containsKey(task.address())) {
                    try {
                        groups.put(task.address(), RuntimeTasks.taskgroups(process, task.address()));
                    } catch (OmpdException unreadable) {
                        // not known: the finding that needs it says so
                    }
                }
            }
        }
        // what the program runs with: its own environment, as its getenv (and libomp at start-up) read it
        Map<String, String> environment = Map.of();
        Optional<String> environmentNotRead = Optional.empty();
        try {
            environment = ProcessEnvironment.read(process.target());
        } catch (TargetException e) {
            environmentNotRead = Optional.of("the process's environment (__environ) could not be read: " + e.getMessage());
        }
        try {
            return new OpenMpPicture(target, snapshot, names, reading,
                    Recorder.find(process).map(recorded -> RecordedHistory.inProcess(recorded, names, process)), List.of(), locks, lockNames,
                    counts, groups, barrierIdents, environment, environmentNotRead);
        } catch (RecorderFormatException e) {
            return new OpenMpPicture(target, snapshot, names, reading, Optional.empty(),
                    List.of("jompd-recorder: " + e.getMessage()), locks, lockNames, counts, groups, barrierIdents,
                    environment, environmentNotRead);
        }
    }

    /**
     * What libomp counts for a task that waits: its incomplete children (a taskwait waits for them) and the
     * unfinished tasks of its innermost taskgroup (the end of the taskgroup waits for them).
     */
    public record TaskCounts(RuntimeTasks.Count children, RuntimeTasks.Count taskgroup) {}

    /**
     * The ident of the thread's last barrier as libomp keeps it ({@code th_ident}): which construct's barrier,
     * and its line. Not cleared when a barrier ends: believe it only for a barrier the thread's stack is in.
     */
    public RuntimeWaits.Reading barrierIdent(OpenMpThread thread) {
        return barrierIdents.getOrDefault(thread.gtid(), new RuntimeWaits.Reading.Unknown("not read for gtid "
                + thread.gtid()));
    }

    /** libomp's counts for a task that can be waiting: each thread's innermost task and the tasks on its stack. */
    public TaskCounts counts(Task task) {
        TaskCounts counts = task.lightweightTeam() == 0 ? taskCounts.get(task.address()) : null;
        if (counts == null) {
            RuntimeTasks.Count none = new RuntimeTasks.Count.Unknown(task.lightweightTeam() != 0
                    ? "the task is the implicit task of a serialized region, which libomp does not count children for"
                    : "libomp's counts are read only for the tasks on the threads' stacks");
            return new TaskCounts(none, none);
        }
        return counts;
    }

    /** The taskgroups a task of some thread's chain is in, innermost first, if libomp's memory told. */
    public Optional<List<Long>> taskgroups(Task task) {
        return task.lightweightTeam() == 0 ? Optional.ofNullable(taskgroups.get(task.address())) : Optional.empty();
    }

    /**
     * How the runtime's layout was read: {@code symbols}, {@code debug file PATH}, {@code debuginfod URL},
     * {@code profile libomp 19.1.7} (a stripped runtime, every derived address checked by content).
     */
    public String runtimeReading() {
        return runtimeReading;
    }

    /**
     * The thread numbers of a region's ancestors from level 1 inward, ending with the number of the thread
     * that encountered the region: {@code [1]} for a level-2 team started by thread 1 of its level-1 team.
     */
    /** The number of the team of a teams construct that {@code region} is in (itself or around it), if any. */
    private static OptionalLong teamOf(ParallelRegion region, Map<String, ParallelRegion> byId) {
        ParallelRegion at = region;
        for (int depth = 0; at != null && depth <= byId.size(); depth++) {
            if (at.teams().isPresent()) {
                return OptionalLong.of(at.teams().get().teamNumber());
            }
            at = at.enclosing().map(byId::get).orElse(null);
        }
        return OptionalLong.empty();
    }

    private static List<Long> teamPath(ProcessSnapshot.RegionView region, ProcessSnapshot snapshot,
                                       Map<RegionKey, List<Long>> memo, int depth) {
        List<Long> known = memo.get(region.key());
        if (known != null) {
            return known;
        }
        List<Long> path = new ArrayList<>();
        Optional<ProcessSnapshot.RegionView> enclosing = region.enclosing().map(snapshot.regions()::get);
        if (region.level() > 1 && enclosing.isPresent() && depth < snapshot.regions().size()) {
            path.addAll(teamPath(enclosing.get(), snapshot, memo, depth + 1));
            path.add(region.encounteringThreadNum());
        }
        List<Long> result = List.copyOf(path);
        memo.put(region.key(), result);
        return result;
    }

    private static Task task(String id, ProcessSnapshot.TaskView view, boolean outermost, Map<RegionKey, String> idByKey,
                             Map<String, ParallelRegion> regions, CodeNames names) {
        Optional<String> region = view.region().map(idByKey::get);
        long level = region.map(regions::get).map(ParallelRegion::level).orElse(-1L);
        TaskKind kind = view.flags().map(flags -> flags.explicit() ? TaskKind.EXPLICIT
                : level == 0 || (level < 0 && outermost) ? TaskKind.INITIAL : TaskKind.IMPLICIT).orElse(TaskKind.UNKNOWN);
        Optional<CodeLocation> function = kind == TaskKind.INITIAL ? Optional.empty() : names.task(view);
        return new Task(id, view.address(), view.lightweightTeam(), kind, TaskStatus.of(view.flags()), view.flags(),
                function, view.frames(), view.toolData(), region, view.icvs());
    }

    /**
     * The one hint every door shows, once per picture, when the picture is thin because the program was started
     * without {@code OMP_DEBUG=enabled}. Every libomp with OMPD (LLVM 14 on; the same code in 14 to 23) turns on
     * its OMPT tracking and {@code ompd_state} in {@code ompd_init()} only when {@code getenv("OMP_DEBUG")} is
     * exactly {@code enabled}; OMPD (and jompd) read thread states, wait ids, task frames and task functions only
     * then ({@code ompd_rc_needs_state_tracking} otherwise).
     */
    public static final String UNTRACKED_HINT = "thread states, wait ids, task frames and task functions are not "
            + "tracked: start the program with OMP_DEBUG=enabled (exactly that value) in its environment to see them, "
            + "as libomp (every version with OMPD, LLVM 14 on) tracks them only then; everything else is complete.";

    /** A thread's state where libomp does not track states: the words every door shows on the thread. */
    public static final String NOT_TRACKED = "not tracked";

    private static List<String> notices(ProcessSnapshot snapshot, List<String> problems) {
        List<String> notices = new ArrayList<>();
        if (new IcvReading.Value("false").equals(snapshot.processIcvs().get("debug-var"))) {
            notices.add(UNTRACKED_HINT);
        }
        if (!problems.isEmpty()) {
            notices.add(problems.size() + " part(s) of the runtime could not be read (memory corrupt or "
                    + "partly missing): see the problems listed with the report.");
        }
        return List.copyOf(notices);
    }

    /**
     * A C++ symbol as people read it, as the region list names code ({@code sim::Grid<double>::relax() [clone
     * .omp_outlined]}); other names as they are.
     */
    String displayName(String symbol) {
        return names.functions().displayName(symbol);
    }

    public TargetDescription target() {
        return target;
    }

    /** The walk the picture was made of (for renderings that list raw values). */
    public ProcessSnapshot snapshot() {
        return snapshot;
    }

    public OpenMpVersion version() {
        return version;
    }

    public Map<String, IcvReading> processIcvs() {
        return snapshot.processIcvs();
    }

    public StartupSettings startup() {
        return startup;
    }

    /** Every region, outer-first. */
    public List<ParallelRegion> regions() {
        return regions;
    }

    public Optional<ParallelRegion> region(String id) {
        return Optional.ofNullable(regionsById.get(id));
    }

    /** The outermost regions. */
    public List<ParallelRegion> roots() {
        return regions.stream().filter(r -> r.enclosing().isEmpty() || !regionsById.containsKey(r.enclosing().get()))
                .toList();
    }

    /** The regions directly nested in {@code region}. */
    public List<ParallelRegion> children(ParallelRegion region) {
        return regions.stream().filter(r -> r.enclosing().equals(Optional.of(region.id())) && r != region).toList();
    }

    public List<OpenMpThread> threads() {
        return threads;
    }

    /** The threads whose innermost region is {@code region}, by thread number; empty id: threads in no team. */
    public List<OpenMpThread> members(Optional<String> region) {
        return threads.stream().filter(t -> t.region().equals(region))
                .sorted((a, b) -> a.threadNum() != b.threadNum() ? Long.compare(a.threadNum(), b.threadNum())
                        : Long.compare(a.gtid(), b.gtid())) // not Comparator.comparingLong(…): cold start
                .toList();
    }

    public Optional<OpenMpThread> threadByLwp(long lwp) {
        return threads.stream().filter(t -> t.lwp().isPresent() && t.lwp().getAsLong() == lwp).findFirst();
    }

    public Optional<OpenMpThread> threadByPthread(long pthread) {
        return threads.stream().filter(t -> t.pthread() == pthread).findFirst();
    }

    public Map<String, Task> tasks() {
        return tasks;
    }

    /** A thread's current task and the tasks that generated it, innermost first. */
    public List<Task> chain(OpenMpThread thread) {
        return thread.taskIds().stream().map(tasks::get).toList();
    }

    /**
     * A task's status as a thread's chain shows it ({@code viewer}: the thread whose chain it is): a task executing on
     * another thread says which ({@code executing on omp 0/3 (LWP …)}) — libomp marks only the task a thread runs now
     * as executing, so an ancestor in one thread's chain may be another thread's running task.
     */
    public String statusWords(Task task, Optional<OpenMpThread> viewer) {
        return statusWords(task, viewer, Naming.PROCESS);
    }

    /** {@link #statusWords(Task, Optional)} with the thread it executes on named as {@code naming} says. */
    public String statusWords(Task task, Optional<OpenMpThread> viewer, Naming naming) {
        if (task.status() != TaskStatus.EXECUTING) {
            return task.status().words();
        }
        if (viewer.isPresent() && !viewer.get().taskIds().isEmpty() && viewer.get().taskIds().getFirst().equals(task.id())) {
            return task.status().words();
        }
        return threads.stream().filter(t -> !t.taskIds().isEmpty() && t.taskIds().getFirst().equals(task.id()))
                .findFirst().map(t -> "executing on " + naming.thread(t)).orElse("executing on another thread");
    }

    /**
     * The tasks whose code lies on the thread's own stack, innermost first (each begun on this thread while
     * the next was suspended): what {@link FrameOwnership} assigns the thread's frames to.
     */
    public List<Task> stackChain(OpenMpThread thread) {
        return thread.stackTaskIds().stream().map(tasks::get).toList();
    }

    /** The threads of {@code members} grouped by {@link ThreadGroups#alike}, or one group each with {@code all}. */
    public List<List<OpenMpThread>> groups(List<OpenMpThread> members, boolean all) {
        return ThreadGroups.of(this, members, all);
    }

    /** What the reader should know to read the picture right (no OMP_DEBUG, unreadable parts). */
    public List<String> notices() {
        return notices;
    }

    public List<String> problems() {
        return problems;
    }

    /** What the jompd-recorder kept of the program's past, when the program runs with it. */
    /** libomp's locks and critical sections at this stop, with holders and wait queues as its memory says. */
    public RuntimeLocks locks() {
        return locks;
    }

    /** The program's own names of libomp's locks (the variables passed to {@code omp_set_lock}), where known. */
    public LockNames lockNames() {
        return lockNames;
    }

    public Optional<RecordedHistory> history() {
        return history;
    }

    private static String pathText(List<Long> teamPath) {
        return String.join(".", teamPath.stream().map(String::valueOf).toList());
    }

    /** A parallel region (or a serialized level). */
    public record ParallelRegion(String id, long level, long activeLevel, long teamSize, boolean serialized,
                                 boolean ended, Optional<String> enclosing, List<Long> teamPath, ToolData toolData,
                                 Optional<CodeLocation> function, Map<String, IcvReading> icvs,
                                 Optional<ParallelHandle.Teams> teams) {
        /**
         * "level 2 region, team of 4" (", serialized" for a team of one inside another region; ", ended" for a
         * region whose encountering thread has gone on in the enclosing region: libomp keeps its team, whose
         * workers wait for the next region); a teams construct's team: "level 0 (implicit parallel region of team 1
         * of a league of 2: teams construct)".
         */
        public String describe() {
            if (teams.isPresent()) {
                return "level " + level + " (implicit parallel region of team " + teams.get().teamNumber()
                        + " of a league of " + teams.get().leagueSize() + ": teams construct)";
            }
            if (level == 0) {
                return "level 0 (implicit parallel region of the initial task)";
            }
            return "level " + level + " region, team of " + teamSize + (serialized ? ", serialized" : "")
                    + (ended ? ", ended" : "");
        }

        /** Why a region counts as ended, in words (empty for one that has not): who has gone on, and what is left. */
        public String endedBecause() {
            if (!ended) {
                return "";
            }
            long encountering = teamPath.isEmpty() ? 0 : teamPath.getLast();
            return "thread " + encountering + " of " + enclosing.orElse("the enclosing region")
                    + ", which encountered it, is back in " + enclosing.orElse("that region")
                    + "; libomp keeps the team for the next region, its workers wait in the fork barrier";
        }

        /** The team path as text: {@code 1.0}. */
        public String path() {
            return pathText(teamPath);
        }
    }

    /** A thread number of a region's team, as the threads of a snapshot occupy them. */
    private record RegionPlace(RegionKey region, long threadNum) {
        // written out: a record's own equals and hashCode link through invokedynamic (ObjectMethods) on first use,
        // which the JVM's ahead-of-time cache does not keep: some 30 method-handle classes generated in every fresh
        // JVM, a job's node agents included (the hash is the generated one's, so hashed collections keep their order)
        @Override
        public boolean equals(Object other) {
            return other instanceof RegionPlace place && place.threadNum == threadNum && place.region.equals(region);
        }

        @Override
        public int hashCode() {
            return 31 * region.hashCode() + Long.hashCode(threadNum);
        }
    }

    /**
     * A thread's place in the program's teams, the same in every process of the program whatever its ids:
     * inside a teams construct the team's number, the team path (ancestor thread numbers from level 1 inward),
     * the thread's number, its team's size and the level; a thread in no team ({@code noTeamGtid}) by its gtid.
     */
    public record ThreadPlace(OptionalLong team, List<Long> teamPath, long threadNum, long teamSize, long level,
                              OptionalLong noTeamGtid) {
        public ThreadPlace {
            teamPath = List.copyOf(teamPath);
        }

        /** {@code omp team 1 · 0.1 · 2/4 · level 2}; {@code omp gtid 7 · no team}. */
        public String words() {
            return shortWords() + (noTeamGtid.isPresent() ? " · no team" : " · level " + level);
        }

        /** {@code omp team 1 · 0.1 · 2/4}; {@code omp gtid 7}: {@link #words()} without the level, as findings name threads. */
        public String shortWords() {
            if (noTeamGtid.isPresent()) {
                return "omp gtid " + noTeamGtid.getAsLong();
            }
            StringBuilder name = new StringBuilder("omp ");
            team.ifPresent(number -> name.append("team ").append(number).append(" · "));
            if (!teamPath.isEmpty()) {
                name.append(pathText(teamPath)).append(" · ");
            }
            return name.append(threadNum).append('/').append(teamSize).toString();
        }

        /** Threads in a team before those in none; then by team, team path and thread number; then by gtid. */
        public static final java.util.Comparator<ThreadPlace> ORDER = (a, b) -> {
            if (a.noTeamGtid.isPresent() != b.noTeamGtid.isPresent()) {
                return a.noTeamGtid.isPresent() ? 1 : -1;
            }
            int c = Long.compare(a.team.orElse(-1), b.team.orElse(-1));
            if (c != 0) {
                return c;
            }
            List<Long> pa = new ArrayList<>(a.teamPath);
            pa.add(a.threadNum);
            List<Long> pb = new ArrayList<>(b.teamPath);
            pb.add(b.threadNum);
            for (int i = 0; i < Math.min(pa.size(), pb.size()); i++) {
                c = Long.compare(pa.get(i), pb.get(i));
                if (c != 0) {
                    return c;
                }
            }
            c = Integer.compare(pa.size(), pb.size());
            return c != 0 ? c : Long.compare(a.noTeamGtid.orElse(0), b.noTeamGtid.orElse(0));
        };
    }

    /**
     * An OpenMP thread: identities, its place (innermost region, team path, number), state, tool data,
     * thread ICVs and its task chain (task ids, innermost first). The state is empty when it is not known:
     * {@code stateCode} then holds the raw OMPT code libomp reported, or is empty too when libomp does not
     * track states (no OMP_DEBUG=enabled). The wait id is empty exactly when the state code is: libomp keeps none
     * then (the 0 in its memory is no value); a tracked thread's wait id is OMPD's, 0 included.
     */
    public record OpenMpThread(long gtid, OptionalLong lwp, long pthread, long threadNum, Optional<ThreadState> state,
                               OptionalLong stateCode, OptionalLong waitId,
                               Optional<String> region, List<Long> teamPath, long level, long teamSize,
                               ToolData toolData, Map<String, IcvReading> icvs, List<String> taskIds,
                               List<String> stackTaskIds, OptionalLong team) {
        /** A thread in no teams construct. */
        public OpenMpThread(long gtid, OptionalLong lwp, long pthread, long threadNum, Optional<ThreadState> state,
                            OptionalLong stateCode, OptionalLong waitId, Optional<String> region, List<Long> teamPath, long level,
                            long teamSize, ToolData toolData, Map<String, IcvReading> icvs, List<String> taskIds,
                            List<String> stackTaskIds) {
            this(gtid, lwp, pthread, threadNum, state, stateCode, waitId, region, teamPath, level, teamSize, toolData,
                    icvs, taskIds, stackTaskIds, OptionalLong.empty());
        }

        /**
         * The name every door gives the thread: {@code omp 1 · 2/4 · level 2 · wait_barrier_implicit} — the
         * team path (ancestor thread numbers from level 1 inward, left out at level 1), the thread's number
         * and team size, the level, the state; inside a teams construct the team's number first
         * ({@code omp team 1 · 0/2 · level 1 · …}), so threads of different teams never share a name.
         */
        public String name() {
            return place().words() + state.map(known -> " · " + Text.shortState(known)).orElse("");
        }

        /** Where the thread is in the program's teams: its name without its state. */
        public ThreadPlace place() {
            return region.isPresent() ? new ThreadPlace(team, teamPath, threadNum, teamSize, level, OptionalLong.empty())
                    : new ThreadPlace(OptionalLong.empty(), List.of(), 0, 0, 0, OptionalLong.of(gtid));
        }

        /** The team path as text: {@code 1.0}. */
        public String path() {
            return pathText(teamPath);
        }

        public boolean stateKnown() {
            return state.isPresent();
        }
    }

    /** A task, once however many chains it is on. */
    public record Task(String id, long address, long lightweightTeam, TaskKind kind, TaskStatus status,
                       Optional<TaskHandle.TaskFlags> flags, Optional<CodeLocation> function,
                       Optional<TaskHandle.TaskFrames> frames, Optional<ToolData> toolData, Optional<String> region,
                       Map<String, IcvReading> icvs) {
        /** "explicit task t3 fib (fib.c:12), executing". */
        public String describe() {
            StringBuilder text = new StringBuilder(kind.words()).append(' ').append(id);
            function.ifPresent(f -> text.append(' ').append(f.describe()));
            if (status != TaskStatus.UNKNOWN) {
                text.append(", ").append(status.words());
            }
            return text.toString();
        }
    }

    /** What a task is, in the words of the OpenMP specification. */
    public enum TaskKind {
        INITIAL("initial task"), IMPLICIT("implicit task"), EXPLICIT("explicit task"), UNKNOWN("task");

        private final String words;

        TaskKind(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    /** Where a task is in its life, from its flags: the one a thread executes, or one waiting in a chain. */
    public enum TaskStatus {
        EXECUTING("executing"), SUSPENDED("suspended"), NOT_STARTED("not started"), COMPLETE("complete"),
        UNKNOWN("unknown");

        private final String words;

        TaskStatus(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }

        static TaskStatus of(Optional<TaskHandle.TaskFlags> flags) {
            if (flags.isEmpty()) {
                return UNKNOWN;
            }
            TaskHandle.TaskFlags f = flags.get();
            return f.complete() ? COMPLETE : f.executing() ? EXECUTING : f.started() ? SUSPENDED : NOT_STARTED;
        }
    }
}
