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
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One DAP session: one client connection, at most one program. Messages are parsed and checked on the
 * transport's thread and then handled one at a time, in order, on the session's worker, together with
 * gdb's events, so a handler never races a stop. Each request goes to its handler ({@link RequestHandlers}).
 * Every request gets a response: malformed requests and requests out of order get error responses, gdb
 * failures too, each with its {@link ErrorId}; gdb crashing or hanging ends the session with an output and a
 * terminated event, never silence.
 */
public final class DapSession implements DapEndpoint {
    /** lsp4j's gson set-up for DAP types (enums, Either, collections). */
    static final Gson GSON = new DebugMessageJsonHandler(Map.of()).getGson();
    /**
     * Writes messages as built: a JSON null put in a body on purpose (openmpTree's {@code "stop": null})
     * stays; DAP types converted with {@link #GSON} carry no nulls to begin with.
     */
    private static final Gson WIRE = GSON.newBuilder().serializeNulls().create();
    private static final AtomicInteger SESSIONS = new AtomicInteger();

    /**
     * Where the session is in DAP's order of requests. Every change goes through {@link #moveTo}, which
     * allows only the transitions listed in {@link #next()}, as {@link RunState} does for the program.
     */
    enum Phase {
        /** Connected: initialize comes first. */
        NEW,
        /** initialize answered: launch or attach (or configurationDone, kept for later). */
        INITIALIZED,
        /** launch or attach loaded the program: a {@link Debuggee} is there. */
        STARTED,
        /** disconnect, or the connection closed: every request but disconnect is out of order. */
        ENDED;

        /** The phases this one may move to. */
        Set<Phase> next() {
            return switch (this) {
                case NEW -> EnumSet.of(INITIALIZED, ENDED);
                case INITIALIZED -> EnumSet.of(STARTED, ENDED);
                case STARTED -> EnumSet.of(ENDED);
                case ENDED -> EnumSet.of(ENDED); // disconnect, then the connection closes
            };
        }
    }

    private final DapPeer peer;
    private final ServerOptions options;
    private final ExecutorService worker;
    private final AtomicInteger sequence = new AtomicInteger(1);
    private final Object sendLock = new Object();
    private final List<Runnable> afterResponse = new ArrayList<>();
    private final RequestHandlers handlers = new RequestHandlers();
    final Breakpoints breakpoints;
    /** Frame and variables handles: unique within the session, valid for one stop. */
    private final AtomicInteger handles = new AtomicInteger(1);
    private volatile Phase phase = Phase.NEW;
    /** The program, from launch or attach on (null before). */
    private Debuggee debuggee;
    private boolean linesStartAt1 = true;
    private boolean columnsStartAt1 = true;
    /** configurationDone came before launch or attach: the program starts as soon as it is loaded. */
    private boolean configurationDoneEarly;
    private volatile boolean replActive;
    private volatile boolean terminatedSent;

    public DapSession(DapPeer peer, ServerOptions options) {
        this.peer = peer;
        this.options = options;
        this.worker = Executors.newSingleThreadExecutor(Thread.ofVirtual()
                .name("dap-session-" + SESSIONS.incrementAndGet()).factory());
        this.breakpoints = new Breakpoints(this);
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
            // the parser's own first line (where in the text it stopped), not its pointer to Gson's troubleshooting page
            rejectUnparsable("invalid JSON: " + rootMessage(e).lines().findFirst().orElse(""));
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
            sendError(seq, command == null ? "" : command, ErrorId.MALFORMED_MESSAGE, "a request needs a string \"command\"");
            return;
        }
        JsonElement arguments = message.get("arguments");
        if (arguments != null && !arguments.isJsonNull() && !arguments.isJsonObject()) {
            sendError(seq, command, ErrorId.INVALID_ARGUMENTS, command + ": \"arguments\" must be an object");
            return;
        }
        JsonObject args = arguments == null || arguments.isJsonNull() ? new JsonObject() : arguments.getAsJsonObject();
        post(() -> handle(seq, command, args));
    }

    private void rejectUnparsable(String problem) {
        sendError(0, "", ErrorId.MALFORMED_MESSAGE, problem);
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
            JsonElement body = handlers.handle(command, arguments, this);
            sendResponse(seq, command, true, body, null, null);
            succeeded = true;
        } catch (DapException e) {
            sendError(seq, command, e.errorId(), e.getMessage());
        } catch (GdbTimeoutException e) {
            // during launch or attach the user must act (a gdb that hangs at start); later the session ends
            sendError(seq, command, isStart(command) ? ErrorId.LAUNCH_FAILED : ErrorId.GDB_NOT_RESPONDING, e.getMessage());
            gdbHangs(e);
        } catch (GdbCommandException e) {
            sendError(seq, command, ErrorId.GDB_COMMAND_FAILED, "gdb: " + e.gdbMessage());
        } catch (GdbExitedException e) {
            sendError(seq, command, ErrorId.GDB_EXITED, e.getMessage());
        } catch (GdbException e) {
            sendError(seq, command, ErrorId.GDB_COMMAND_FAILED, "gdb: " + e.getMessage());
        } catch (RunState.IllegalTransitionException e) {
            log("internal error in " + command + ": " + e.getMessage());
            sendError(seq, command, ErrorId.INTERNAL_ERROR, command + ": internal error: " + e.getMessage());
        } catch (RuntimeException | LinkageError | AssertionError | StackOverflowError e) {
            // a bug or a broken installation, never the user's arguments (Arguments and LaunchConfig check
            // those and say which is wrong): the client still gets its answer, the session goes on
            log("internal error in " + command + ": " + e);
            e.printStackTrace(options.log());
            sendError(seq, command, ErrorId.INTERNAL_ERROR, command + ": internal error: " + e);
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

    private static boolean isStart(String command) {
        return command.equals("launch") || command.equals("attach");
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
                debuggee.end(debuggee.config().kind() == LaunchConfig.Kind.LAUNCH);
            }
            moveTo(Phase.ENDED);
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

    private void sendError(int requestSeq, String command, ErrorId id, String message) {
        sendResponse(requestSeq, command, false, null, id, message);
    }

    /**
     * A response; a failed one carries DAP's error message: the stable id, the text (DAP's format string,
     * braces escaped) and whether the client should interrupt the user with it.
     */
    private void sendResponse(int requestSeq, String command, boolean success, JsonElement body, ErrorId id, String message) {
        JsonObject response = new JsonObject();
        response.addProperty("type", "response");
        response.addProperty("request_seq", requestSeq);
        response.addProperty("success", success);
        response.addProperty("command", command);
        if (!success) {
            response.addProperty("message", message);
            JsonObject error = new JsonObject();
            error.addProperty("id", id.id());
            error.addProperty("format", message.replace("{", "{{").replace("}", "}}"));
            error.addProperty("showUser", id.showUser());
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
            String json = WIRE.toJson(message);
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
        event("stopped", stoppedEvent(report));
        debuggee.stop().report = report;
        JsonObject changed = new JsonObject();
        changed.addProperty("stop", debuggee.stop().generation);
        changed.addProperty("reason", report.reason());
        changed.addProperty("threadId", report.threadId());
        // the stopped thread's LWP, so that a client finds it in the picture without reading display names
        stoppedLwp(report.threadId()).ifPresent(lwp -> changed.addProperty("lwp", lwp));
        event(RequestHandlers.OPENMP_CHANGED_EVENT, changed);
    }

    private java.util.OptionalLong stoppedLwp(int threadId) {
        try {
            return debuggee.threads().stream().filter(t -> t.id() == threadId).findFirst()
                    .map(dev.jompd.dap.gdb.GdbThread::lwp).orElse(java.util.OptionalLong.empty());
        } catch (RuntimeException unknown) {
            return java.util.OptionalLong.empty(); // gdb could not list its threads: the event goes without
        }
    }

    /**
     * The current stop told again for a thread (jompd/focusThread): VS Code focuses the thread a stopped
     * event names. Not remembered as the stop's report and followed by no jompd/openmpChanged.
     */
    void stoppedAgain(Debuggee.StopReport report) {
        StoppedEventArguments stopped = stoppedEvent(report);
        stopped.setPreserveFocusHint(false);
        event("stopped", stopped);
    }

    private static StoppedEventArguments stoppedEvent(Debuggee.StopReport report) {
        StoppedEventArguments stopped = new StoppedEventArguments();
        stopped.setReason(report.reason());
        stopped.setDescription(report.description());
        stopped.setThreadId(report.threadId());
        stopped.setAllThreadsStopped(true);
        if (!report.hitBreakpoints().isEmpty()) {
            stopped.setHitBreakpointIds(report.hitBreakpoints().toArray(Integer[]::new));
        }
        return stopped;
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
        return breakpoints.stopFor(gdbNumber, threadId);
    }

    void breakpointModified(MiValue bkpt) {
        breakpoints.modified(bkpt).ifPresent(breakpoint -> {
            BreakpointEventArguments event = new BreakpointEventArguments();
            event.setReason("changed");
            event.setBreakpoint(breakpoint);
            event("breakpoint", event);
        });
    }

    /** gdb exited or crashed: the session cannot go on. */
    void gdbEnded(String description) {
        if (phase == Phase.ENDED || debuggee == null || debuggee.isDisconnecting()) {
            return;
        }
        if (!terminatedSent) {
            output("important", "jompd-dap: " + description + "\n");
        }
        debuggee.gdbGone();
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
        moveTo(Phase.ENDED);
    }

    // ------------------------------------------------------------------ the session's phase

    Phase phase() {
        return phase;
    }

    /** The only change of phase: a transition {@link Phase#next()} does not list is a bug and fails loudly. */
    private void moveTo(Phase next) {
        if (!phase.next().contains(next)) {
            throw new IllegalStateException("session phase cannot move from " + phase + " to " + next
                    + " (allowed: " + phase.next() + ")");
        }
        phase = next;
    }

    /** initialize: the client's line and column base; the session is initialized. */
    void initialized(boolean linesStartAt1, boolean columnsStartAt1) {
        moveTo(Phase.INITIALIZED);
        this.linesStartAt1 = linesStartAt1;
        this.columnsStartAt1 = columnsStartAt1;
    }

    /** launch or attach loaded the program (or the warm-up its rehearsal). */
    void started(Debuggee debuggee) {
        moveTo(Phase.STARTED);
        this.debuggee = debuggee;
    }

    /** configurationDone before launch or attach: the program is to start as soon as it is loaded. */
    void configurationDoneEarly() {
        configurationDoneEarly = true;
    }

    /** Whether configurationDone came before launch or attach. */
    boolean configurationWasDoneEarly() {
        return configurationDoneEarly;
    }

    /** The program, once launch or attach has loaded it; null before. */
    Debuggee debuggee() {
        return debuggee;
    }

    boolean linesStartAt1() {
        return linesStartAt1;
    }

    boolean columnsStartAt1() {
        return columnsStartAt1;
    }

    // ------------------------------------------------------------------ what handlers check first

    int newHandle() {
        return handles.getAndIncrement();
    }

    /** Fails with OUT_OF_ORDER unless the session is in one of {@code allowed}. */
    void requirePhase(String what, Phase... allowed) {
        for (Phase allowedPhase : allowed) {
            if (phase == allowedPhase) {
                return;
            }
        }
        throw new DapException(ErrorId.OUT_OF_ORDER, switch (phase) {
            case NEW -> what + ": send initialize first";
            case INITIALIZED -> what + ": no program yet: send launch or attach first";
            case STARTED -> what + ": the program is already launched or attached";
            case ENDED -> what + ": the session has ended";
        });
    }

    /** The program, once launch or attach has loaded it. */
    Debuggee startedDebuggee(String what) {
        requirePhase(what, Phase.STARTED);
        return debuggee;
    }

    /** The program, stopped. */
    Debuggee stoppedDebuggee(String what) {
        Debuggee started = startedDebuggee(what);
        started.requireStopped(what);
        return started;
    }

    /** A frame handed out at this stop. */
    StopState.FrameRef frame(Debuggee stopped, int frameId, String what) {
        StopState.FrameRef frame = stopped.stop().frames.get(frameId);
        if (frame == null) {
            throw new DapException(ErrorId.STALE_HANDLE, what + ": frame " + frameId + " is unknown or from an earlier stop");
        }
        return frame;
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
