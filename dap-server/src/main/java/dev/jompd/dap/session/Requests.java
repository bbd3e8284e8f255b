package dev.jompd.dap.session;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import dev.jompd.dap.gdb.GdbCommandException;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.gdb.GdbFrame;
import dev.jompd.dap.gdb.GdbResult;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.gdb.GdbVariable;
import dev.jompd.dap.openmp.OmpScope;
import dev.jompd.dap.openmp.OmpVariable;
import dev.jompd.dap.openmp.OpenMpView;
import org.eclipse.lsp4j.debug.Capabilities;
import org.eclipse.lsp4j.debug.ContinueResponse;
import org.eclipse.lsp4j.debug.EvaluateResponse;
import org.eclipse.lsp4j.debug.ReadMemoryResponse;
import org.eclipse.lsp4j.debug.Scope;
import org.eclipse.lsp4j.debug.Source;
import org.eclipse.lsp4j.debug.SourcePresentationHint;
import org.eclipse.lsp4j.debug.StackFrame;
import org.eclipse.lsp4j.debug.StackFramePresentationHint;
import org.eclipse.lsp4j.debug.StackTraceResponse;
import org.eclipse.lsp4j.debug.Thread;
import org.eclipse.lsp4j.debug.Variable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The request handlers: each checks the session's phase and its arguments, asks gdb or jompd, and maps
 * the answer to DAP types. None reads target memory or knows libomp's layout.
 */
final class Requests {
    /** The custom request for the whole OpenMP tree (body: jompd-inspect/1 JSON). */
    static final String OPENMP_TREE_REQUEST = "jompd/openmpTree";
    /** The custom event sent at each stop: the OpenMP tree changed. */
    static final String OPENMP_CHANGED_EVENT = "jompd/openmpChanged";
    /** Largest readMemory answered at once. */
    static final int MAX_MEMORY_READ = 1 << 20;

    private final DapSession session;
    final Breakpoints breakpoints;
    private final AtomicInteger handles = new AtomicInteger(1);
    private final OmpdCommands ompdCommands = new OmpdCommands();

    Requests(DapSession session) {
        this.session = session;
        this.breakpoints = new Breakpoints(session);
    }

    JsonElement handle(String command, JsonObject args) {
        return switch (command) {
            case "initialize" -> initialize(args);
            case "launch" -> start(LaunchConfig.launch(args, defaultGdb()));
            case "attach" -> start(LaunchConfig.attach(args, defaultGdb()));
            case "configurationDone" -> configurationDone();
            case "setBreakpoints" -> setBreakpoints(args);
            case "setFunctionBreakpoints" -> setFunctionBreakpoints(args);
            case "setExceptionBreakpoints" -> setExceptionBreakpoints();
            case "threads" -> threads();
            case "stackTrace" -> stackTrace(args);
            case "scopes" -> scopes(args);
            case "variables" -> variables(args);
            case "evaluate" -> evaluate(args);
            case "continue" -> resume("continue", args, gdb -> gdb.continueAll());
            case "next" -> resume("next", args, gdb -> gdb.next(threadId(args), instruction(args)));
            case "stepIn" -> resume("stepIn", args, gdb -> {
                if (instruction(args)) {
                    gdb.step(threadId(args), true);
                } else {
                    session.debuggee.stepIn(threadId(args));
                }
            });
            case "stepOut" -> resume("stepOut", args, gdb -> gdb.finish(threadId(args)));
            case "pause" -> pause();
            case "readMemory" -> readMemory(args);
            case "disconnect" -> disconnect(args);
            case "terminate" -> terminate();
            case OPENMP_TREE_REQUEST -> openMpTree();
            default -> throw new DapException("unknown command \"" + command + "\"");
        };
    }

    private String defaultGdb() {
        requirePhase("launch/attach", DapSession.Phase.INITIALIZED);
        return session.options().gdbPath();
    }

    // ------------------------------------------------------------------ phases

    private void requirePhase(String what, DapSession.Phase... allowed) {
        for (DapSession.Phase phase : allowed) {
            if (session.phase == phase) {
                return;
            }
        }
        throw new DapException(switch (session.phase) {
            case NEW -> what + ": send initialize first";
            case INITIALIZED -> what + ": no program yet: send launch or attach first";
            case STARTED -> what + ": the program is already launched or attached";
            case ENDED -> what + ": the session has ended";
        });
    }

    private Debuggee debuggee(String what) {
        requirePhase(what, DapSession.Phase.STARTED);
        return session.debuggee;
    }

    private Debuggee stopped(String what) {
        Debuggee debuggee = debuggee(what);
        debuggee.requireStopped(what);
        return debuggee;
    }

    // ------------------------------------------------------------------ set-up

    private JsonElement initialize(JsonObject args) {
        if (session.phase != DapSession.Phase.NEW) {
            throw new DapException("initialize: already initialized");
        }
        session.linesStartAt1 = optionalBoolean(args, "linesStartAt1").orElse(true);
        session.columnsStartAt1 = optionalBoolean(args, "columnsStartAt1").orElse(true);
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
        session.phase = DapSession.Phase.INITIALIZED;
        // The initialized event must follow the initialize response (lsp4j cannot order these: done here).
        session.afterResponse(() -> session.event("initialized", null));
        return DapSession.GSON.toJsonTree(capabilities);
    }

    private JsonElement start(LaunchConfig config) {
        Debuggee debuggee = new Debuggee(session, config);
        try {
            debuggee.start();
        } catch (RuntimeException e) {
            debuggee.close();
            throw e;
        }
        session.debuggee = debuggee;
        session.phase = DapSession.Phase.STARTED;
        breakpoints.plantPending(debuggee.debugger());
        if (config.kind() == LaunchConfig.Kind.ATTACH || config.kind() == LaunchConfig.Kind.CORE) {
            session.output("console", "jompd-dap: " + (config.kind() == LaunchConfig.Kind.CORE
                    ? "core file " + config.core().orElseThrow() + " (post-mortem: no run control)"
                    : "attached to process " + config.processId().getAsLong()) + "\n");
        }
        if (session.configurationDoneEarly) {
            debuggee.configured = true;
            session.afterResponse(this::begin);
        }
        return null;
    }

    private JsonElement configurationDone() {
        requirePhase("configurationDone", DapSession.Phase.STARTED, DapSession.Phase.INITIALIZED);
        if (session.debuggee == null) {
            session.configurationDoneEarly = true; // the program starts as soon as launch or attach loads it
            return null;
        }
        if (session.debuggee.configured) {
            throw new DapException("configurationDone: already done");
        }
        session.debuggee.configured = true;
        session.afterResponse(this::begin);
        return null;
    }

    /** Configuration is done: run the program, or report the stop of an attach or a core. */
    private void begin() {
        Debuggee debuggee = session.debuggee;
        switch (debuggee.config.kind()) {
            case LAUNCH -> debuggee.run();
            case ATTACH -> {
                Debuggee.StopReport initial = debuggee.initialStop != null ? debuggee.initialStop
                        : new Debuggee.StopReport("entry", null, 1, List.of());
                if (debuggee.config.stopOnEntry()) {
                    session.stopped(new Debuggee.StopReport("entry", "Attached", initial.threadId(), List.of()));
                } else {
                    debuggee.resuming();
                    debuggee.debugger().continueAll();
                }
            }
            case CORE -> {
                List<GdbThread> threads = debuggee.threads();
                int thread = threads.isEmpty() ? 1 : threads.getFirst().id();
                session.stopped(new Debuggee.StopReport("exception", "Core file (post-mortem)", thread, List.of()));
            }
        }
    }

    private JsonElement setBreakpoints(JsonObject args) {
        requirePhase("setBreakpoints", DapSession.Phase.INITIALIZED, DapSession.Phase.STARTED);
        JsonObject source = object(args, "source");
        String path = optionalString(source, "path").orElseThrow(() ->
                new DapException("setBreakpoints: source.path is required (sources without a path are not supported)"));
        List<int[]> lines = new ArrayList<>();
        List<Optional<String>> conditions = new ArrayList<>();
        List<Optional<String>> hits = new ArrayList<>();
        JsonElement list = args.get("breakpoints");
        if (list != null && !list.isJsonNull()) {
            if (!list.isJsonArray()) {
                throw new DapException("setBreakpoints: breakpoints must be an array");
            }
            for (JsonElement element : list.getAsJsonArray()) {
                if (!element.isJsonObject()) {
                    throw new DapException("setBreakpoints: each breakpoint must be an object");
                }
                JsonObject breakpoint = element.getAsJsonObject();
                int line = integer(breakpoint, "line");
                lines.add(new int[] {session.linesStartAt1 ? line : line + 1});
                conditions.add(optionalString(breakpoint, "condition"));
                hits.add(optionalString(breakpoint, "hitCondition"));
            }
        } else if (args.get("lines") instanceof JsonArray legacy) {
            for (JsonElement line : legacy) {
                lines.add(new int[] {line.getAsInt() + (session.linesStartAt1 ? 0 : 1)});
                conditions.add(Optional.empty());
                hits.add(Optional.empty());
            }
        }
        var result = breakpoints.setSource(path, lines, conditions, hits, gdbOrNull());
        JsonObject body = new JsonObject();
        body.add("breakpoints", DapSession.GSON.toJsonTree(result));
        return body;
    }

    private JsonElement setFunctionBreakpoints(JsonObject args) {
        requirePhase("setFunctionBreakpoints", DapSession.Phase.INITIALIZED, DapSession.Phase.STARTED);
        JsonElement list = args.get("breakpoints");
        if (list == null || !list.isJsonArray()) {
            throw new DapException("setFunctionBreakpoints: breakpoints must be an array");
        }
        List<String> names = new ArrayList<>();
        List<Optional<String>> conditions = new ArrayList<>();
        List<Optional<String>> hits = new ArrayList<>();
        for (JsonElement element : list.getAsJsonArray()) {
            if (!element.isJsonObject()) {
                throw new DapException("setFunctionBreakpoints: each breakpoint must be an object");
            }
            String name = optionalString(element.getAsJsonObject(), "name").filter(n -> !n.isBlank())
                    .orElseThrow(() -> new DapException("setFunctionBreakpoints: each breakpoint needs a name"));
            names.add(name);
            conditions.add(optionalString(element.getAsJsonObject(), "condition"));
            hits.add(optionalString(element.getAsJsonObject(), "hitCondition"));
        }
        var result = breakpoints.setFunctions(names, conditions, hits, gdbOrNull());
        JsonObject body = new JsonObject();
        body.add("breakpoints", DapSession.GSON.toJsonTree(result));
        return body;
    }

    private JsonElement setExceptionBreakpoints() {
        requirePhase("setExceptionBreakpoints", DapSession.Phase.INITIALIZED, DapSession.Phase.STARTED);
        JsonObject body = new JsonObject();
        body.add("breakpoints", new JsonArray()); // no exception filters are offered
        return body;
    }

    private GdbDebugger gdbOrNull() {
        return session.debuggee == null ? null : session.debuggee.debugger();
    }

    // ------------------------------------------------------------------ inspection

    private JsonElement threads() {
        Debuggee debuggee = debuggee("threads");
        if (debuggee.exited) {
            JsonObject body = new JsonObject();
            body.add("threads", new JsonArray());
            return body;
        }
        List<GdbThread> threads = debuggee.threads();
        Optional<OpenMpView> view = debuggee.running ? Optional.empty() : debuggee.openMp();
        long start = System.nanoTime();
        List<Thread> result = new ArrayList<>();
        for (GdbThread thread : threads) {
            Thread dap = new Thread();
            dap.setId(thread.id());
            dap.setName(threadName(thread, view));
            result.add(dap);
        }
        JsonObject body = new JsonObject();
        body.add("threads", DapSession.GSON.toJsonTree(result));
        if (Boolean.getBoolean("jompd.dap.timing")) {
            session.log("thread names: " + (System.nanoTime() - start) / 1_000_000 + " ms");
        }
        return body;
    }

    static String threadName(GdbThread thread, Optional<OpenMpView> view) {
        String lwp = thread.lwp().isPresent() ? "LWP " + thread.lwp().getAsLong() : thread.targetId();
        if (thread.lwp().isPresent() && view.isPresent()) {
            Optional<String> openMp = thread.pthread().isPresent()
                    ? view.get().threadNameByPthread(thread.pthread().getAsLong())
                    : view.get().threadName(thread.lwp().getAsLong());
            if (openMp.isPresent()) {
                return openMp.get() + " (" + lwp + ")";
            }
        }
        return thread.name().map(name -> lwp + " " + name).orElse(lwp);
    }

    private JsonElement stackTrace(JsonObject args) {
        Debuggee debuggee = stopped("stackTrace");
        int threadId = integer(args, "threadId");
        int start = optionalInteger(args, "startFrame").orElse(0);
        int levels = optionalInteger(args, "levels").orElse(0);
        if (start < 0 || levels < 0) {
            throw new DapException("stackTrace: startFrame and levels must not be negative");
        }
        StopState stop = debuggee.stop();
        List<GdbFrame> frames;
        boolean more;
        Optional<GdbThread> known = debuggee.threads().stream().filter(t -> t.id() == threadId).findFirst();
        if (known.isEmpty()) {
            throw new DapException("stackTrace: no thread " + threadId);
        }
        if (start == 0 && levels == 1 && known.get().frame().isPresent()) {
            // the top frame came with the thread list: no gdb round trip (delayed loading for many threads)
            frames = List.of(known.get().frame().get());
            more = true;
        } else {
            int count = levels == 0 ? 1000 : levels;
            List<GdbFrame> fetched;
            try {
                fetched = debuggee.debugger().frames(threadId, start, start + count);
            } catch (GdbCommandException e) {
                fetched = List.of(); // past the end of the stack
            }
            more = fetched.size() > count;
            frames = more ? fetched.subList(0, count) : fetched;
        }
        List<StackFrame> result = new ArrayList<>();
        for (GdbFrame frame : frames) {
            int id = handles.getAndIncrement();
            stop.frames.put(id, new StopState.FrameRef(threadId, frame.level()));
            result.add(stackFrame(id, frame));
        }
        StackTraceResponse response = new StackTraceResponse();
        response.setStackFrames(result.toArray(StackFrame[]::new));
        if (!more) {
            response.setTotalFrames(start + frames.size());
        }
        return DapSession.GSON.toJsonTree(response);
    }

    private StackFrame stackFrame(int id, GdbFrame frame) {
        StackFrame dap = new StackFrame();
        dap.setId(id);
        dap.setName(frame.displayName() + (frame.file().isEmpty() ? frame.library().map(l -> " (" + Path.of(l).getFileName() + ")").orElse("") : ""));
        frame.address().ifPresent(address -> dap.setInstructionPointerReference("0x" + Long.toHexString(address)));
        Optional<String> path = frame.fullname().or(frame::file);
        if (path.isPresent() && frame.line() > 0) {
            Source source = new Source();
            source.setName(Path.of(path.get()).getFileName().toString());
            source.setPath(path.get());
            if (!sourceExists(path.get())) {
                source.setPresentationHint(SourcePresentationHint.DEEMPHASIZE);
            }
            dap.setSource(source);
            dap.setLine(session.linesStartAt1 ? frame.line() : frame.line() - 1);
            dap.setColumn(session.columnsStartAt1 ? 1 : 0);
        } else {
            dap.setLine(0);
            dap.setColumn(0);
            dap.setPresentationHint(StackFramePresentationHint.SUBTLE);
        }
        return dap;
    }

    private final java.util.Map<String, Boolean> sourceFiles = new java.util.concurrent.ConcurrentHashMap<>();

    /** Whether a source file is there (asked once per file: frames of 256 threads share a few files). */
    private boolean sourceExists(String path) {
        return sourceFiles.computeIfAbsent(path, p -> Files.isRegularFile(Path.of(p)));
    }

    private StopState.FrameRef frame(Debuggee debuggee, JsonObject args, String what) {
        int frameId = integer(args, "frameId");
        StopState.FrameRef frame = debuggee.stop().frames.get(frameId);
        if (frame == null) {
            throw new DapException(what + ": frame " + frameId + " is unknown or from an earlier stop");
        }
        return frame;
    }

    private JsonElement scopes(JsonObject args) {
        Debuggee debuggee = stopped("scopes");
        StopState.FrameRef frame = frame(debuggee, args, "scopes");
        StopState stop = debuggee.stop();
        List<Scope> scopes = new ArrayList<>();
        Scope locals = new Scope();
        locals.setName("Locals");
        locals.setPresentationHint("locals");
        int localsRef = handles.getAndIncrement();
        stop.variables.put(localsRef, new StopState.Locals(frame.thread(), frame.level()));
        locals.setVariablesReference(localsRef);
        locals.setExpensive(false);
        scopes.add(locals);
        Optional<OpenMpView> view = debuggee.openMp();
        if (view.isPresent()) {
            OptionalLong lwp = debuggee.threads().stream().filter(t -> t.id() == frame.thread()).findFirst()
                    .map(GdbThread::lwp).orElse(OptionalLong.empty());
            if (lwp.isPresent()) {
                OptionalLong sp = OptionalLong.empty();
                OptionalLong innermost = OptionalLong.empty();
                if (frame.level() > 0) {
                    try {
                        sp = debuggee.debugger().frameAddress(frame.thread(), frame.level())
                                .map(OptionalLong::of).orElse(OptionalLong.empty());
                        innermost = debuggee.debugger().frameAddress(frame.thread(), 0)
                                .map(OptionalLong::of).orElse(OptionalLong.empty());
                    } catch (GdbCommandException e) {
                        // no address for this frame: the thread's current task stands for it
                    }
                }
                for (OmpScope scope : view.get().scopes(lwp.getAsLong(), sp, innermost)) {
                    Scope dap = new Scope();
                    dap.setName(scope.name());
                    int ref = handles.getAndIncrement();
                    stop.variables.put(ref, new StopState.OpenMpRows(scope.variables()));
                    dap.setVariablesReference(ref);
                    dap.setNamedVariables(scope.variables().size());
                    dap.setExpensive(false);
                    scopes.add(dap);
                }
            }
        }
        JsonObject body = new JsonObject();
        body.add("scopes", DapSession.GSON.toJsonTree(scopes));
        return body;
    }

    private JsonElement variables(JsonObject args) {
        Debuggee debuggee = stopped("variables");
        int reference = integer(args, "variablesReference");
        StopState stop = debuggee.stop();
        StopState.VariablesRef ref = stop.variables.get(reference);
        if (ref == null) {
            throw new DapException("variables: reference " + reference + " is unknown or from an earlier stop");
        }
        List<Variable> result = new ArrayList<>();
        switch (ref) {
            case StopState.Locals locals -> {
                for (GdbVariable variable : debuggee.debugger().locals(locals.thread(), locals.level())) {
                    if (variable.value().isPresent()) {
                        result.add(variable(variable, 0, variable.name()));
                    } else {
                        result.add(varobj(debuggee, debuggee.debugger().createVarobj(locals.thread(), locals.level(),
                                variable.name()), variable.name(), variable.name()));
                    }
                }
            }
            case StopState.Children children -> {
                for (GdbVariable child : debuggee.debugger().children(children.varobj())) {
                    if (child.type().isEmpty() && child.children() > 0) {
                        // C++ access specifiers (public/private): a group, no value of its own
                        result.add(childGroup(stop, child));
                    } else {
                        result.add(varobj(debuggee, child, child.name(), null));
                    }
                }
            }
            case StopState.OpenMpRows rows -> {
                for (OmpVariable row : rows.rows()) {
                    int childRef = 0;
                    if (!row.children().isEmpty()) {
                        childRef = handles.getAndIncrement();
                        stop.variables.put(childRef, new StopState.OpenMpRows(row.children()));
                    }
                    Variable dap = new Variable();
                    dap.setName(row.name());
                    dap.setValue(row.value());
                    dap.setType(row.type().isEmpty() ? null : row.type());
                    dap.setVariablesReference(childRef);
                    result.add(dap);
                }
            }
        }
        int from = Math.max(0, optionalInteger(args, "start").orElse(0));
        int count = optionalInteger(args, "count").orElse(0);
        List<Variable> page = from >= result.size() ? List.of()
                : result.subList(from, count > 0 ? Math.min(result.size(), from + count) : result.size());
        JsonObject body = new JsonObject();
        body.add("variables", DapSession.GSON.toJsonTree(page));
        return body;
    }

    private Variable childGroup(StopState stop, GdbVariable child) {
        int ref = handles.getAndIncrement();
        stop.variables.put(ref, new StopState.Children(child.varobj().orElseThrow()));
        Variable dap = new Variable();
        dap.setName(child.name());
        dap.setValue("");
        dap.setVariablesReference(ref);
        return dap;
    }

    private Variable varobj(Debuggee debuggee, GdbVariable variable, String name, String evaluateName) {
        StopState stop = debuggee.stop();
        variable.varobj().filter(v -> !v.contains(".")).ifPresent(stop.varobjs::add);
        int ref = 0;
        if (variable.children() > 0 && variable.varobj().isPresent()) {
            ref = handles.getAndIncrement();
            stop.variables.put(ref, new StopState.Children(variable.varobj().get()));
        }
        String expression = evaluateName;
        if (expression == null && variable.varobj().isPresent()) {
            expression = debuggee.debugger().pathExpression(variable.varobj().get()).orElse(null);
        }
        Variable dap = variable(variable, ref, expression);
        dap.setName(name);
        return dap;
    }

    private static Variable variable(GdbVariable variable, int ref, String evaluateName) {
        Variable dap = new Variable();
        dap.setName(variable.name());
        dap.setValue(variable.value().orElse(variable.children() > 0 ? "{...}" : ""));
        dap.setType(variable.type().orElse(null));
        dap.setVariablesReference(ref);
        dap.setEvaluateName(evaluateName);
        return dap;
    }

    private JsonElement evaluate(JsonObject args) {
        Debuggee debuggee = debuggee("evaluate");
        String expression = optionalString(args, "expression").orElseThrow(() ->
                new DapException("evaluate: expression is required"));
        String context = optionalString(args, "context").orElse("repl");
        Optional<StopState.FrameRef> frame = optionalInteger(args, "frameId").isPresent()
                ? Optional.of(frame(debuggee, args, "evaluate")) : Optional.empty();
        EvaluateResponse response = new EvaluateResponse();
        String trimmed = expression.strip();
        if (context.equals("repl") && (trimmed.equals("ompd") || trimmed.startsWith("ompd "))) {
            debuggee.requireStopped("ompd");
            response.setResult(ompdCommands.run(trimmed.substring(4).strip(), debuggee, frame));
            return DapSession.GSON.toJsonTree(response);
        }
        if (context.equals("repl") && (trimmed.startsWith("-exec ") || trimmed.startsWith("`"))) {
            response.setResult(console(debuggee, trimmed.startsWith("`") ? trimmed.substring(1) : trimmed.substring(6)));
            return DapSession.GSON.toJsonTree(response);
        }
        if (debuggee.running) {
            if (context.equals("repl")) {
                response.setResult(console(debuggee, trimmed));
                return DapSession.GSON.toJsonTree(response);
            }
            throw new DapException("evaluate: the program is running (pause it first)");
        }
        int thread = frame.map(StopState.FrameRef::thread).orElseGet(() -> debuggee.threads().isEmpty() ? 1
                : debuggee.threads().getFirst().id());
        int level = frame.map(StopState.FrameRef::level).orElse(0);
        try {
            GdbVariable value = debuggee.debugger().createVarobj(thread, level, expression);
            Variable variable = varobj(debuggee, value, expression, expression);
            response.setResult(variable.getValue());
            response.setType(variable.getType());
            response.setVariablesReference(variable.getVariablesReference());
        } catch (GdbCommandException varobjFailed) {
            // -var-create only says "unable to create variable object": ask again for gdb's real reason
            GdbCommandException e = varobjFailed;
            try {
                response.setResult(debuggee.debugger().evaluate(thread, level, expression));
                return DapSession.GSON.toJsonTree(response);
            } catch (GdbCommandException evaluationFailed) {
                e = evaluationFailed;
            }
            if (!context.equals("repl")) {
                throw new DapException(e.gdbMessage());
            }
            // the REPL also takes gdb commands: "info threads", "print x", "break foo"
            try {
                response.setResult(console(debuggee, trimmed));
            } catch (GdbCommandException commandFailed) {
                throw new DapException(trimmed.contains(" ") ? commandFailed.gdbMessage() : e.gdbMessage());
            }
        }
        return DapSession.GSON.toJsonTree(response);
    }

    private String console(Debuggee debuggee, String command) {
        session.setReplActive(true);
        try {
            boolean wasRunning = debuggee.running;
            GdbResult result = debuggee.debugger().console(command);
            if (result.resultClass().equals("running") && !wasRunning) {
                // resumed by a gdb command typed in the console: the client learns it from a continued event
                debuggee.resuming();
                session.continued(debuggee.lastStopThread);
            }
            return result.console().stripTrailing();
        } finally {
            session.setReplActive(false);
        }
    }

    private JsonElement readMemory(JsonObject args) {
        Debuggee debuggee = stopped("readMemory");
        String reference = optionalString(args, "memoryReference").orElseThrow(() ->
                new DapException("readMemory: memoryReference is required"));
        long base = GdbFrameAddress.parse(reference).orElseThrow(() ->
                new DapException("readMemory: memoryReference must be an address such as 0x7ffe1000, not " + reference));
        long address = base + optionalInteger(args, "offset").orElse(0);
        int count = integer(args, "count");
        if (count < 0 || count > MAX_MEMORY_READ) {
            throw new DapException("readMemory: count must be between 0 and " + MAX_MEMORY_READ);
        }
        ReadMemoryResponse response = new ReadMemoryResponse();
        response.setAddress("0x" + Long.toHexString(address));
        if (count == 0) {
            response.setData("");
            return DapSession.GSON.toJsonTree(response);
        }
        List<GdbDebugger.MemoryChunk> chunks;
        try {
            chunks = debuggee.debugger().readMemory(address, count);
        } catch (GdbCommandException e) {
            chunks = List.of();
        }
        // the readable prefix starting at the address; the rest is unreadable
        byte[] data = new byte[0];
        for (GdbDebugger.MemoryChunk chunk : chunks) {
            if (chunk.begin() == address) {
                data = chunk.contents();
                break;
            }
        }
        if (data.length == 0) {
            response.setUnreadableBytes(count);
        } else if (data.length < count) {
            response.setUnreadableBytes(count - data.length);
        }
        response.setData(Base64.getEncoder().encodeToString(data));
        return DapSession.GSON.toJsonTree(response);
    }

    private JsonElement openMpTree() {
        Debuggee debuggee = stopped(OPENMP_TREE_REQUEST);
        return debuggee.openMp().map(OpenMpView::tree).orElseThrow(() ->
                new DapException("no OpenMP picture: " + debuggee.openMpProblem()));
    }

    // ------------------------------------------------------------------ run control

    private interface Resume {
        void run(GdbDebugger gdb);
    }

    private JsonElement resume(String what, JsonObject args, Resume action) {
        Debuggee debuggee = debuggee(what);
        debuggee.requireRunControl(what);
        debuggee.requireStopped(what);
        if (!what.equals("continue")) {
            int thread = threadId(args);
            if (debuggee.threads().stream().noneMatch(t -> t.id() == thread)) {
                throw new DapException(what + ": no thread " + thread);
            }
        }
        debuggee.resuming();
        try {
            action.run(debuggee.debugger());
        } catch (GdbCommandException e) {
            debuggee.running = false; // it did not resume after all
            throw e;
        }
        if (what.equals("continue")) {
            ContinueResponse response = new ContinueResponse();
            response.setAllThreadsContinued(true);
            return DapSession.GSON.toJsonTree(response);
        }
        return null;
    }

    private JsonElement pause() {
        Debuggee debuggee = debuggee("pause");
        debuggee.requireRunControl("pause");
        if (!debuggee.running) {
            return null; // already stopped
        }
        debuggee.pauseRequested = true;
        debuggee.debugger().interrupt();
        return null;
    }

    private JsonElement disconnect(JsonObject args) {
        Debuggee debuggee = session.debuggee;
        if (debuggee != null && session.phase != DapSession.Phase.ENDED) {
            boolean terminate = optionalBoolean(args, "terminateDebuggee")
                    .orElse(debuggee.config.kind() == LaunchConfig.Kind.LAUNCH);
            debuggee.end(terminate);
        }
        session.endSession();
        return null;
    }

    private JsonElement terminate() {
        Debuggee debuggee = debuggee("terminate");
        if (debuggee.isCore() || debuggee.exited) {
            session.afterResponse(session::terminated);
            return null;
        }
        if (debuggee.running) {
            debuggee.pauseRequested = true;
            debuggee.debugger().interrupt();
        }
        session.afterResponse(() -> {
            try {
                debuggee.debugger().kill();
            } catch (GdbCommandException e) {
                session.log("terminate: " + e.gdbMessage());
            }
        });
        return null;
    }

    // ------------------------------------------------------------------ argument checks

    private static JsonObject object(JsonObject args, String name) {
        JsonElement value = args.get(name);
        if (value == null || !value.isJsonObject()) {
            throw new DapException("`" + name + "` must be an object");
        }
        return value.getAsJsonObject();
    }

    static int integer(JsonObject args, String name) {
        return optionalInteger(args, name).orElseThrow(() -> new DapException("`" + name + "` is required"));
    }

    static Optional<Integer> optionalInteger(JsonObject args, String name) {
        JsonElement value = args.get(name);
        if (value == null || value.isJsonNull()) {
            return Optional.empty();
        }
        if (!(value instanceof JsonPrimitive primitive) || !primitive.isNumber()) {
            throw new DapException("`" + name + "` must be a number, not " + DapSession.abbreviate(value));
        }
        double number = primitive.getAsDouble();
        if (number != Math.rint(number) || number < Integer.MIN_VALUE || number > Integer.MAX_VALUE) {
            throw new DapException("`" + name + "` must be an integer, not " + primitive);
        }
        return Optional.of((int) number);
    }

    static Optional<String> optionalString(JsonObject args, String name) {
        JsonElement value = args.get(name);
        if (value == null || value.isJsonNull()) {
            return Optional.empty();
        }
        if (!(value instanceof JsonPrimitive primitive) || !primitive.isString()) {
            throw new DapException("`" + name + "` must be a string, not " + DapSession.abbreviate(value));
        }
        return Optional.of(primitive.getAsString());
    }

    static Optional<Boolean> optionalBoolean(JsonObject args, String name) {
        JsonElement value = args.get(name);
        if (value == null || value.isJsonNull()) {
            return Optional.empty();
        }
        if (!(value instanceof JsonPrimitive primitive) || !primitive.isBoolean()) {
            throw new DapException("`" + name + "` must be true or false, not " + DapSession.abbreviate(value));
        }
        return Optional.of(primitive.getAsBoolean());
    }

    private static int threadId(JsonObject args) {
        return integer(args, "threadId");
    }

    private static boolean instruction(JsonObject args) {
        return optionalString(args, "granularity").map("instruction"::equals).orElse(false);
    }

    /** Parses "0x…" or decimal memory references. */
    private static final class GdbFrameAddress {
        static Optional<Long> parse(String text) {
            String trimmed = text.strip();
            try {
                return Optional.of(trimmed.startsWith("0x") || trimmed.startsWith("0X")
                        ? Long.parseUnsignedLong(trimmed.substring(2), 16) : Long.parseUnsignedLong(trimmed));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
    }
}
