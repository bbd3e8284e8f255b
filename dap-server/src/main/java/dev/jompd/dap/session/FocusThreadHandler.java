package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.util.List;

/**
 * jompd/focusThread {threadId}: makes the client select that thread. DAP has no request for it and VS Code's
 * extension API cannot set the focused thread ({@code vscode.debug.activeStackItem} is read-only in 1.96);
 * what does make VS Code focus a thread is a {@code stopped} event naming it. So the server tells the
 * current stop again for that thread, without {@code preserveFocusHint}: the program does not move, the
 * stop's handles stay valid, and no {@code jompd/openmpChanged} follows (the OpenMP picture did not change).
 * <p>
 * For the thread that stopped, the stop's own report is told. Any other thread stopped only because the
 * program did (all-stop): it is told as {@code pause}, described as "Paused" (the label VS Code gave it
 * before; "Paused on pause" otherwise), no breakpoint hit: the breakpoint was not that thread's. The reason
 * matters to the focus, not just to the label: for a breakpoint or step reason VS Code (1.96
 * Thread.getTopStackFrame) focuses the top frame even when it is de-emphasized — a waiting thread's libc
 * frame, the only frame VS Code has fetched then — and focuses the top again once the rest of the stack has
 * arrived, a second focus no client can see happen and which can undo a move the client made meanwhile.
 * For {@code pause} it focuses the first frame it does not de-emphasize, once, after the whole stack arrived.
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
        Debuggee.StopReport again = told != null && told.threadId() == threadId ? told
                : new Debuggee.StopReport("pause", "Paused", threadId, List.of());
        session.afterResponse(() -> session.stoppedAgain(again));
        return null;
    }
}
