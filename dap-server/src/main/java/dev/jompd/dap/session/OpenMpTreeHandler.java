package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import dev.jompd.dap.openmp.OpenMpView;

import java.util.List;
import java.util.Locale;

/**
 * jompd/openmpTree: the whole OpenMP picture of the current stop (jompd-inspect/1 JSON). When there is no
 * stop (not started, running, exited) the answer is not an error but {@code {"stop": null, "state": …,
 * "reason": …}}, so that a client asking at session start or while running shows nothing alarming. At a
 * stop without an OpenMP picture (libomp not loaded or not initialised yet) it is a quiet
 * {@link ErrorId#OPENMP_UNAVAILABLE} error saying why.
 */
final class OpenMpTreeHandler implements RequestHandler {
    @Override
    public List<String> commands() {
        return List.of(RequestHandlers.OPENMP_TREE_REQUEST);
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        if (session.phase() != DapSession.Phase.STARTED || !session.debuggee().runState().equals(RunState.STOPPED)) {
            return noStop(session);
        }
        Debuggee debuggee = session.debuggee();
        return debuggee.openMp().map(OpenMpView::tree).orElseThrow(() ->
                new DapException(ErrorId.OPENMP_UNAVAILABLE, debuggee.openMpProblem()));
    }

    /** The answer of a request about the stop when there is none: {@code {stop: null, state, reason}}. */
    static JsonObject noStop(DapSession session) {
        RunState state = session.debuggee() == null ? RunState.NOT_STARTED : session.debuggee().runState();
        JsonObject body = new JsonObject();
        body.add("stop", JsonNull.INSTANCE);
        body.addProperty("state", state.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        body.addProperty("reason", switch (state) {
            case NOT_STARTED -> session.phase() == DapSession.Phase.ENDED ? "the session has ended"
                    : "the program has not started yet";
            case RUNNING, STEPPING, PAUSING -> "the program is running";
            case EXITED -> "the program has exited";
            case DISCONNECTING, TERMINATED -> "the program has ended";
            case STOPPED -> "the session has ended";
        });
        return body;
    }
}
