package dev.jompd.report;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.unwind.NativeFrame;
import dev.jompd.core.unwind.NativeStack;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.Task;

import java.util.ArrayList;
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
    /** One thread's stack, its frames' owners, and the runs of runtime frames folded. */
    public record ThreadStack(OpenMpThread thread, NativeStack stack, List<FrameOwnership.Mark> marks,
                              List<Step> steps) {}

    /**
     * One step of a call path as the merged tree shows it: a frame of user or library code, or a folded run
     * of the runtime's frames ({@code runtime} true, {@code function} saying what they do).
     */
    public record Step(String function, Optional<String> source, Optional<String> module, boolean runtime,
                       Optional<String> task) {
        /** What merges: the function and, for user code, its module. */
        String key() {
            return (runtime ? "libomp:" : "") + function + "@" + module.orElse("");
        }

        String describe() {
            return runtime ? "[" + function + "]" : function + source.map(s -> " (" + s + ")").orElse("");
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
        List<ThreadStack> stacks = new ArrayList<>();
        for (OpenMpThread thread : picture.threads()) {
            if (thread.lwp().isEmpty() || !byLwp.containsKey(thread.lwp().getAsLong())) {
                continue; // an OpenMP thread the target lists no OS thread for: nothing to unwind
            }
            NativeStack stack = unwinder.unwind(byLwp.get(thread.lwp().getAsLong()));
            long[] cfas = stack.frames().stream().mapToLong(f -> f.cfa().orElse(0L)).toArray();
            List<FrameOwnership.Mark> marks = FrameOwnership.mark(picture.stackChain(thread), cfas);
            stacks.add(new ThreadStack(thread, stack, marks, steps(picture, thread, stack, marks)));
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

    /** The thread's path, outermost first, runs of runtime frames folded. */
    private static List<Step> steps(OpenMpPicture picture, OpenMpThread thread, NativeStack stack,
                                    List<FrameOwnership.Mark> marks) {
        String runtime = picture.target().runtime();
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
                steps.add(runtimeStep(picture, thread, run, marks.get(i + 1)));
                run.clear();
            }
            steps.add(new Step(frame.function().orElse(frame.symbol().orElse(Text.hex(frame.pc()))),
                    frame.source().map(s -> s.fileName() + ":" + s.line()), frame.module(), false,
                    marks.get(i).task().map(Task::id)));
        }
        if (!run.isEmpty()) {
            steps.add(runtimeStep(picture, thread, run, marks.getFirst()));
        }
        stack.truncation().ifPresent(t -> steps.add(new Step("stack cut short: " + t.reason().name().toLowerCase(
                java.util.Locale.ROOT).replace('_', ' '), Optional.empty(), Optional.empty(), true, Optional.empty())));
        return steps;
    }

    /** A run of the runtime's frames (outermost first) as what it does, read off the functions it is in. */
    private static Step runtimeStep(OpenMpPicture picture, OpenMpThread thread, List<NativeFrame> run,
                                    FrameOwnership.Mark innermostMark) {
        String innermost = run.getLast().function().orElse("");
        String all = String.join(" ", run.stream().map(f -> f.function().orElse("")).toList());
        String region = thread.region().map(r -> " of region " + r).orElse("");
        String meaning;
        if (all.contains("__kmp_fork_barrier") && !all.contains("__kmp_invoke")) {
            meaning = "idle in the thread pool, waiting for work";
        } else if (all.contains("__kmp_join_barrier")) {
            meaning = "waiting at the implicit barrier at the end" + region;
        } else if (all.contains("barrier") && !innermost.contains("invoke") && !innermost.contains("fork_call")) {
            meaning = "waiting at a barrier" + region;
        } else if (all.contains("critical")) {
            meaning = "waiting to enter a critical section";
        } else if (all.contains("acquire") && all.contains("lock")) {
            meaning = "waiting for a lock";
        } else if (all.contains("taskwait")) {
            meaning = "waiting at a taskwait";
        } else if (all.contains("__kmpc_end_taskgroup")) {
            meaning = "waiting at the end of a taskgroup";
        } else if (all.contains("__kmp_invoke_microtask") || all.contains("__kmp_invoke_task")
                || all.contains("fork_call") || all.contains("__kmp_launch")) {
            meaning = "runs the OpenMP code below";
        } else {
            meaning = "in " + innermost;
        }
        return new Step("libomp: " + meaning + " (" + run.size() + " frame" + (run.size() == 1 ? "" : "s") + ")",
                Optional.empty(), run.getFirst().module(), true, innermostMark.task().map(Task::id));
    }

    private static List<Node> merge(List<ThreadStack> stacks) {
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

    /** The merged tree as text: each node with its thread count, the threads named where paths part. */
    public String text() {
        StringBuilder out = new StringBuilder();
        out.append("Parallel stacks: ").append(stacks.size()).append(" OpenMP threads\n");
        for (Node root : roots) {
            text(root, 1, out);
        }
        for (ThreadStack stack : stacks) {
            stack.stack().truncation().ifPresent(t -> out.append("  note: ").append(stack.thread().name())
                    .append(": stack cut short, ").append(t).append('\n'));
        }
        return out.toString();
    }

    private void text(Node node, int depth, StringBuilder out) {
        // A chain of nodes all threads pass through prints one line each; where paths part, the count
        // and, at the ends, who they are.
        out.append("  ".repeat(depth)).append(node.threads().size()).append("× ").append(node.step().describe());
        if (node.children().isEmpty() || node.children().size() > 1 || node.children().getFirst().threads().size()
                != node.threads().size()) {
            out.append("   ").append(who(node.threads()));
        }
        out.append('\n');
        int childDepth = node.children().size() == 1 && node.children().getFirst().threads().size() == node.threads().size()
                ? depth : depth + 1;
        for (Node child : node.children()) {
            text(child, childDepth, out);
        }
    }

    private String who(List<OpenMpThread> threads) {
        if (threads.size() == 1) {
            return "[" + threads.getFirst().name() + "]";
        }
        List<String> states = threads.stream().filter(OpenMpThread::stateKnown).map(t -> Text.shortState(t.state()))
                .distinct().toList();
        return "[gtids " + Text.ranges(threads.stream().map(OpenMpThread::gtid).sorted().toList())
                + (states.size() == 1 ? ", all " + states.getFirst() : "") + "]";
    }

    /** The stacks as JSON: each thread's frames (with their task) and the merged tree. */
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        JsonArray threads = new JsonArray();
        for (ThreadStack stack : stacks) {
            JsonObject thread = new JsonObject();
            thread.addProperty("gtid", stack.thread().gtid());
            JsonArray frames = new JsonArray();
            for (int i = 0; i < stack.stack().frames().size(); i++) {
                NativeFrame frame = stack.stack().frames().get(i);
                JsonObject f = new JsonObject();
                f.addProperty("pc", Text.hex(frame.pc()));
                frame.function().ifPresent(name -> f.addProperty("function", name));
                frame.source().ifPresent(s -> f.addProperty("source", s.file() + ":" + s.line()));
                frame.module().ifPresent(m -> f.addProperty("module", m));
                if (frame.inlined()) {
                    f.addProperty("inlined", true);
                }
                FrameOwnership.Mark mark = stack.marks().get(i);
                f.addProperty("owner", mark.owner().name().toLowerCase(java.util.Locale.ROOT));
                mark.task().ifPresent(task -> f.addProperty("task", task.id()));
                frames.add(f);
            }
            thread.add("frames", frames);
            stack.stack().truncation().ifPresent(t -> thread.addProperty("truncated", t.toString()));
            threads.add(thread);
        }
        json.add("threads", threads);
        JsonArray tree = new JsonArray();
        roots.forEach(root -> tree.add(node(root)));
        json.add("tree", tree);
        return json;
    }

    private static JsonObject node(Node node) {
        JsonObject json = new JsonObject();
        json.addProperty("step", node.step().describe());
        json.addProperty("runtime", node.step().runtime());
        JsonArray gtids = new JsonArray();
        node.threads().forEach(t -> gtids.add(t.gtid()));
        json.add("gtids", gtids);
        JsonArray children = new JsonArray();
        node.children().forEach(child -> children.add(node(child)));
        json.add("children", children);
        return json;
    }
}
