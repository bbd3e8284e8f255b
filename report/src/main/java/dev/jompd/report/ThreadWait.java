package dev.jompd.report;

import dev.jompd.core.ompd.ThreadState;
import dev.jompd.core.unwind.NativeFrame;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.ParallelStacks.Step;
import dev.jompd.report.ParallelStacks.ThreadStack;
import dev.jompd.report.RuntimeFunctions.Meaning;

import java.util.List;
import java.util.Optional;

/**
 * What one thread waits for and where it is, with the evidence: its OMPD state where libomp tracks states
 * ({@code OMP_DEBUG=enabled}) and the state names a wait, else where its stack is (a thread inside libomp's
 * barrier code is at its team's barrier). The place of the wait ({@link #at}) is the user's code that entered
 * the runtime (the caller of {@code __kmpc_barrier}, {@code __kmpc_omp_taskwait}, …); {@link #innermost} is
 * the innermost frame of user code (where a thread that waits for nothing of OpenMP's is).
 *
 * @param kind      what the thread waits for
 * @param evidence  how that is known: {@code OMPD state wait_barrier_explicit} or {@code stack: …}
 * @param at        where the waiting construct is in the user's code, when the stack shows it
 * @param innermost the innermost frame of user code (with source), when the stack shows one
 */
record ThreadWait(OpenMpThread thread, Kind kind, String evidence, Optional<Place> at, Optional<Place> innermost) {
    /** What a thread waits for. */
    enum Kind {
        /** An explicit barrier (or one libomp does not say which). */
        BARRIER("at the barrier"),
        /** The implicit barrier at the end of its parallel region. */
        IMPLICIT_BARRIER("at the implicit barrier at the end of the region"),
        /** It reached a barrier and, while waiting there, runs a task (its code is on the stack above). */
        TASK_AT_BARRIER("has reached the barrier and runs a task from it"),
        TASKWAIT("at a taskwait"),
        TASKGROUP("at the end of a taskgroup"),
        LOCK("waiting for a lock"),
        CRITICAL("waiting to enter a critical section"),
        IDLE("idle in libomp's thread pool"),
        NONE("not waiting in OpenMP");

        private final String words;

        Kind(String words) {
            this.words = words;
        }

        String words() {
            return words;
        }

        /** Whether a thread counts as arrived at its team's barrier. */
        boolean atBarrier() {
            return this == BARRIER || this == IMPLICIT_BARRIER || this == TASK_AT_BARRIER;
        }
    }

    /** A frame of user code: function and {@code file:line}. */
    record Place(String function, Optional<String> source) {
        String describe() {
            return function + source.map(s -> " (" + s + ")").orElse("");
        }
    }

    /** Where the thread is, in words: the innermost user code, else what libomp does. */
    String where() {
        return innermost.map(p -> "in " + p.describe()).orElse("(no user code on its stack)");
    }

    /**
     * What {@code thread} waits for. {@code ended}: its region has ended ({@link OpenMpPicture.ParallelRegion#ended()}),
     * so a worker still showing that region's implicit barrier waits for the next region in libomp's pool.
     */
    static ThreadWait of(OpenMpThread thread, Optional<ThreadStack> stack, String runtimeModule,
                         Optional<OpenMpPicture.ParallelRegion> ended) {
        ThreadWait wait = of(thread, stack, runtimeModule);
        if (ended.isPresent() && (wait.kind() == Kind.IMPLICIT_BARRIER || wait.kind() == Kind.BARRIER)) {
            return new ThreadWait(thread, Kind.IDLE, wait.evidence() + " of region " + ended.get().id() + ", which has ended: "
                    + ended.get().endedBecause(), wait.at(), wait.innermost());
        }
        return wait;
    }

    static ThreadWait of(OpenMpThread thread, Optional<ThreadStack> stack, String runtimeModule) {
        Optional<StackReading> reading = stack.map(s -> StackReading.of(s, runtimeModule));
        Optional<Place> at = reading.flatMap(StackReading::at);
        Optional<Place> innermost = reading.flatMap(StackReading::innermost);
        if (thread.state().isPresent()) {
            ThreadState known = thread.state().get();
            String state = Text.shortState(known);
            Kind kind = switch (known) {
                // wait_barrier_implementation: GOMP_barrier (gcc/gfortran's barriers) in libomp
                case WAIT_BARRIER_EXPLICIT, WAIT_BARRIER_IMPLEMENTATION -> Kind.BARRIER;
                case WAIT_BARRIER_IMPLICIT, WAIT_BARRIER_IMPLICIT_PARALLEL, WAIT_BARRIER_IMPLICIT_WORKSHARE,
                     WAIT_BARRIER_TEAMS -> Kind.IMPLICIT_BARRIER;
                // before LLVM 19 every barrier showed the deprecated wait_barrier: the stack tells which
                case WAIT_BARRIER -> reading.map(StackReading::kind).filter(k -> k == Kind.IMPLICIT_BARRIER)
                        .orElse(Kind.BARRIER);
                case WAIT_LOCK -> Kind.LOCK;
                case WAIT_CRITICAL -> Kind.CRITICAL;
                case WAIT_TASKWAIT -> Kind.TASKWAIT;
                case WAIT_TASKGROUP -> Kind.TASKGROUP;
                case IDLE -> Kind.IDLE;
                default -> Kind.NONE;
            };
            // libomp reports a critical section's waiters as wait_lock: the stack tells them apart
            if (kind == Kind.LOCK && reading.map(StackReading::kind).orElse(Kind.NONE) == Kind.CRITICAL) {
                kind = Kind.CRITICAL;
            }
            if (kind != Kind.NONE || stack.isEmpty()) {
                return new ThreadWait(thread, kind, "OMPD state " + state, at, innermost);
            }
        }
        if (reading.isEmpty()) {
            return new ThreadWait(thread, Kind.NONE, "state unknown and no stack", at, innermost);
        }
        return new ThreadWait(thread, reading.get().kind(), "stack: " + reading.get().evidence(), at, innermost);
    }

    /** What a thread's frames say (innermost first): the runtime run it is in, or the user code it runs. */
    private record StackReading(Kind kind, String evidence, Optional<Place> at, Optional<Place> innermost) {
        static StackReading of(ThreadStack stack, String runtimeModule) {
            List<NativeFrame> frames = stack.stack().frames();
            Optional<Place> innermost = Optional.empty();
            int first = 0;
            // the C library's frames (read, futex waits, sched_yield) lie above whatever called them
            while (first < frames.size() && system(frames.get(first))) {
                first++;
            }
            for (NativeFrame frame : frames.subList(first, frames.size())) {
                if (!runtime(frame, runtimeModule) && !system(frame) && frame.source().isPresent()) {
                    innermost = Optional.of(place(frame));
                    break;
                }
            }
            if (first < frames.size() && runtime(frames.get(first), runtimeModule)) {
                int end = runEnd(frames, first, runtimeModule);
                Kind kind = runtimeRun(frames.subList(first, end));
                return new StackReading(kind, lastRuntimeStep(stack), callerOf(frames, end), innermost);
            }
            // The thread runs user code. If it runs it as a task taken from inside a barrier's wait, it has
            // reached that barrier: the first runtime run below the user code says so.
            for (int i = first; i < frames.size(); i++) {
                if (runtime(frames.get(i), runtimeModule)) {
                    int end = runEnd(frames, i, runtimeModule);
                    List<NativeFrame> run = frames.subList(i, end);
                    boolean runsTask = RuntimeFunctions.any(functions(run), Meaning.INVOKE_TASK);
                    Kind below = runtimeRun(run);
                    if (runsTask && (below == Kind.BARRIER || below == Kind.IMPLICIT_BARRIER)) {
                        return new StackReading(Kind.TASK_AT_BARRIER, "a task's code above libomp's barrier wait ("
                                + functionNames(run) + ")", callerOf(frames, end), innermost);
                    }
                    break;
                }
            }
            return new StackReading(Kind.NONE, "user code" + innermost.map(p -> " " + p.function()).orElse("")
                    + " on top" + (stack.steps().stream().anyMatch(Step::runtime) ? ", libomp below it" : ""),
                    Optional.empty(), innermost);
        }

        private static int runEnd(List<NativeFrame> frames, int start, String runtimeModule) {
            int end = start;
            while (end < frames.size() && runtime(frames.get(end), runtimeModule)) {
                end++;
            }
            return end;
        }

        /** The first frame of user code outward of index {@code end}: who entered the runtime. */
        private static Optional<Place> callerOf(List<NativeFrame> frames, int end) {
            for (int i = end; i < frames.size(); i++) {
                NativeFrame frame = frames.get(i);
                if (frame.source().isPresent() && !system(frame)) {
                    return Optional.of(place(frame));
                }
                if (frame.module().isPresent() && !system(frame)) {
                    return Optional.empty(); // code without line information: no place to name
                }
            }
            return Optional.empty();
        }

        /** The folded step of the innermost runtime run, as the parallel stacks show it. */
        private static String lastRuntimeStep(ThreadStack stack) {
            return stack.steps().stream().filter(Step::runtime).reduce((a, b) -> b).map(Step::function).orElse("");
        }

        private static String functionNames(List<NativeFrame> run) {
            List<String> names = run.stream().map(f -> f.function().orElse("?")).filter(n -> RuntimeFunctions.is(n,
                    Meaning.ENTRY_POINT) || RuntimeFunctions.is(n, Meaning.INVOKE_TASK)
                    || RuntimeFunctions.is(n, Meaning.BARRIER_WAIT)).distinct().toList();
            return String.join(", ", names);
        }
    }

    /**
     * What a run of libomp's frames (innermost first) waits in, from what the functions it passes through
     * mean ({@link RuntimeFunctions}): the one reading of runtime frames, which the parallel stacks fold to
     * words too.
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
        if (RuntimeFunctions.any(names, Meaning.BARRIER_WAIT)) {
            return Kind.BARRIER;
        }
        if (RuntimeFunctions.any(names, Meaning.TASKGROUP_END)) {
            return Kind.TASKGROUP;
        }
        if (RuntimeFunctions.any(names, Meaning.TASK_WAIT)) {
            return Kind.TASKWAIT;
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

    private static Place place(NativeFrame frame) {
        return new Place(frame.function().orElse(frame.symbol().orElse(Text.hex(frame.pc()))),
                frame.source().map(s -> s.fileName() + ":" + s.line()));
    }

    private static boolean runtime(NativeFrame frame, String runtimeModule) {
        return frame.module().map(runtimeModule::equals).orElse(false);
    }

    /** The C library's and the dynamic linker's frames: below the program's own code, never its subject. */
    private static boolean system(NativeFrame frame) {
        return RuntimeFunctions.system(frame);
    }
}
