package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbCommandException;

import java.util.List;

/**
 * disconnect (the session ends: a launched program is killed, an attached one let go, unless the client
 * says otherwise) and terminate (the program is killed, the session stays until its terminated event).
 */
final class DisconnectHandler implements RequestHandler {
    record DisconnectArguments(java.util.Optional<Boolean> terminateDebuggee) {
        static DisconnectArguments from(JsonObject args) {
            return new DisconnectArguments(Arguments.optionalBoolean(args, "terminateDebuggee"));
        }
    }

    @Override
    public List<String> commands() {
        return List.of("disconnect", "terminate");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        return command.equals("disconnect") ? disconnect(DisconnectArguments.from(arguments), session) : terminate(session);
    }

    private static JsonElement disconnect(DisconnectArguments args, DapSession session) {
        Debuggee debuggee = session.debuggee();
        if (debuggee != null && session.phase() != DapSession.Phase.ENDED) {
            debuggee.end(args.terminateDebuggee().orElse(debuggee.config().kind() == LaunchConfig.Kind.LAUNCH));
        }
        session.endSession();
        return null;
    }

    private static JsonElement terminate(DapSession session) {
        Debuggee debuggee = session.startedDebuggee("terminate");
        if (debuggee.isCore() || debuggee.runState().isOver()) {
            session.afterResponse(session::terminated);
            return null;
        }
        debuggee.pause();
        session.afterResponse(() -> {
            try {
                debuggee.debugger().kill();
            } catch (GdbCommandException e) {
                session.log("terminate: " + e.gdbMessage());
            }
        });
        return null;
    }
}
