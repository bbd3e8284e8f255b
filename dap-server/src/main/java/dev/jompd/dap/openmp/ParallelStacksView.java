package dev.jompd.dap.openmp;

import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.JsonReport;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.ParallelStacks.ThreadStack;
import dev.jompd.report.Text;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The answer of {@code jompd/parallelStacks}: a stop's parallel stacks and diagnosis as a client draws them.
 * It only renders what the report module made of the stop: {@code stacks} is the command line's JSON
 * ({@code jompd inspect --stacks --json}: every thread's frames and the merged tree), {@code diagnosis} the
 * findings of {@code jompd diagnose --json}; {@code threads} adds what the command line cannot know — each
 * OpenMP thread's DAP thread id — and, for every step of the thread's path (the tree's depth), the index of
 * the frame it stands for (the step's own frame range, as the report built it), numbered as gdb and DAP's
 * stackTrace number them (0 = innermost), so that a click on a node can select that thread and frame.
 */
public final class ParallelStacksView {
    private ParallelStacksView() {}

    /**
     * @param dapThreadByLwp the DAP thread id of each OS thread gdb lists
     * @param stoppedThread  the DAP thread id of the thread the stop happened in
     * @param stop           the stop's generation (as {@code jompd/openmpChanged} numbers it)
     */
    public static JsonObject toJson(ParallelStacks stacks, List<Diagnosis.Finding> findings,
                                    Map<Long, Integer> dapThreadByLwp, int stoppedThread, int stop) {
        JsonObject body = new JsonObject();
        body.addProperty("stop", stop);
        body.addProperty("threadId", stoppedThread);
        body.add("stacks", JsonReport.stacks(stacks));
        JsonArray threads = new JsonArray();
        for (ThreadStack stack : stacks.stacks()) {
            threads.add(thread(stack, dapThreadByLwp));
        }
        body.add("threads", threads);
        body.add("diagnosis", JsonReport.findings(findings));
        JsonArray notices = new JsonArray();
        stacks.picture().notices().forEach(notices::add);
        body.add("notices", notices);
        return body;
    }

    private static JsonObject thread(ThreadStack stack, Map<Long, Integer> dapThreadByLwp) {
        OpenMpThread thread = stack.thread();
        JsonObject json = new JsonObject();
        json.addProperty("gtid", thread.gtid());
        Optional.ofNullable(thread.lwp().isPresent() ? dapThreadByLwp.get(thread.lwp().getAsLong()) : null)
                .ifPresent(id -> json.addProperty("threadId", id));
        json.addProperty("name", thread.name());
        json.addProperty("threadNum", thread.threadNum());
        // "not tracked" (the answer's notices say why, once) or an undefined code: never a gap the panel must guess at
        json.addProperty("state", thread.stateKnown() ? Text.shortState(thread.state().get()) : Text.stateName(thread));
        thread.region().ifPresent(region -> json.addProperty("region", region));
        JsonArray path = new JsonArray();
        thread.teamPath().forEach(path::add);
        json.add("teamPath", path);
        JsonArray steps = new JsonArray();
        stepFrames(stack).forEach(index -> steps.add(index < 0 ? JsonNull.INSTANCE : new JsonPrimitive(index)));
        json.add("stepFrames", steps);
        return json;
    }

    /**
     * For each step of the thread's path (outermost first), the index of its innermost frame (0 = the
     * thread's innermost frame), as the step was built from the frames; -1 for a step that is no frame (the
     * note of a stack cut short).
     */
    public static List<Integer> stepFrames(ThreadStack stack) {
        return stack.steps().stream().map(step -> step.frames().map(ParallelStacks.FrameRange::innermost).orElse(-1))
                .toList();
    }
}
