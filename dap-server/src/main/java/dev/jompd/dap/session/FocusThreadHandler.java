package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.util.List;

/**
 * jompd/focusThread {threadId}: makes the client select that thread. DAP has no request for it and VS Code's
 * extension API cannot set the focused thread ({@code vscode.debug.activeStackItem} is read-only in 1.96);
 * what does make VS Code focus a thread is a {@code stopped} event naming it. So the server tells the
 * current stop again, with its own reason and description, for that thread and without
 * {@code preserveFocusHint}: the program does not move, the stop's handles stay valid, and no
 * {@code jompd/openmpChanged} follows (the OpenMP picture did not change).
 */
final class FocusThreadHandler implements RequestHandler {
    @Override
    public List<String> commands() {
        return List.of(RequestHandlers.FOCUS_THREAD_REQUEST);
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        Debuggee debuggee = session.stoppedDebuggee(command);
        int threadId = Arguments.integer(arguments, "threadId");
        if (debuggee.threads().stream().noneMatch(thread -> thread.id() == threadId)) {
            throw new DapException(ErrorId.STALE_HANDLE, command + ": no thread " + threadId);
        }
        Debuggee.StopReport told = debuggee.stop().report;
        Debuggee.StopReport again = told == null ? new Debuggee.StopReport("pause", null, threadId, List.of())
                : new Debuggee.StopReport(told.reason(), told.description(), threadId, told.hitBreakpoints());
        session.afterResponse(() -> session.stoppedAgain(again));
        return null;
    }
}
