package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import org.eclipse.lsp4j.debug.Capabilities;

import java.util.List;

/** initialize: the client's line/column base in, this server's capabilities out, then the initialized event. */
final class InitializeHandler implements RequestHandler {
    record InitializeArguments(boolean linesStartAt1, boolean columnsStartAt1) {
        static InitializeArguments from(JsonObject args) {
            return new InitializeArguments(Arguments.optionalBoolean(args, "linesStartAt1").orElse(true),
                    Arguments.optionalBoolean(args, "columnsStartAt1").orElse(true));
        }
    }

    @Override
    public List<String> commands() {
        return List.of("initialize");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        if (session.phase() != DapSession.Phase.NEW) {
            throw new DapException(ErrorId.OUT_OF_ORDER, "initialize: already initialized");
        }
        InitializeArguments args = InitializeArguments.from(arguments);
        Capabilities capabilities = new Capabilities();
        capabilities.setSupportsConfigurationDoneRequest(true);
        capabilities.setSupportsFunctionBreakpoints(true);
        capabilities.setSupportsConditionalBreakpoints(true);
        capabilities.setSupportsHitConditionalBreakpoints(true);
        capabilities.setSupportsEvaluateForHovers(true);
        capabilities.setSupportsDelayedStackTraceLoading(true);
        capabilities.setSupportsReadMemoryRequest(true);
        capabilities.setSupportsTerminateRequest(true);
        capabilities.setSupportTerminateDebuggee(true);
        capabilities.setSupportsSteppingGranularity(true);
        capabilities.setSupportsSetVariable(false);
        capabilities.setSupportsStepBack(false);
        capabilities.setSupportsRestartRequest(false);
        capabilities.setSupportsExceptionInfoRequest(false);
        capabilities.setSupportsValueFormattingOptions(false);
        session.initialized(args.linesStartAt1(), args.columnsStartAt1());
        // The initialized event must follow the initialize response (lsp4j cannot order these: done here).
        session.afterResponse(() -> session.event("initialized", null));
        return DapSession.GSON.toJsonTree(capabilities);
    }
}
