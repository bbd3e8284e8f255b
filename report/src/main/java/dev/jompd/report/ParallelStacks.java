package dev.jompd.report;

import dev.jompd.core.ompd.CodeLocation.Resolution;
import dev.jompd.core.ompd.FunctionNames;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.unwind.NativeFrame;
import dev.jompd.core.unwind.NativeStack;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.RuntimeFunctions.Meaning;
import dev.jompd.report.OpenMpPicture.Task;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where every OpenMP thread is: each thread's native stack (ompd-core's unwinder, through the address
 * space) with each frame marked by the task it runs for ({@link FrameOwnership}, the rule of every door),
 * and the threads merged into one tree by common call path from the outermost frame in (as LLNL's STAT and
 * DDT's parallel stacks do), each node with its threads. Runs of the runtime's own frames are folded into
 * one line saying what they mean ("libomp: waiting at the barrier"), from the functions they are in.
 */
public final class ParallelStacks {
    /**
     * One thread's stack, its frames' owners, the construct whose code each frame runs (where the picture
     * knows it), the runs of runtime frames folded, and what the thread waits for ({@link ThreadWait}, read once
     * here as {@code waiting}: the folded runs and the diagnosis say the same).
     */
    public record ThreadStack(OpenMpThread thread, NativeStack stack, List<FrameOwnership.Mark> marks,
                              List<Optional<Construct>> constructs, List<Step> steps, ThreadWait waiting) {
        /** A stack whose wait is not read (for tests of the merge alone). */
        public ThreadStack(OpenMpThread thread, NativeStack stack, List<FrameOwnership.Mark> marks,
                           List<Optional<Construct>> constructs, List<Step> steps) {
            this(thread, stack, marks, constructs, steps, ThreadWait.unknown(thread));
        }
    }

    /**
     * One step of a call path as the merged tree shows it: a frame of user or library code, or a folded run
     * of the runtime's frames ({@code runtime} true, {@code function} saying what they do); {@code frames}
     * the frames of the thread's stack it stands for (none for the note of a stack cut short).
     */
    public record Step(String function, Optional<String> source, Optional<String> module, boolean runtime,
                       Optional<String> task, Optional<Construct> construct, Optional<FrameRange> frames) {
        public Step(String function, Optional<String> source, Optional<String> module, boolean runtime,
                    Optional<String> task) {
            this(function, source, module, runtime, task, Optional.empty(), Optional.empty());
        }

        /**
         * What merges: the function, its module and its line: threads stopped at different lines of one
         * function are at different steps (a straggler at its call beside the team at the barrier after it).
         */
        String key() {
            return (runtime ? "libomp:" : "") + function + "@" + module.orElse("") + "@" + source.orElse("");
        }

        /**
         * {@code [libomp: …]}, {@code fib (fib.c:12)}, or for the code of a construct
         * {@code parallel region at nested.c:53 (main.omp_outlined)} (with the frame's own line where it is
         * elsewhere: {@code (main.omp_outlined_debug__ at nested.c:60)}).
         */
        public String describe() {
            if (runtime) {
                return "[" + function + "]";
            }
            if (construct.isPresent()) {
                Construct of = construct.get();
                String here = source.filter(s -> !of.shortSource().equals(Optional.of(s))).map(s -> " at " + s).orElse("");
                return of.kind().words() + of.shortSource().map(s -> " at " + s).orElse("") + " (" + function + here + ")";
            }
            return function + source.map(s -> " (" + s + ")").orElse("");
        }
    }

    /**
     * Frames of a thread's stack by index, 0 the innermost (as gdb and DAP's stackTrace number them), both
     * ends included: one frame for a user step, the run for a folded runtime step.
     */
    public record FrameRange(int innermost, int outermost) {}

    /** The OpenMP construct whose code a frame runs, as the picture knows it. */
    public enum ConstructKind {
        PARALLEL("parallel region", "parallel"), TASK("task", "task");

        private final String words;
        private final String json;

        ConstructKind(String words, String json) {
            this.words = words;
            this.json = json;
        }

        /** For people: {@code parallel region}. */
        public String words() {
            return words;
        }

        /** For JSON: {@code parallel}, {@code task}. */
        public String json() {
            return json;
        }
    }

    /**
     * A frame's function is the code of a construct: a parallel region's outlined function (the region's
     * microtask, or an implicit task's function), an explicit task's code or its entry thunk; {@code code}
     * is where the picture found it (its source line is the construct's: the outlined function begins
     * at the pragma).
     */
    public record Construct(ConstructKind kind, CodeLocation code, boolean throughThunk) {
        /**
         * The construct's full path and line: where its code begins (the outlined function's first line, the
         * pragma's); for a task entered through clang's thunk the thunk's (the resolved code is the user's
         * function the task calls).
         */
        public Optional<String> source() {
            return throughThunk && code.entryPoint().isPresent() ? code.entrySource() : code.source();
        }

        /** {@code nested.c:53}, when debug information has the line. */
        public Optional<String> shortSource() {
            return source().map(full -> full.substring(full.lastIndexOf('/') + 1));
        }
    }

    /** A node of the merged tree: a step, the threads whose paths pass through it, the steps after it. */
    public record Node(Step step, List<OpenMpThread> threads, List<Node> children) {}

    private final OpenMpPicture picture;
    private final List<ThreadStack> stacks;
    private final List<Node> roots;

    private ParallelStacks(OpenMpPicture picture, List<ThreadStack> stacks) {
        this.picture = picture;
        this.stacks = stacks;
        this.roots = merge(stacks);
    }

    /** Unwinds every OpenMP thread of {@code picture} (the same stop) with {@code unwinder}. */
    public static ParallelStacks of(OpenMpPicture picture, AddressSpace space, Unwinder unwinder) {
        return of(picture, space.threads(), unwinder);
    }

    /**
     * The same, with the threads' registers as a debugger that holds the process gives them ({@code threads}:
     * LWP and registers by their {@code user_regs_struct} names).
     */
    public static ParallelStacks of(OpenMpPicture picture, List<TargetThread> threads, Unwinder unwinder) {
        Map<Long, TargetThread> byLwp = new LinkedHashMap<>();
        threads.forEach(t -> byLwp.putIfAbsent(t.lwp(), t));
        return of(picture, lwp -> Optional.ofNullable(byLwp.get(lwp)).map(unwinder::unwind));
    }

    /**
     * From stacks already unwound, by LWP (the same stop's): for a door that unwinds the threads while the
     * picture is being taken ({@link Unwinder#unwindAll()} beside {@link OpenMpPicture#take}).
     */
    public static ParallelStacks ofUnwound(OpenMpPicture picture, List<NativeStack> unwound) {
        Map<Long, NativeStack> byLwp = new LinkedHashMap<>();
        unwound.forEach(stack -> byLwp.putIfAbsent(stack.lwp(), stack));
        return of(picture, lwp -> Optional.ofNullable(byLwp.get(lwp)));
    }

    private static ParallelStacks of(OpenMpPicture picture, java.util.function.LongFunction<Optional<NativeStack>> stackOf) {
        Constructs constructs = constructs(picture);
        List<ThreadStack> stacks = new ArrayList<>();
        for (OpenMpThread thread : picture.threads()) {
            Optional<NativeStack> unwound = thread.lwp().isPresent() ? stackOf.apply(thread.lwp().getAsLong()) : Optional.empty();
            if (unwound.isEmpty()) {
                continue; // an OpenMP thread the target lists no OS thread for: nothing to unwind
            }
            NativeStack stack = unwound.get();
            long[] cfas = stack.frames().stream().mapToLong(f -> f.cfa().orElse(0L)).toArray();
            List<FrameOwnership.Mark> marks = FrameOwnership.mark(picture.stackChain(thread), cfas);
            List<Optional<Construct>> constructOfFrame = constructsOf(stack, constructs);
            ThreadWait wait = ThreadWait.of(picture, thread, Optional.of(new ThreadWait.StackOf(stack, marks, constructOfFrame)));
            stacks.add(new ThreadStack(thread, stack, marks, constructOfFrame,
                    steps(picture, thread, stack, marks, constructOfFrame, wait), wait));
        }
        return new ParallelStacks(picture, List.copyOf(stacks));
    }

    public List<ThreadStack> stacks() {
        return stacks;
    }

    /** The stop's picture these stacks belong to. */
    public OpenMpPicture picture() {
        return picture;
    }

    public List<Node> roots() {
        return roots;
    }

    private record Constructs(Map<Long, Construct> byEntry, Map<Long, Construct> calledByThunk) {}

    /**
     * The code of constructs by its address, from what the picture knows: each region's outlined function,
     * each implicit task's function (a region's code too), each explicit task's code and its entry point
     * (clang's {@code .omp_task_entry.} thunk). Never from a function's name: clang calls both a region's and
     * a task's code {@code .omp_outlined.}, gcc both {@code ._omp_fn.N}.
     */
    private static Constructs constructs(OpenMpPicture picture) {
        Map<Long, Construct> byAddress = new HashMap<>();
        Map<Long, Construct> calledByThunk = new HashMap<>();
        for (OpenMpPicture.ParallelRegion region : picture.regions()) {
            region.function().ifPresent(code -> byAddress.putIfAbsent(code.address(),
                    new Construct(ConstructKind.PARALLEL, code, false)));
        }
        for (Task task : picture.tasks().values()) {
            if (task.function().isEmpty()) {
                continue;
            }
            CodeLocation code = task.function().get();
            ConstructKind kind = switch (task.kind()) {
                case IMPLICIT -> ConstructKind.PARALLEL;
                case EXPLICIT -> ConstructKind.TASK;
                default -> null;
            };
            if (kind == null) {
                continue;
            }
            if (code.resolvedBy().equals(Optional.of(Resolution.TASK_ENTRY_CALLEE)) && code.entryPoint().isPresent()) {
                // Entered through clang's thunk, the entry point the runtime keeps: the thunk is the task's
                // code, and so is the function it calls (the user's, maybe called elsewhere too: only there).
                Construct construct = new Construct(kind, code, true);
                byAddress.putIfAbsent(code.entryPoint().get(), construct);
                calledByThunk.putIfAbsent(code.address(), construct);
            } else if (code.symbol().filter(FunctionNames::isTaskEntryThunk).isPresent()) {
                byAddress.putIfAbsent(code.address(), new Construct(kind, code, true)); // the task's code inlined
            } else {
                // (libomp's GOMP wrapper in front of gcc's code is the runtime's, folded with it)
                byAddress.putIfAbsent(code.address(), new Construct(kind, code, false));
            }
        }
        return new Constructs(byAddress, calledByThunk);
    }

    /**
     * The construct of each frame: a frame whose function begins at a construct's code; and the body clang
     * puts beside a region's outlined function at -O0 ({@code X.omp_outlined_debug__}, called by
     * {@code X.omp_outlined} alone, or inlined into it), which is the same construct's code.
     */
    private static List<Optional<Construct>> constructsOf(NativeStack stack, Constructs constructs) {
        List<NativeFrame> frames = stack.frames();
        List<Optional<Construct>> found = new ArrayList<>(frames.size());
        for (NativeFrame frame : frames) {
            found.add(frame.entry().isPresent() ? Optional.ofNullable(constructs.byEntry().get(frame.entry().getAsLong()))
                    : Optional.empty());
        }
        for (int i = frames.size() - 2; i >= 0; i--) {
            if (found.get(i).isPresent()) {
                continue;
            }
            int physicalCaller = i + 1;
            while (physicalCaller < frames.size() - 1 && frames.get(physicalCaller).inlined()) {
                physicalCaller++;
            }
            Optional<Construct> caller = found.get(physicalCaller);
            NativeFrame frame = frames.get(i);
            if (caller.isPresent() && caller.get().throughThunk()) {
                // the task's body inlined into clang's thunk (the thunk holds nothing else), or the user's
                // code the thunk calls
                Construct called = frame.entry().isPresent() ? constructs.calledByThunk().get(frame.entry().getAsLong()) : null;
                if ((frame.inlined() && i == physicalCaller - 1)
                        || (called != null && called.code().equals(caller.get().code()))) {
                    found.set(i, caller);
                }
            } else if (found.get(i + 1).isPresent() && isDebugBody(frame, frames.get(i + 1))) {
                found.set(i, found.get(i + 1));
            }
        }
        return List.copyOf(found);
    }

    /**
     * Whether {@code frame} is the body clang splits off a region's outlined function at -O0
     * ({@code X.omp_outlined_debug__}, called by {@code X.omp_outlined} alone), or inlined into it.
     */
    private static boolean isDebugBody(NativeFrame frame, NativeFrame caller) {
        if (frame.function().isEmpty() || caller.function().isEmpty()) {
            return false;
        }
        String callerName = withoutParameters(caller.function().get());
        return withoutParameters(frame.function().get()).equals(callerName + "_debug__");
    }

    /** {@code X.omp_outlined} of gdb's C++ spelling {@code X.omp_outlined(void) const}. */
    private static String withoutParameters(String function) {
        int open = function.indexOf('(');
        return open < 0 ? function : function.substring(0, open);
    }

    /** The thread's path, outermost first, runs of runtime frames folded. */
    private static List<Step> steps(OpenMpPicture picture, OpenMpThread thread, NativeStack stack,
                                    List<FrameOwnership.Mark> marks, List<Optional<Construct>> constructs,
                                    ThreadWait wait) {
        String runtime = picture.target().runtime();
        int currentFrame = ThreadWait.firstNonSystem(stack.frames());
        List<Step> steps = new ArrayList<>();
        List<NativeFrame> run = new ArrayList<>();
        for (int i = stack.frames().size() - 1; i >= 0; i--) {
            NativeFrame frame = stack.frames().get(i);
            boolean inRuntime = frame.module().map(runtime::equals).orElse(false);
            if (inRuntime) {
                run.add(frame);
                continue;
            }
            if (!run.isEmpty()) {
                steps.add(runtimeStep(picture, thread, run, marks.get(i + 1), new FrameRange(i + 1, i + run.size()),
                        wait.runAt(i + 1, currentFrame)));
                run.clear();
            }
            String function = frame.function().orElse(frame.symbol().orElse(Text.hex(frame.pc())));
            if (constructs.get(i).isPresent() && dev.jompd.core.target.Demangler.isMangled(function)) {
                // a construct's code by its demangled name, as the region list has it (gdb's backtrace spells
                // clang's clones mangled, with parameters, where their DWARF name is mangled:
                // _ZL4workR6DomainPd.omp_outlined(void) const; without debug information the frame already has
                // the symbol's demangled name, work(Domain&, double*) [clone .omp_outlined], as gdb has it)
                function = picture.displayName(withoutParameters(function));
            }
            steps.add(new Step(function,
                    frame.source().map(s -> s.fileName() + ":" + s.line()), frame.module(), false,
                    marks.get(i).task().map(Task::id), constructs.get(i), Optional.of(new FrameRange(i, i))));
        }
        if (!run.isEmpty()) {
            steps.add(runtimeStep(picture, thread, run, marks.getFirst(), new FrameRange(0, run.size() - 1),
                    wait.runAt(0, currentFrame)));
        }
        stack.truncation().ifPresent(t -> steps.add(new Step("stack cut short: " + t.reason().name().toLowerCase(
                java.util.Locale.ROOT).replace('_', ' '), Optional.empty(), Optional.empty(), true, Optional.empty())));
        return steps;
    }

    /**
     * A run of the runtime's frames (outermost first) as what it does: the wait the thread's {@link ThreadWait}
     * reads there (the same words as the diagnosis), else libomp running the program's code.
     */
    private static Step runtimeStep(OpenMpPicture picture, OpenMpThread thread, List<NativeFrame> run,
                                    FrameOwnership.Mark innermostMark, FrameRange frames, Optional<ThreadWait.Kind> wait) {
        String innermost = run.getLast().function().orElse("");
        List<String> all = ThreadWait.functions(run);
        boolean runsTask = RuntimeFunctions.any(all, Meaning.INVOKE_TASK) && frames.innermost() > 0;
        String meaning = wait.map(kind -> switch (kind) {
            case IDLE -> idle(picture, thread);
            case LOCK, CRITICAL, ORDERED -> kind.words();
            default -> (runsTask ? "" : "waiting ") + kind.words() + (runsTask ? ", running a task from it" : "");
        }).orElseGet(() -> ThreadWait.runtimeRun(run.reversed()) == ThreadWait.Kind.IDLE ? idle(picture, thread)
                : runsCodeOrIn(all, innermost));
        return new Step("libomp: " + meaning + " (" + run.size() + " frame" + (run.size() == 1 ? "" : "s") + ")",
                Optional.empty(), run.getFirst().module(), true, innermostMark.task().map(Task::id), Optional.empty(),
                Optional.of(frames));
    }

    /**
     * A worker in libomp's fork barrier: idle in the pool, or — its region still running (the primary thread has
     * not left it) — done with the region's code and arrived at its implicit barrier (a worker passes that barrier
     * with its arrival and waits in the fork barrier), as the diagnosis counts it.
     */
    private static String idle(OpenMpPicture picture, OpenMpThread thread) {
        Optional<OpenMpPicture.ParallelRegion> live = thread.region().flatMap(picture::region)
                .filter(r -> r.level() > 0 && r.teamSize() > 1 && !r.ended());
        return live.map(r -> "done with the code of region " + r.id() + ", at its implicit barrier (the fork barrier)")
                .orElse("idle in the thread pool, waiting for work");
    }

    /** A run that calls the program's code (a region's, a task's) or starts a worker runs the code below it. */
    private static String runsCodeOrIn(List<String> all, String innermost) {
        return RuntimeFunctions.any(all, Meaning.INVOKE) || RuntimeFunctions.any(all, Meaning.FORK_CALL)
                || RuntimeFunctions.any(all, Meaning.THREAD_LAUNCH)
                ? "runs the OpenMP code below" : "in " + innermost;
    }

    static List<Node> merge(List<ThreadStack> stacks) {
        record Building(Step step, List<OpenMpThread> threads, Map<String, Building> children) {}
        Map<String, Building> roots = new LinkedHashMap<>();
        for (ThreadStack stack : stacks) {
            Map<String, Building> level = roots;
            for (Step step : stack.steps()) {
                Building node = level.computeIfAbsent(step.key(), k -> new Building(step, new ArrayList<>(),
                        new LinkedHashMap<>()));
                node.threads().add(stack.thread());
                level = node.children();
            }
        }
        java.util.function.Function<Building, Node> freeze = new java.util.function.Function<>() {
            @Override
            public Node apply(Building building) {
                return new Node(building.step(), List.copyOf(building.threads()),
                        building.children().values().stream().map(this).toList());
            }
        };
        return roots.values().stream().map(freeze).toList();
    }

}
