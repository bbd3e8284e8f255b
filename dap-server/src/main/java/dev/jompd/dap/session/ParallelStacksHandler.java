package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.openmp.ParallelStacksView;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.ParallelStacks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * jompd/parallelStacks: the stop's parallel stacks (the command line's {@code stacks} JSON), its diagnosis,
 * and each OpenMP thread's DAP thread id and the frame index of each step of its path
 * ({@link ParallelStacksView}). Without a stop, the same {@code {stop: null, state, reason}} answer as
 * jompd/openmpTree; at a stop without OpenMP picture a quiet {@link ErrorId#OPENMP_UNAVAILABLE} error.
 */
final class ParallelStacksHandler implements RequestHandler {
    @Override
    public List<String> commands() {
        return List.of(RequestHandlers.PARALLEL_STACKS_REQUEST);
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        if (session.phase() != DapSession.Phase.STARTED || !session.debuggee().runState().equals(RunState.STOPPED)) {
            return OpenMpTreeHandler.noStop(session);
        }
        Debuggee debuggee = session.debuggee();
        ParallelStacks stacks = debuggee.parallelStacks().orElseThrow(() ->
                new DapException(ErrorId.OPENMP_UNAVAILABLE, debuggee.openMpProblem()));
        Map<Long, Integer> dapThreads = new HashMap<>();
        for (GdbThread thread : debuggee.threads()) {
            thread.lwp().ifPresent(lwp -> dapThreads.putIfAbsent(lwp, thread.id()));
        }
        List<Diagnosis.Finding> findings = Diagnosis.of(stacks.picture(), Optional.of(stacks));
        return ParallelStacksView.toJson(stacks, findings, dapThreads, debuggee.lastStopThread(), debuggee.stop().generation);
    }
}
