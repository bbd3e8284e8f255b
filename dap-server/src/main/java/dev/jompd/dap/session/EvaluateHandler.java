package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbCommandException;
import dev.jompd.dap.gdb.GdbResult;
import dev.jompd.dap.gdb.GdbVariable;
import org.eclipse.lsp4j.debug.EvaluateResponse;
import org.eclipse.lsp4j.debug.Variable;

import java.util.List;
import java.util.Optional;

/**
 * evaluate: an expression in a frame (hover, watch, REPL), and in the REPL also gdb commands and
 * {@code ompd} commands. Every failure is an {@link ErrorId#EVALUATION_FAILED} error (or another quiet id):
 * VS Code then shows the message where it was asked (the REPL's line, the watch's value) or nothing
 * (a hover), never a notification.
 */
final class EvaluateHandler implements RequestHandler {
    record EvaluateArguments(String expression, String context, Optional<Integer> frameId) {
        static EvaluateArguments from(JsonObject args) {
            return new EvaluateArguments(Arguments.optionalString(args, "expression").orElseThrow(() ->
                    Arguments.invalid("evaluate: expression is required")),
                    Arguments.optionalString(args, "context").orElse("repl"), Arguments.optionalInteger(args, "frameId"));
        }

        boolean inRepl() {
            return context.equals("repl");
        }
    }

    private final OmpdCommands ompdCommands = new OmpdCommands();

    @Override
    public List<String> commands() {
        return List.of("evaluate");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        Debuggee debuggee = session.startedDebuggee("evaluate");
        EvaluateArguments args = EvaluateArguments.from(arguments);
        Optional<StopState.FrameRef> frame = args.frameId().map(id -> session.frame(debuggee, id, "evaluate"));
        EvaluateResponse response = new EvaluateResponse();
        String trimmed = args.expression().strip();
        if (args.inRepl() && (trimmed.equals("ompd") || trimmed.startsWith("ompd "))) {
            debuggee.requireStopped("ompd");
            response.setResult(ompdCommands.run(trimmed.substring(4).strip(), debuggee, frame));
            return DapSession.GSON.toJsonTree(response);
        }
        if (args.inRepl() && (trimmed.startsWith("-exec ") || trimmed.startsWith("`"))) {
            response.setResult(consoleAnswer(session, debuggee, trimmed.startsWith("`") ? trimmed.substring(1) : trimmed.substring(6)));
            return DapSession.GSON.toJsonTree(response);
        }
        if (debuggee.isRunning()) {
            if (args.inRepl()) {
                response.setResult(consoleAnswer(session, debuggee, trimmed));
                return DapSession.GSON.toJsonTree(response);
            }
            throw new DapException(ErrorId.NOT_STOPPED, "evaluate: the program is running (pause it first)");
        }
        int thread = frame.map(StopState.FrameRef::thread).orElseGet(() -> debuggee.threads().isEmpty() ? 1
                : debuggee.threads().getFirst().id());
        int level = frame.map(StopState.FrameRef::level).orElse(0);
        try {
            GdbVariable value = debuggee.debugger().createVarobj(thread, level, args.expression());
            Variable variable = GdbVariables.varobj(session, debuggee, value, args.expression(), args.expression());
            response.setResult(variable.getValue());
            response.setType(variable.getType());
            response.setVariablesReference(variable.getVariablesReference());
        } catch (GdbCommandException varobjFailed) {
            // -var-create only says "unable to create variable object": ask again for gdb's real reason
            GdbCommandException e;
            try {
                response.setResult(debuggee.debugger().evaluate(thread, level, args.expression()));
                return DapSession.GSON.toJsonTree(response);
            } catch (GdbCommandException evaluationFailed) {
                e = evaluationFailed;
            }
            if (!args.inRepl()) {
                throw new DapException(ErrorId.EVALUATION_FAILED, e.gdbMessage(), e);
            }
            // the REPL also takes gdb commands: "info threads", "print x", "break foo"
            try {
                response.setResult(console(session, debuggee, trimmed));
            } catch (GdbCommandException commandFailed) {
                throw new DapException(ErrorId.EVALUATION_FAILED,
                        trimmed.contains(" ") ? commandFailed.gdbMessage() : e.gdbMessage(), commandFailed);
            }
        }
        return DapSession.GSON.toJsonTree(response);
    }

    /** A gdb command typed in the REPL; its failure is the REPL's answer, not a notification. */
    private static String consoleAnswer(DapSession session, Debuggee debuggee, String command) {
        try {
            return console(session, debuggee, command);
        } catch (GdbCommandException e) {
            throw new DapException(ErrorId.EVALUATION_FAILED, "gdb: " + e.gdbMessage(), e);
        }
    }

    private static String console(DapSession session, Debuggee debuggee, String command) {
        session.setReplActive(true);
        try {
            boolean wasRunning = debuggee.isRunning();
            GdbResult result = debuggee.debugger().console(command);
            // (after the program ended, "run" starts a program this session no longer follows: no news)
            if (result.resultClass().equals("running") && !wasRunning && !debuggee.runState().isOver()) {
                // resumed by a gdb command typed in the console: the client learns it from a continued event
                debuggee.resuming(RunState.RUNNING);
                session.continued(debuggee.lastStopThread());
            }
            return result.console().stripTrailing();
        } finally {
            session.setReplActive(false);
        }
    }
}
