package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The table of request handlers: every command this server answers, and who answers it. */
final class RequestHandlers {
    /** The custom request for the whole OpenMP tree (body: jompd-inspect/1 JSON, or "no stop"). */
    static final String OPENMP_TREE_REQUEST = "jompd/openmpTree";
    /** The custom request for the stop's parallel stacks and diagnosis, with DAP thread ids and frame indices. */
    static final String PARALLEL_STACKS_REQUEST = "jompd/parallelStacks";
    /** The custom request that makes the client select a thread (a stopped event naming it). */
    static final String FOCUS_THREAD_REQUEST = "jompd/focusThread";
    /** The custom event sent at each stop: the OpenMP tree changed. */
    static final String OPENMP_CHANGED_EVENT = "jompd/openmpChanged";

    private final Map<String, RequestHandler> byCommand = new HashMap<>();

    RequestHandlers() {
        for (RequestHandler handler : List.of(new InitializeHandler(), new LaunchHandler(),
                new ConfigurationDoneHandler(), new BreakpointsHandler(), new ThreadsHandler(),
                new StackTraceHandler(), new ScopesHandler(), new VariablesHandler(), new EvaluateHandler(),
                new ResumeHandler(), new PauseHandler(), new ReadMemoryHandler(), new DisconnectHandler(),
                new OpenMpTreeHandler(), new ParallelStacksHandler(), new FocusThreadHandler(), new SourceHandler())) {
            for (String command : handler.commands()) {
                RequestHandler earlier = byCommand.putIfAbsent(command, handler);
                if (earlier != null) {
                    throw new IllegalStateException(command + " has two handlers: " + earlier.getClass().getSimpleName()
                            + " and " + handler.getClass().getSimpleName());
                }
            }
        }
    }

    JsonElement handle(String command, JsonObject arguments, DapSession session) {
        RequestHandler handler = byCommand.get(command);
        if (handler == null) {
            throw new DapException(ErrorId.UNKNOWN_COMMAND, "unknown command \"" + command + "\"");
        }
        return handler.handle(command, arguments, session);
    }

    /** Every command answered (for tests and the README). */
    Set<String> commands() {
        return Set.copyOf(byCommand.keySet());
    }
}
