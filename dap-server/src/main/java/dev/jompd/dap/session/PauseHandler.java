package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.util.List;

/** pause: interrupts the running program; its stop is told as a pause. Stopped already: nothing to do. */
final class PauseHandler implements RequestHandler {
    @Override
    public List<String> commands() {
        return List.of("pause");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        Debuggee debuggee = session.startedDebuggee("pause");
        debuggee.requireRunControl("pause");
        debuggee.pause();
        return null;
    }
}
