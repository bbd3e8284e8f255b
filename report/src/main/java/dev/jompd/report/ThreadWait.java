package dev.jompd.report;

import dev.jompd.core.ompd.FunctionNames;
import dev.jompd.core.ompd.RuntimeWaits;
import dev.jompd.core.ompd.ThreadState;
import dev.jompd.core.unwind.NativeFrame;
import dev.jompd.core.unwind.NativeStack;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.ParallelStacks.Construct;
import dev.jompd.report.RuntimeFunctions.Meaning;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one thread waits for, as the construct the program's author wrote, and where: the wait model every
 * finding and every door's folded stack reads. A thread's stack is read from the outermost frame in: each run of
 * libomp's frames entered from user code is one step of OpenMP's — a wait (a barrier, a taskwait, the end of a
 * taskgroup, {@code ordered}, a lock, a critical section) or libomp running the program's code. A thread that
 * waits at a task scheduling point of a construct (a barrier, a taskwait) may run a task there: that wait is one of
 * its {@link #under} waits (it has arrived there), and the task's own code goes on above it — with, maybe, a wait
 * of its own, the thread's {@link #kind}.
 *
 * <p>Which construct a barrier belongs to comes from libomp's own record: the OMPD state
 * ({@code wait_barrier_explicit}, {@code wait_barrier_implicit_workshare}, {@code wait_barrier_implicit_parallel})
 * where libomp tracks states ({@code OMP_DEBUG=enabled}), and the ident of the thread's last barrier
 * ({@code th_ident}: the compiler's flags for explicit, for, sections, single, workshare), believed for the
 * innermost barrier on the stack only and only where its line agrees with the stack's. Where neither tells, the
 * barrier is {@link Kind#BARRIER_UNTOLD} and the evidence says why. The place of a wait ({@link #at}) is the
 * user's code that entered the runtime (the caller of {@code __kmpc_barrier}, {@code __kmpc_omp_taskwait}, …);
 * {@link #innermost} is the innermost frame of user code.
 *
 * @param kind      what the thread waits for now (its innermost wait), or {@link Kind#NONE}
 * @param evidence  how that is known: {@code OMPD state wait_barrier_explicit}, {@code stack: …}, the ident read
 * @param at        where the waiting construct is in the user's code, when the stack shows it
 * @param innermost the innermost frame of user code (with source), when the stack shows one
 * @param under     the waits the thread is inside while it runs a task (task scheduling points), outermost first
 */
public record ThreadWait(OpenMpThread thread, Kind kind, String evidence, Optional<Place> at, Optional<Place> innermost,
                         List<Scheduling> under) {
    /** What a thread waits in: the construct, in the words of the OpenMP specification. */
    public enum Kind {
        /** An explicit {@code #pragma omp barrier}. */
        BARRIER("the explicit barrier"),
        BARRIER_FOR("the implicit barrier of the worksharing loop"),
        BARRIER_SECTIONS("the implicit barrier of the sections construct"),
        BARRIER_SINGLE("the implicit barrier of the single construct"),
        BARRIER_WORKSHARE("the implicit barrier of the workshare construct"),
        /** libomp's state says a worksharing construct's implicit barrier; which construct is not recorded. */
        BARRIER_WORKSHARING("the implicit barrier of a worksharing construct"),
        /** A barrier entered from the program's code whose construct libomp's records do not tell. */
        BARRIER_UNTOLD("a barrier (explicit, or a worksharing construct's implicit one)"),
        /** The implicit barrier at the end of a parallel region (libomp's join barrier). */
        IMPLICIT_BARRIER("the implicit barrier at the end of the parallel region"),
        TASKWAIT("a taskwait"),
        TASKGROUP("the end of a taskgroup"),
        ORDERED("an ordered region"),
        /** A taskyield: no wait of its own, a scheduling point the thread may run another task at. */
        TASKYIELD("a taskyield"),
        LOCK("a lock"),
        CRITICAL("a critical section"),
        IDLE("libomp's thread pool"),
        NONE("no OpenMP construct");

        private final String construct;

        Kind(String construct) {
            this.construct = construct;
        }

        /** The construct as a noun: {@code the implicit barrier of the single construct}. */
        public String construct() {
            return construct;
        }

        /** What a thread in it does: {@code at the implicit barrier of the single construct}, {@code waiting for a lock}. */
        public String words() {
            return switch (this) {
                case LOCK -> "waiting for a lock";
                case CRITICAL -> "waiting to enter a critical section";
                case ORDERED -> "waiting to enter an ordered region";
                case IDLE -> "idle in libomp's thread pool";
                case NONE -> "not waiting in OpenMP";
                default -> "at " + construct;
            };
        }

        /** Whether a thread in it has arrived at its team's barrier. */
        public boolean atBarrier() {
            return switch (this) {
                case BARRIER, BARRIER_FOR, BARRIER_SECTIONS, BARRIER_SINGLE, BARRIER_WORKSHARE, BARRIER_WORKSHARING,
                     BARRIER_UNTOLD, IMPLICIT_BARRIER -> true;
                default -> false;
            };
        }

        /** Whether a thread waiting in it may run tasks meanwhile (a task scheduling point). */
        boolean schedulesTasks() {
            return atBarrier() || this == TASKWAIT || this == TASKGROUP || this == TASKYIELD;
        }
    }

    /**
     * A frame of user code: function, {@code file:line}, the task it runs for ({@link FrameOwnership}) and the
     * construct whose code it is (a region's outlined function, a task's code), where the picture knows them.
     */
    public record Place(String function, Optional<String> source, Optional<String> task, Optional<Construct> construct) {
        public Place(String function, Optional<String> source) {
            this(function, source, Optional.empty(), Optional.empty());
        }

        /** {@code work (tasks.c:6)}: the function and its line, as findings place themselves. */
        public String describe() {
            return function + source.map(s -> " (" + s + ")").orElse("");
        }

        /**
         * Where the thread is, for people: {@code work (tasks.c:6)}; in the code of a construct the construct
         * first, as the parallel stacks name it: {@code task at cxx.cpp:12 (.omp_outlined. at cxx.cpp:15)}.
         */
        public String inWords() {
            if (construct.isPresent() && construct.get().shortSource().isPresent()) {
                String line = construct.get().shortSource().get();
                if (FunctionNames.isTaskEntryThunk(function)) {
                    return construct.get().kind().words() + " at " + line; // clang's entry thunk: no name of the user's
                }
                return construct.get().kind().words() + " at " + line + " (" + function
                        + source.filter(s -> !s.equals(line)).map(s -> " at " + s).orElse("") + ")";
            }
            if (FunctionNames.isTaskEntryThunk(function) && source.isPresent()) {
                // clang's entry thunk of a task, known from the stack alone (no OMP_DEBUG: no task functions): its
                // line is the task's pragma, as the picture would say it
                return "task at " + source.get();
            }
            return describe();
        }

        /**
         * Where a construct the thread waits in is: {@code single.c:7 (in parallel region at single.c:5)},
         * {@code locks.c:12 (in straggle)}.
         */
        public String line() {
            String owner = construct.flatMap(c -> c.shortSource().map(s -> c.kind().words() + " at " + s))
                    .orElse(function);
            return source.map(s -> s + " (in " + owner + ")").orElse("in " + owner);
        }
    }

    /**
     * A wait the thread is inside while it runs a task at that task scheduling point: the construct, its place,
     * how known, the code of the task it runs there ({@code task}: the first user frame above the wait), and the
     * innermost frame of the wait's run of libomp frames ({@code frame}, as the stack numbers them; -1 for none).
     */
    public record Scheduling(Kind kind, Optional<Place> at, String evidence, Optional<Place> task, int frame) {
        /** {@code at the implicit barrier of the single construct (single.c:7 (in …)), running task at single.c:9 (…)}. */
        public String describe() {
            return kind.words() + at.map(p -> " (" + p.line() + ")").orElse("")
                    + task.map(t -> ", running " + t.inWords()).orElse(", running a task");
        }
    }

    /** The barrier the thread has arrived at (maybe running a task there): its outermost barrier wait. */
    public Optional<Scheduling> arrival() {
        for (Scheduling layer : under) {
            if (layer.kind().atBarrier()) {
                return Optional.of(layer);
            }
        }
        return kind.atBarrier() ? Optional.of(new Scheduling(kind, at, evidence, Optional.empty(), -1)) : Optional.empty();
    }

    /**
     * What the run of libomp frames whose innermost frame is {@code frame} is, as this wait reads it: the thread's
     * current wait, a wait it runs a task at, or nothing of this model's (libomp running the program's code).
     */
    Optional<Kind> runAt(int frame, int currentFrame) {
        if (frame == currentFrame && kind != Kind.NONE) {
            return Optional.of(kind);
        }
        return under.stream().filter(layer -> layer.frame() == frame).map(Scheduling::kind).findFirst();
    }

    /** Whether the thread arrived at its barrier and runs a task there. */
    public boolean runsTaskAtBarrier() {
        return under.stream().anyMatch(layer -> layer.kind().atBarrier());
    }

    /** Where the thread is, in words: the innermost user code, else what libomp does. */
    public String where() {
        return innermost.map(p -> "in " + p.inWords()).orElse("(no user code on its stack)");
    }

    /**
     * The whole of what the thread does, in one phrase: its waits from the outermost in, e.g. {@code at the
     * implicit barrier of the single construct (single.c:7 (in …)), running task at single.c:9 (…), which waits
     * at a taskwait (single.c:12 (in task at single.c:9))}.
     */
    public String describe() {
        StringBuilder text = new StringBuilder();
        for (Scheduling layer : under) {
            text.append(text.isEmpty() ? layer.describe() : ", which waits " + layer.describe().replaceFirst("^waiting ", ""));
        }
        String place = at.map(p -> " (" + p.line() + ")").orElse(innermost.map(p -> ", " + where()).orElse(""));
        if (text.isEmpty()) {
            return kind == Kind.NONE ? where() : kind.words() + place;
        }
        return text + (kind == Kind.NONE ? ", " + where()
                : ", which waits " + kind.words().replaceFirst("^waiting ", "") + place);
    }

    /** A thread without a stack to read and without a state: nothing is known. */
    static ThreadWait unknown(OpenMpThread thread) {
        return new ThreadWait(thread, Kind.NONE, "state unknown and no stack", Optional.empty(), Optional.empty(), List.of());
    }

    /**
     * What {@code thread} waits for, from its state, the ident of its last barrier and its stack (empty: not
     * unwound). A worker whose region has ended ({@link ParallelRegion#ended()}) and that still shows that region's
     * barrier waits for the next region in libomp's pool.
     */
    static ThreadWait of(OpenMpPicture picture, OpenMpThread thread, Optional<StackOf> stack) {
        ThreadWait wait = read(thread, stack, picture.target().runtime(), picture.barrierIdent(thread));
        Optional<ParallelRegion> region = thread.region().flatMap(picture::region);
        Optional<ParallelRegion> ended = region.filter(ParallelRegion::ended);
        if (ended.isPresent() && wait.kind().atBarrier() && wait.under().isEmpty()) {
            return new ThreadWait(thread, Kind.IDLE, wait.evidence() + " of region " + ended.get().id()
                    + ", which has ended: " + ended.get().endedBecause(), wait.at(), wait.innermost(), List.of());
        }
        // libomp's workers pass the implicit barrier at the end of a region with their arrival and wait in the
        // fork barrier for the next region: a worker there while its region goes on has arrived at its end
        Optional<ParallelRegion> live = region.filter(r -> r.level() > 0 && r.teamSize() > 1 && !r.ended());
        if (wait.kind() == Kind.IDLE && wait.under().isEmpty() && live.isPresent() && thread.threadNum() != 0) {
            return new ThreadWait(thread, Kind.IMPLICIT_BARRIER, wait.evidence() + "; done with the code of region "
                    + live.get().id() + ", which goes on: a worker passes its implicit barrier with its arrival and "
                    + "waits in libomp's fork barrier", Optional.empty(), wait.innermost(), List.of());
        }
        return wait;
    }

    /** A thread's frames (innermost first), with each frame's task and construct as the picture knows them. */
    record StackOf(NativeStack stack, List<FrameOwnership.Mark> marks, List<Optional<Construct>> constructs) {
        List<NativeFrame> frames() {
            return stack.frames();
        }

        Place place(int index) {
            NativeFrame frame = frames().get(index);
            return new Place(frame.function().orElse(frame.symbol().orElse(Text.hex(frame.pc()))),
                    frame.source().map(s -> s.fileName() + ":" + s.line()),
                    index < marks.size() ? marks.get(index).task().map(OpenMpPicture.Task::id) : Optional.empty(),
                    index < constructs.size() ? constructs.get(index) : Optional.empty());
        }
    }

    /** One run of libomp's frames on a stack: frames [{@code start}, {@code end}) innermost first, and what it is. */
    record Run(int start, int end, Kind kind, boolean runsTask) {}

    static ThreadWait read(OpenMpThread thread, Optional<StackOf> stack, String runtimeModule, RuntimeWaits.Reading ident) {
        List<Run> runs = stack.map(s -> runs(s.frames(), runtimeModule)).orElse(List.of());
        int top = stack.map(s -> firstNonSystem(s.frames())).orElse(0);
        Optional<Place> innermost = stack.flatMap(s -> innermostUser(s, runtimeModule));
        // the innermost barrier on the stack is the one th_ident describes (a task cannot enter a barrier); only
        // __kmpc_barrier sets it (gcc's GOMP_loop_end and GOMP_sections_end name their construct themselves)
        Optional<Run> identRun = runs.stream().filter(r -> r.kind().atBarrier() && r.kind() != Kind.IMPLICIT_BARRIER)
                .findFirst().filter(r -> r.kind() == Kind.BARRIER_UNTOLD);
        Optional<Run> current = runs.isEmpty() || runs.getFirst().start() != top ? Optional.empty()
                : Optional.of(runs.getFirst());
        // the waits the thread runs tasks at: runs further out that invoke a task, outermost first
        List<Scheduling> under = new ArrayList<>();
        for (Run run : runs.reversed()) {
            if (current.isPresent() && run == current.get() || !run.runsTask() || !run.kind().schedulesTasks()) {
                continue;
            }
            Optional<Place> at = callerOf(stack.get(), run.end());
            Kind kind = run.kind();
            String evidence = "stack: " + functionNames(stack.get().frames().subList(run.start(), run.end()));
            if (identRun.isPresent() && identRun.get() == run) {
                BarrierReading of = barrierConstruct(ident, at);
                kind = of.kind();
                evidence += "; " + of.evidence();
            }
            under.add(new Scheduling(kind, at, evidence, userAbove(stack.get(), run.start(), runtimeModule), run.start()));
        }
        Optional<Place> at = current.flatMap(r -> callerOf(stack.get(), r.end()));
        Kind fromStack = current.map(Run::kind).orElse(Kind.NONE);
        String stackEvidence = current.map(r -> "stack: " + functionNames(stack.get().frames().subList(r.start(), r.end())))
                .orElse(stack.isEmpty() ? "no stack" : "stack: user code" + innermost.map(p -> " " + p.function())
                        .orElse("") + " on top" + (runs.isEmpty() ? "" : ", libomp below it"));
        Kind kind = Kind.NONE;
        String evidence = stackEvidence;
        if (thread.state().isPresent()) {
            Kind fromState = fromState(thread.state().get(), fromStack);
            if (fromState != Kind.NONE || stack.isEmpty()) {
                kind = fromState;
                evidence = "OMPD state " + Text.shortState(thread.state().get());
            }
        }
        if (kind == Kind.NONE) {
            kind = fromStack;
            evidence = stack.isEmpty() && thread.state().isEmpty() ? "state unknown and no stack" : evidence;
        }
        // a barrier: which construct's, from the ident of the thread's last barrier where the stack agrees
        if (current.isPresent() && identRun.isPresent() && identRun.get() == current.get()
                && (kind == Kind.BARRIER_UNTOLD || kind == Kind.BARRIER_WORKSHARING)) {
            BarrierReading of = barrierConstruct(ident, at);
            if (kind == Kind.BARRIER_UNTOLD || of.kind() != Kind.BARRIER && of.kind() != Kind.BARRIER_UNTOLD) {
                kind = of.kind();
            }
            evidence += "; " + of.evidence();
        }
        return new ThreadWait(thread, kind, evidence, at, innermost, List.copyOf(under));
    }

    /** What the OMPD state says the thread waits in; {@code fromStack} where the state does not tell which barrier. */
    private static Kind fromState(ThreadState state, Kind fromStack) {
        return switch (state) {
            case WAIT_BARRIER_EXPLICIT -> Kind.BARRIER;
            case WAIT_BARRIER_IMPLICIT_WORKSHARE -> Kind.BARRIER_WORKSHARING;
            case WAIT_BARRIER_IMPLICIT_PARALLEL, WAIT_BARRIER_TEAMS -> Kind.IMPLICIT_BARRIER;
            // wait_barrier (before LLVM 19 every barrier), wait_barrier_implicit, and wait_barrier_implementation
            // (GOMP_barrier, gcc's barriers): the stack tells the end of a region from a barrier of the code
            case WAIT_BARRIER, WAIT_BARRIER_IMPLICIT, WAIT_BARRIER_IMPLEMENTATION ->
                    fromStack.atBarrier() ? fromStack : Kind.BARRIER_UNTOLD;
            // libomp reports a critical section's waiters as wait_lock: the stack tells them apart
            case WAIT_LOCK -> fromStack == Kind.CRITICAL ? Kind.CRITICAL : Kind.LOCK;
            case WAIT_CRITICAL -> Kind.CRITICAL;
            case WAIT_ORDERED -> Kind.ORDERED;
            case WAIT_TASKWAIT -> Kind.TASKWAIT;
            case WAIT_TASKGROUP -> Kind.TASKGROUP;
            case IDLE -> Kind.IDLE;
            default -> Kind.NONE;
        };
    }

    /** A barrier's construct as the ident tells it, with the evidence. */
    private record BarrierReading(Kind kind, String evidence) {}

    private static BarrierReading barrierConstruct(RuntimeWaits.Reading ident, Optional<Place> at) {
        if (ident instanceof RuntimeWaits.Reading.Unknown unknown) {
            return new BarrierReading(Kind.BARRIER_UNTOLD, "which construct is not known: " + unknown.why());
        }
        RuntimeWaits.Ident known = ((RuntimeWaits.Reading.Known) ident).ident();
        Optional<String> stackSource = at.flatMap(Place::source);
        if (known.source().isPresent() && stackSource.isPresent() && !known.source().equals(stackSource)) {
            return new BarrierReading(Kind.BARRIER_UNTOLD, "which construct is not known: libomp's last barrier ident ("
                    + known.evidence() + ") is at " + known.source().get() + ", not at the stack's " + stackSource.get());
        }
        Kind kind = switch (known.construct()) {
            case EXPLICIT_BARRIER -> Kind.BARRIER;
            case IMPLICIT_BARRIER_FOR -> Kind.BARRIER_FOR;
            case IMPLICIT_BARRIER_SECTIONS -> Kind.BARRIER_SECTIONS;
            case IMPLICIT_BARRIER_SINGLE -> Kind.BARRIER_SINGLE;
            case IMPLICIT_BARRIER_WORKSHARE -> Kind.BARRIER_WORKSHARE;
            case NO_BARRIER -> Kind.BARRIER_UNTOLD;
        };
        return new BarrierReading(kind, kind == Kind.BARRIER_UNTOLD
                ? "which construct is not known: the compiler's ident names none (" + known.evidence() + ")"
                : known.evidence());
    }

    /** The runs of libomp's frames on the stack, innermost first. */
    static List<Run> runs(List<NativeFrame> frames, String runtimeModule) {
        List<Run> runs = new ArrayList<>();
        int i = 0;
        while (i < frames.size()) {
            if (!runtime(frames.get(i), runtimeModule)) {
                i++;
                continue;
            }
            int end = i;
            while (end < frames.size() && runtime(frames.get(end), runtimeModule)) {
                end++;
            }
            List<NativeFrame> run = frames.subList(i, end);
            List<String> names = functions(run);
            boolean runsTask = i > 0 && RuntimeFunctions.any(names, Meaning.INVOKE_TASK);
            // a run that runs a task waits in what lies outward of the task's invocation
            Kind kind = runsTask ? runtimeRun(run.subList(lastInvokeTask(names) + 1, run.size())) : runtimeRun(run);
            runs.add(new Run(i, end, kind, runsTask));
            i = end;
        }
        return runs;
    }

    private static int lastInvokeTask(List<String> names) {
        int last = -1;
        for (int i = 0; i < names.size(); i++) {
            if (RuntimeFunctions.is(names.get(i), Meaning.INVOKE_TASK)) {
                last = i;
            }
        }
        return last;
    }

    static int firstNonSystem(List<NativeFrame> frames) {
        int first = 0;
        // the C library's frames (read, futex waits, sched_yield) lie above whatever called them
        while (first < frames.size() && system(frames.get(first))) {
            first++;
        }
        return first;
    }

    private static Optional<Place> innermostUser(StackOf stack, String runtimeModule) {
        List<NativeFrame> frames = stack.frames();
        for (int i = 0; i < frames.size(); i++) {
            NativeFrame frame = frames.get(i);
            if (!runtime(frame, runtimeModule) && !system(frame) && frame.source().isPresent()) {
                return Optional.of(stack.place(i));
            }
        }
        return Optional.empty();
    }

    /** The first frame of user code outward of index {@code end}: who entered the runtime. */
    private static Optional<Place> callerOf(StackOf stack, int end) {
        List<NativeFrame> frames = stack.frames();
        for (int i = end; i < frames.size(); i++) {
            NativeFrame frame = frames.get(i);
            if (frame.source().isPresent() && !system(frame)) {
                return Optional.of(stack.place(i));
            }
            if (frame.module().isPresent() && !system(frame)) {
                return Optional.empty(); // code without line information: no place to name
            }
        }
        return Optional.empty();
    }

    /** The user frame just inward of a run that invokes a task: the task's own code. */
    private static Optional<Place> userAbove(StackOf stack, int start, String runtimeModule) {
        List<NativeFrame> frames = stack.frames();
        // the task's code: going inward, never past the next runtime run, the first frame the picture knows as a
        // construct's code (the task's: its entry thunk or outlined function), else the first with a source
        Optional<Place> found = Optional.empty();
        for (int i = start - 1; i >= 0 && !runtime(frames.get(i), runtimeModule); i--) {
            NativeFrame frame = frames.get(i);
            if (frame.source().isEmpty() || system(frame)) {
                continue;
            }
            Place place = stack.place(i);
            if (place.construct().isPresent()) {
                return Optional.of(place); // the task's own code, which the picture knows as the task's
            }
            found = found.or(() -> Optional.of(place));
        }
        return found;
    }

    private static String functionNames(List<NativeFrame> run) {
        List<String> names = run.stream().map(f -> f.function().orElse("?")).filter(n -> RuntimeFunctions.is(n,
                Meaning.ENTRY_POINT) || RuntimeFunctions.is(n, Meaning.INVOKE_TASK)
                || RuntimeFunctions.is(n, Meaning.BARRIER_WAIT) || RuntimeFunctions.is(n, Meaning.ORDERED_WAIT)
                || RuntimeFunctions.is(n, Meaning.LOOP_END) || RuntimeFunctions.is(n, Meaning.SECTIONS_END))
                .distinct().toList();
        return names.isEmpty() ? functions(run).getFirst() : String.join(", ", names);
    }

    /**
     * What a run of libomp's frames (innermost first) waits in, from what the functions it passes through
     * mean ({@link RuntimeFunctions}): a barrier entered from the program's code is {@link Kind#BARRIER_UNTOLD}
     * until its ident says which.
     */
    static Kind runtimeRun(List<NativeFrame> run) {
        List<String> names = functions(run);
        if (RuntimeFunctions.any(names, Meaning.THREAD_POOL_IDLE) && !RuntimeFunctions.any(names, Meaning.INVOKE)) {
            return Kind.IDLE;
        }
        // the implicit barrier: workers in __kmp_join_barrier, the primary thread in __kmp_join_call
        if (RuntimeFunctions.any(names, Meaning.IMPLICIT_BARRIER)) {
            return Kind.IMPLICIT_BARRIER;
        }
        if (RuntimeFunctions.any(names, Meaning.LOOP_END)) {
            return Kind.BARRIER_FOR;
        }
        if (RuntimeFunctions.any(names, Meaning.SECTIONS_END)) {
            return Kind.BARRIER_SECTIONS;
        }
        if (RuntimeFunctions.any(names, Meaning.BARRIER_WAIT)) {
            return Kind.BARRIER_UNTOLD;
        }
        if (RuntimeFunctions.any(names, Meaning.TASKGROUP_END)) {
            return Kind.TASKGROUP;
        }
        if (RuntimeFunctions.any(names, Meaning.TASK_WAIT)) {
            return Kind.TASKWAIT;
        }
        if (RuntimeFunctions.any(names, Meaning.ORDERED_WAIT)) {
            return Kind.ORDERED;
        }
        if (RuntimeFunctions.any(names, Meaning.TASKYIELD)) {
            return Kind.TASKYIELD;
        }
        if (RuntimeFunctions.any(names, Meaning.CRITICAL_WAIT)) {
            return Kind.CRITICAL;
        }
        if (RuntimeFunctions.any(names, Meaning.LOCK_ACQUIRE)) {
            return Kind.LOCK;
        }
        return Kind.NONE;
    }

    /** The functions of a run of frames ("" where a frame has no function name). */
    static List<String> functions(List<NativeFrame> run) {
        return run.stream().map(f -> f.function().orElse("")).toList();
    }

    private static boolean runtime(NativeFrame frame, String runtimeModule) {
        return frame.module().map(runtimeModule::equals).orElse(false);
    }

    /** The C library's and the dynamic linker's frames: below the program's own code, never its subject. */
    private static boolean system(NativeFrame frame) {
        return RuntimeFunctions.system(frame);
    }
}
