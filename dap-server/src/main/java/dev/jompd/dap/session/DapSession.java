package dev.jompd.dap.session;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import dev.jompd.dap.gdb.GdbCommandException;
import dev.jompd.dap.gdb.GdbException;
import dev.jompd.dap.gdb.GdbExitedException;
import dev.jompd.dap.gdb.GdbTimeoutException;
import dev.jompd.dap.mi.MiValue;
import dev.jompd.dap.transport.DapEndpoint;
import dev.jompd.dap.transport.DapPeer;
import org.eclipse.lsp4j.debug.BreakpointEventArguments;
import org.eclipse.lsp4j.debug.ContinuedEventArguments;
import org.eclipse.lsp4j.debug.ExitedEventArguments;
import org.eclipse.lsp4j.debug.OutputEventArguments;
import org.eclipse.lsp4j.debug.StoppedEventArguments;
import org.eclipse.lsp4j.debug.ThreadEventArguments;
import org.eclipse.lsp4j.jsonrpc.debug.json.DebugMessageJsonHandler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One DAP session: one client connection, at most one program. Messages are parsed and checked on the
 * transport's thread and then handled one at a time, in order, on the session's worker, together with
 * gdb's events, so a handler never races a stop. Every request gets a response: malformed requests and
 * requests out of order get error responses, gdb failures too; gdb crashing or hanging ends the session
 * with an output and a terminated event, never silence.
 */
public final class DapSession implements DapEndpoint {
    /** lsp4j's gson set-up for DAP types (enums, Either, collections). */
    static final Gson GSON = new DebugMessageJsonHandler(Map.of()).getGson();
    private static final AtomicInteger SESSIONS = new AtomicInteger();

    enum Phase { NEW, INITIALIZED, STARTED, ENDED }

    private final DapPeer peer;
    private final ServerOptions options;
    private final ExecutorService worker;
    private final AtomicInteger sequence = new AtomicInteger(1);
    private final Object sendLock = new Object();
    private final List<Runnable> afterResponse = new ArrayList<>();
    final Requests requests;
    volatile Phase phase = Phase.NEW;
    Debuggee debuggee;
    boolean linesStartAt1 = true;
    boolean columnsStartAt1 = true;
    boolean configurationDoneEarly;
    private volatile boolean replActive;
    private volatile boolean terminatedSent;

    public DapSession(DapPeer peer, ServerOptions options) {
        this.peer = peer;
        this.options = options;
        this.worker = Executors.newSingleThreadExecutor(Thread.ofVirtual()
                .name("dap-session-" + SESSIONS.incrementAndGet()).factory());
        this.requests = new Requests(this);
    }

    // ------------------------------------------------------------------ input

    @Override
    public void receive(String json) {
        if (options.verbose()) {
            log("<- " + json);
        }
        JsonElement parsed;
        try {
            parsed = JsonParser.parseString(json);
        } catch (JsonParseException | StackOverflowError e) {
            rejectUnparsable("invalid JSON: " + rootMessage(e));
            return;
        }
        if (!parsed.isJsonObject()) {
            rejectUnparsable("a DAP message is a JSON object, not " + abbreviate(parsed));
            return;
        }
        JsonObject message = parsed.getAsJsonObject();
        String type = stringField(message, "type");
        if (type == null) {
            rejectUnparsable("a DAP message needs a string \"type\"");
            return;
        }
        if (!type.equals("request")) {
            if (!type.equals("response") && !type.equals("event")) {
                rejectUnparsable("unknown message type \"" + type + "\"");
            }
            return; // this adapter sends no reverse requests: responses and events from the client are ignored
        }
        int seq;
        if (!(message.get("seq") instanceof JsonPrimitive seqValue) || !seqValue.isNumber()) {
            rejectUnparsable("a request needs a numeric \"seq\"");
            return;
        }
        try {
            seq = seqValue.getAsInt();
        } catch (NumberFormatException e) {
            rejectUnparsable("\"seq\" must be an integer");
            return;
        }
        String command = stringField(message, "command");
        if (command == null || command.isEmpty()) {
            sendResponse(seq, command == null ? "" : command, false, null, "a request needs a string \"command\"");
            return;
        }
        JsonElement arguments = message.get("arguments");
        if (arguments != null && !arguments.isJsonNull() && !arguments.isJsonObject()) {
            sendResponse(seq, command, false, null, command + ": \"arguments\" must be an object");
            return;
        }
        JsonObject args = arguments == null || arguments.isJsonNull() ? new JsonObject() : arguments.getAsJsonObject();
        post(() -> handle(seq, command, args));
    }

    private void rejectUnparsable(String problem) {
        sendResponse(0, "", false, null, problem);
        output("console", "jompd-dap: rejected a message: " + problem + "\n");
    }

    private void handle(int seq, String command, JsonObject arguments) {
        long start = System.nanoTime();
        handleTimed(seq, command, arguments);
        long millis = (System.nanoTime() - start) / 1_000_000;
        if (millis >= 2 && Boolean.getBoolean("jompd.dap.timing")) {
            log(command + " " + seq + ": " + millis + " ms");
        }
    }

    private void handleTimed(int seq, String command, JsonObject arguments) {
        afterResponse.clear();
        boolean succeeded = false;
        try {
            JsonElement body = requests.handle(command, arguments);
            sendResponse(seq, command, true, body, null);
            succeeded = true;
        } catch (DapException e) {
            sendResponse(seq, command, false, null, e.getMessage());
        } catch (GdbTimeoutException e) {
            sendResponse(seq, command, false, null, e.getMessage());
            gdbHangs(e);
        } catch (GdbCommandException e) {
            sendResponse(seq, command, false, null, "gdb: " + e.gdbMessage());
        } catch (GdbExitedException e) {
            sendResponse(seq, command, false, null, e.getMessage());
        } catch (GdbException e) {
            sendResponse(seq, command, false, null, "gdb: " + e.getMessage());
        } catch (JsonParseException | IllegalStateException | ClassCastException | NumberFormatException
                 | UnsupportedOperationException e) {
            sendResponse(seq, command, false, null, command + ": arguments of the wrong type: " + rootMessage(e));
        } catch (RuntimeException | LinkageError | AssertionError | StackOverflowError e) {
            // a bug or a broken installation: the client still gets its answer, the session goes on
            log("internal error in " + command + ": " + e);
            e.printStackTrace(options.log());
            sendResponse(seq, command, false, null, command + ": internal error: " + e);
        }
        for (Runnable after : succeeded ? List.copyOf(afterResponse) : List.<Runnable>of()) {
            try {
                after.run();
            } catch (GdbTimeoutException e) {
                output("important", "jompd-dap: " + command + ": " + e.getMessage() + "\n");
                gdbHangs(e);
            } catch (RuntimeException | LinkageError e) {
                // the response is out already: the failure is told as output (e.g. the program failed to start)
                output("important", "jompd-dap: " + command + ": " + (e instanceof GdbCommandException g
                        ? "gdb: " + g.gdbMessage() : e.getMessage()) + "\n");
            }
        }
    }

    /** Runs {@code action} after the current request's response has been sent (ordering of events). */
    void afterResponse(Runnable action) {
        afterResponse.add(action);
    }

    /** Runs {@code action} on the session's worker, after everything posted before it. */
    void post(Runnable action) {
        if (!worker.isShutdown()) {
            try {
                worker.execute(() -> {
                    try {
                        action.run();
                    } catch (RuntimeException | LinkageError | AssertionError | StackOverflowError e) {
                        log("session event failed: " + e);
                        e.printStackTrace(options.log());
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException ended) {
                // the session is over
            }
        }
    }

    @Override
    public void closed(String why) {
        log("connection " + peer.describe() + " closed: " + why);
        post(() -> {
            if (debuggee != null && phase != Phase.ENDED) {
                debuggee.end(debuggee.config.kind() == LaunchConfig.Kind.LAUNCH);
            }
            phase = Phase.ENDED;
            worker.shutdown();
        });
    }

    @Override
    public void awaitEnd(java.time.Duration timeout) {
        try {
            worker.awaitTermination(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ output

    private void sendResponse(int requestSeq, String command, boolean success, JsonElement body, String message) {
        JsonObject response = new JsonObject();
        response.addProperty("type", "response");
        response.addProperty("request_seq", requestSeq);
        response.addProperty("success", success);
        response.addProperty("command", command);
        if (!success) {
            response.addProperty("message", message);
            JsonObject error = new JsonObject();
            error.addProperty("id", 1);
            error.addProperty("format", message.replace("{", "{{").replace("}", "}}"));
            error.addProperty("showUser", true);
            JsonObject errorBody = new JsonObject();
            errorBody.add("error", error);
            response.add("body", errorBody);
        } else if (body != null && !body.isJsonNull()) {
            response.add("body", body);
        }
        send(response);
    }

    void event(String name, Object body) {
        JsonObject event = new JsonObject();
        event.addProperty("type", "event");
        event.addProperty("event", name);
        if (body != null) {
            event.add("body", body instanceof JsonElement element ? element : GSON.toJsonTree(body));
        }
        send(event);
    }

    private void send(JsonObject message) {
        synchronized (sendLock) {
            message.addProperty("seq", sequence.getAndIncrement());
            String json = GSON.toJson(message);
            if (options.verbose()) {
                log("-> " + json);
            }
            peer.send(json);
        }
    }

    void output(String category, String text) {
        OutputEventArguments output = new OutputEventArguments();
        output.setCategory(category);
        output.setOutput(text);
        event("output", output);
    }

    void log(String text) {
        options.log().println("jompd-dap: " + text);
    }

    ServerOptions options() {
        return options;
    }

    boolean replActive() {
        return replActive;
    }

    void setReplActive(boolean active) {
        replActive = active;
    }

    // ------------------------------------------------------------------ events from the program

    void stopped(Debuggee.StopReport report) {
        StoppedEventArguments stopped = new StoppedEventArguments();
        stopped.setReason(report.reason());
        stopped.setDescription(report.description());
        stopped.setThreadId(report.threadId());
        stopped.setAllThreadsStopped(true);
        if (!report.hitBreakpoints().isEmpty()) {
            stopped.setHitBreakpointIds(report.hitBreakpoints().toArray(Integer[]::new));
        }
        event("stopped", stopped);
        JsonObject changed = new JsonObject();
        changed.addProperty("stop", debuggee.stop().generation);
        changed.addProperty("reason", report.reason());
        changed.addProperty("threadId", report.threadId());
        event(Requests.OPENMP_CHANGED_EVENT, changed);
    }

    void continued(int threadId) {
        ContinuedEventArguments continued = new ContinuedEventArguments();
        continued.setThreadId(threadId);
        continued.setAllThreadsContinued(true);
        event("continued", continued);
    }

    void threadEvent(String reason, int threadId) {
        ThreadEventArguments thread = new ThreadEventArguments();
        thread.setReason(reason);
        thread.setThreadId(threadId);
        event("thread", thread);
    }

    void exited(int code) {
        ExitedEventArguments exited = new ExitedEventArguments();
        exited.setExitCode(code);
        event("exited", exited);
        terminated();
    }

    void terminated() {
        if (!terminatedSent) {
            terminatedSent = true;
            event("terminated", new JsonObject());
        }
    }

    Debuggee.StopReport breakpointStop(int gdbNumber, int threadId) {
        return requests.breakpoints.stopFor(gdbNumber, threadId);
    }

    void breakpointModified(MiValue bkpt) {
        requests.breakpoints.modified(bkpt).ifPresent(breakpoint -> {
            BreakpointEventArguments event = new BreakpointEventArguments();
            event.setReason("changed");
            event.setBreakpoint(breakpoint);
            event("breakpoint", event);
        });
    }

    /** gdb exited or crashed: the session cannot go on. */
    void gdbEnded(String description) {
        if (phase == Phase.ENDED || debuggee == null || debuggee.detaching) {
            return;
        }
        if (!terminatedSent) {
            output("important", "jompd-dap: " + description + "\n");
        }
        debuggee.exited = true;
        terminated();
    }

    /** gdb did not answer in time: report it, kill it; its exit then ends the session. */
    private void gdbHangs(GdbTimeoutException e) {
        output("important", "jompd-dap: " + e.getMessage() + "; gdb seems to hang and is killed\n");
        if (debuggee != null) {
            debuggee.killGdb();
        }
    }

    void endSession() {
        phase = Phase.ENDED;
    }

    // ------------------------------------------------------------------ helpers

    private static String stringField(JsonObject object, String name) {
        JsonElement value = object.get(name);
        return value instanceof JsonPrimitive primitive && primitive.isString() ? primitive.getAsString() : null;
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.toString();
    }

    static String abbreviate(JsonElement value) {
        String text = value == null ? "null" : value.toString();
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }
}
