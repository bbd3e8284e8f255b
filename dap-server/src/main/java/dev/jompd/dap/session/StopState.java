package dev.jompd.dap.session;

import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.openmp.OpenMpTarget;
import dev.jompd.dap.openmp.OpenMpView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a session knows about one stop of the program: the thread list, the frame and variable handles
 * handed to the client, the gdb variable objects created, the OpenMP picture. All of it is dropped when
 * the program resumes; handles of an older stop then answer "stale".
 */
final class StopState {
    /** A frame handle: a thread and a level. */
    record FrameRef(int thread, int level) {}

    /** What a variables reference expands to. */
    sealed interface VariablesRef permits Locals, Children, OpenMpRows {}

    record Locals(int thread, int level) implements VariablesRef {}

    record Children(String varobj) implements VariablesRef {}

    record OpenMpRows(List<dev.jompd.dap.openmp.OmpVariable> rows) implements VariablesRef {}

    final int generation;
    List<GdbThread> threads;
    /** -thread-info, asked as soon as the stop was seen (answers while the client reads the stopped event). */
    java.util.concurrent.CompletableFuture<dev.jompd.dap.gdb.GdbResult> threadsAnswer;
    final Map<Integer, FrameRef> frames = new HashMap<>();
    final Map<Integer, VariablesRef> variables = new HashMap<>();
    final List<String> varobjs = new ArrayList<>();
    /** This stop's parallel stacks, unwound at the first request that needs them. */
    dev.jompd.report.ParallelStacks stacks;
    /** How this stop was told to the client (its reason, to tell it again when the client focuses a thread). */
    Debuggee.StopReport report;
    private OpenMpView view;
    private OpenMpTarget.UnavailableException viewProblem;

    StopState(int generation) {
        this.generation = generation;
    }

    Optional<OpenMpView> cachedView() {
        return Optional.ofNullable(view);
    }

    OpenMpTarget.UnavailableException cachedProblem() {
        return viewProblem;
    }

    void rememberView(OpenMpView view) {
        this.view = view;
    }

    void rememberProblem(OpenMpTarget.UnavailableException problem) {
        this.viewProblem = problem;
    }
}
