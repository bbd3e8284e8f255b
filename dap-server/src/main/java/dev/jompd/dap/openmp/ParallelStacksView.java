package dev.jompd.dap.openmp;

import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.core.unwind.NativeFrame;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.JsonReport;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.ParallelStacks.Step;
import dev.jompd.report.ParallelStacks.ThreadStack;
import dev.jompd.report.Text;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The answer of {@code jompd/parallelStacks}: a stop's parallel stacks and diagnosis as a client draws them.
 * It only renders what the report module made of the stop: {@code stacks} is the command line's JSON
 * ({@code jompd inspect --stacks --json}: every thread's frames and the merged tree), {@code diagnosis} the
 * findings of {@code jompd diagnose --json}; {@code threads} adds what the command line cannot know — each
 * OpenMP thread's DAP thread id — and, for every step of the thread's path (the tree's depth), the index of
 * the frame it stands for, numbered as gdb and DAP's stackTrace number them (0 = innermost), so that a click
 * on a node can select that thread and frame in the client.
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
        body.add("stacks", stacks.toJson());
        JsonArray threads = new JsonArray();
        for (ThreadStack stack : stacks.stacks()) {
            threads.add(thread(stack, dapThreadByLwp));
        }
        body.add("threads", threads);
        body.add("diagnosis", JsonParser.parseString(JsonReport.diagnosis(findings)).getAsJsonObject().get("findings"));
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
        if (thread.stateKnown()) {
            json.addProperty("state", Text.shortState(thread.state().get()));
        }
        thread.region().ifPresent(region -> json.addProperty("region", region));
        JsonArray path = new JsonArray();
        thread.teamPath().forEach(path::add);
        json.add("teamPath", path);
        Optional<List<Integer>> frames = stepFrames(stack);
        if (frames.isPresent()) {
            JsonArray steps = new JsonArray();
            frames.get().forEach(index -> steps.add(index < 0 ? JsonNull.INSTANCE : new com.google.gson.JsonPrimitive(index)));
            json.add("stepFrames", steps);
        } else {
            json.addProperty("stepFramesUnknown", "the thread's path does not match its frames");
        }
        return json;
    }

    /**
     * For each step of the thread's path (outermost first), the index of its innermost frame (0 = the
     * thread's innermost frame), -1 for a step that is no frame (the note of a stack cut short). A user step
     * is one frame; a folded runtime step is the run of frames of its module. Empty when the steps do not
     * account for the frames exactly (then no frame is claimed rather than a wrong one).
     */
    public static Optional<List<Integer>> stepFrames(ThreadStack stack) {
        List<NativeFrame> frames = stack.stack().frames();
        int next = frames.size() - 1;
        List<Integer> indices = new ArrayList<>();
        for (Step step : stack.steps()) {
            if (!step.runtime()) {
                if (next < 0) {
                    return Optional.empty();
                }
                indices.add(next--);
            } else if (step.module().isEmpty() && step.source().isEmpty()) {
                indices.add(-1);
            } else {
                int first = next;
                while (next >= 0 && frames.get(next).module().equals(step.module())) {
                    next--;
                }
                if (next == first) {
                    return Optional.empty();
                }
                indices.add(next + 1);
            }
        }
        return next == -1 ? Optional.of(List.copyOf(indices)) : Optional.empty();
    }
}
