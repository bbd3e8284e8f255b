package dev.jompd.dap.session;

import dev.jompd.core.launch.OpenMpLaunch;
import dev.jompd.core.launch.RecorderTool;
import dev.jompd.dap.gdb.Gdb;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.gdb.GdbException;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.mi.MiRecord;
import dev.jompd.dap.mi.MiValue;
import dev.jompd.dap.openmp.OpenMpTarget;
import dev.jompd.dap.openmp.OpenMpView;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.ParallelStacks;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The program under debug: its gdb, its output pipes, its OpenMP source, and its run state. Turns gdb's
 * async records into session events; all state changes happen on the session's worker thread.
 */
final class Debuggee implements Gdb.Listener {
    /** How a stop is told to the client. */
    record StopReport(String reason, String description, int threadId, List<Integer> hitBreakpoints) {}

    private final DapSession session;
    final LaunchConfig config;
    private Gdb gdb;
    private GdbDebugger debugger;
    private InferiorOutput output;
    private OpenMpTarget openmp;
    private volatile long pid;
    private final RunControl run = new RunControl();
    /** How long ending the session waits for the interrupted program's stop before killing or detaching. */
    private static final java.time.Duration STOP_BEFORE_ENDING = java.time.Duration.ofSeconds(3);
    /** configurationDone came: stops are the client's to hear of (before it, an attach's stop is kept). */
    private boolean configured;
    /** A launch with stopOnEntry whose temporary breakpoint at main has not been hit yet. */
    private boolean stopAtEntryPending;
    /** Run state as gdb last said it, updated on gdb's reader thread (the worker may be blocked). */
    private final GdbRunSignal gdbRun = new GdbRunSignal();
    private int generation;
    private StopState stop = new StopState(0);
    /** A stop gdb reported before configurationDone (attach), told to the client then if asked to. */
    private StopReport initialStop;
    /** The thread the last stop happened in: the "selected" thread of REPL commands. */
    private int lastStopThread = 1;
    /** A stepIn going into the OpenMP code its line starts, between its stops; null otherwise. */
    private OpenMpStepIn openMpStep;
    private String lastOpenMpProblem;

    Debuggee(DapSession session, LaunchConfig config) {
        this.session = session;
        this.config = config;
    }

    /**
     * A program stopped with {@code threads} and no gdb behind it, on which the warm-up rehearses what a
     * client asks at a stop. Only what the thread list answers works: threads, top frames, scopes.
     */
    static Debuggee rehearsal(DapSession session, List<GdbThread> threads) {
        Debuggee debuggee = new Debuggee(session, new LaunchConfig(LaunchConfig.Kind.LAUNCH, Optional.empty(),
                List.of(), Optional.empty(), Map.of(), Optional.empty(), OptionalLong.empty(), "gdb", false,
                LaunchConfig.DEFAULT_GDB_TIMEOUT, List.of(), OpenMpLaunch.RuntimeChoice.PROGRAM, false));
        debuggee.configured = true;
        debuggee.rehearseStop(threads);
        return debuggee;
    }

    /** The next stop of a {@link #rehearsal}. */
    void rehearseStop(List<GdbThread> threads) {
        run.moveTo(RunState.STOPPED);
        stop = new StopState(++generation);
        stop.threads = threads;
    }

    /** The launch attribute {@code recorder}: the environment that loads the jompd-recorder, said in the console. */
    private Map<String, String> withRecorder(Map<String, String> environment) {
        java.nio.file.Path library;
        try {
            library = RecorderTool.library(RecorderTool.script(serverHome()), environment,
                    line -> session.output("console", "jompd-recorder: " + line + "\n"));
        } catch (IllegalStateException e) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "launch: `recorder`: " + e.getMessage(), e);
        }
        session.output("console", "jompd: " + RecorderTool.notice(environment, library) + "\n");
        return RecorderTool.environment(environment, library);
    }

    /** The server's installation (its jar's directory's parent), or the build tree's module directory. */
    private static java.nio.file.Path serverHome() {
        try {
            java.nio.file.Path code = java.nio.file.Path.of(Debuggee.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return code.getParent().getParent();
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return java.nio.file.Path.of(".").toAbsolutePath();
        }
    }

    GdbDebugger debugger() {
        return debugger;
    }

    /** Starts gdb and loads the program, the core or attaches; the program does not run yet. */
    void start() {
        Map<String, String> environment = new LinkedHashMap<>(System.getenv());
        if (config.kind() == LaunchConfig.Kind.LAUNCH) {
            environment.putAll(config.environment());
            // libomp tracks thread states, task frames and tool data only with OMP_DEBUG=enabled
            environment.putIfAbsent("OMP_DEBUG", "enabled");
            if (config.program().isPresent()) {
                // gcc/gfortran programs run on jompd's libomp (GCC's libgomp has no debugging interface): said
                // in the debug console, as the launch attribute openmpRuntime chooses.
                OpenMpLaunch.Launch launch = OpenMpLaunch.decide(config.program().get(), config.openmpRuntime(), environment);
                environment = new LinkedHashMap<>(launch.environment());
                if (!launch.message().isEmpty()) {
                    session.output("console", "jompd: " + launch.message() + "\n");
                }
            }
            if (config.recorder()) {
                environment = new LinkedHashMap<>(withRecorder(environment));
            }
        }
        gdb = Gdb.start(config.gdbPath(), List.of(), environment, config.cwd().orElse(null), config.gdbTimeout(), this);
        debugger = new GdbDebugger(gdb);
        debugger.configure();
        for (String command : config.setupCommands()) {
            debugger.console(command);
        }
        config.program().ifPresent(debugger::loadProgram);
        switch (config.kind()) {
            case LAUNCH -> {
                config.cwd().ifPresent(debugger::setWorkingDirectory);
                try {
                    output = InferiorOutput.open((category, text) -> session.output(category, text));
                } catch (IOException e) {
                    throw new DapException(ErrorId.LAUNCH_FAILED, "cannot create the pipes for the program's output: " + e.getMessage(), e);
                }
                debugger.setArguments((ShellQuoting.join(config.args()) + " " + output.redirections()).strip());
            }
            case ATTACH -> {
                pid = config.processId().orElseThrow();
                var attachStop = gdbRun.nextStop();
                debugger.attach(pid);
                // gdb reports the attach stop after its answer: wait for it, so that it is handled (on the
                // worker, right after this request) before configurationDone
                GdbRunSignal.await(attachStop, config.gdbTimeout());
                openmp = OpenMpTarget.live(pid);
            }
            case CORE -> {
                debugger.loadCore(config.core().orElseThrow());
                Warmup.realStopBegins();
                run.moveTo(RunState.STOPPED);
                openmp = OpenMpTarget.core(config.core().orElseThrow());
                generation++;
                stop = new StopState(generation);
            }
        }
    }

    // ------------------------------------------------------------------ run control

    void run() {
        stopAtEntryPending = config.stopOnEntry();
        run.moveTo(RunState.RUNNING);
        debugger.run(config.stopOnEntry());
    }

    /**
     * Called before every resume, {@code how} being RUNNING or STEPPING: the stop's handles and OpenMP
     * picture become stale. gdb's *running that follows is then no news.
     */
    void resuming(RunState how) {
        leaveStop(how);
    }

    /** A resume gdb refused: the program is still where it stopped (its handles are gone already). */
    void resumeFailed() {
        run.moveTo(RunState.STOPPED);
    }

    /** The client's pause (or terminate's): interrupts the running program; its next stop is a pause. */
    void pause() {
        if (run.isRunning() && !run.is(RunState.PAUSING)) {
            run.moveTo(RunState.PAUSING);
            debugger.interrupt();
        }
    }

    private void leaveStop(RunState how) {
        boolean wasRunning = run.isRunning();
        run.moveTo(how);
        if (!wasRunning) {
            for (String varobj : stop.varobjs) {
                debugger.deleteVarobj(varobj);
            }
            stop = new StopState(++generation);
            if (openmp != null) {
                openmp.resumed();
            }
        }
    }

    /** The stop gdb reported before configurationDone (attach), if any. */
    Optional<StopReport> initialStop() {
        return Optional.ofNullable(initialStop);
    }

    /** The thread the last stop happened in. */
    int lastStopThread() {
        return lastStopThread;
    }

    RunState runState() {
        return run.state();
    }

    boolean isRunning() {
        return run.isRunning();
    }

    /** The program exited or was killed, or gdb is gone: nothing to run or read. */
    boolean hasEnded() {
        return run.state() == RunState.EXITED || run.state() == RunState.TERMINATED;
    }

    boolean isDisconnecting() {
        return run.is(RunState.DISCONNECTING);
    }

    /** configurationDone: returns false when it had come already. */
    boolean configure() {
        if (configured) {
            return false;
        }
        configured = true;
        return true;
    }

    /** gdb exited or crashed: no program any more. */
    void gdbGone() {
        if (!run.is(RunState.TERMINATED)) {
            run.moveTo(RunState.TERMINATED);
        }
    }

    StopState stop() {
        return stop;
    }

    boolean isCore() {
        return config.kind() == LaunchConfig.Kind.CORE;
    }

    void requireStopped(String what) {
        switch (run.state()) {
            case STOPPED -> { }
            case RUNNING, STEPPING, PAUSING -> throw new DapException(ErrorId.NOT_STOPPED,
                    what + ": the program is running (pause it first)");
            case NOT_STARTED -> throw new DapException(ErrorId.NOT_STOPPED, what + ": the program has not started yet");
            case EXITED, DISCONNECTING, TERMINATED -> throw new DapException(ErrorId.PROGRAM_EXITED,
                    what + ": the program has exited");
        }
    }

    void requireRunControl(String what) {
        if (isCore()) {
            throw new DapException(ErrorId.NO_RUN_CONTROL, what + ": a core file cannot run (post-mortem session)");
        }
        if (run.isOver()) {
            throw new DapException(ErrorId.PROGRAM_EXITED, what + ": the program has exited");
        }
    }

    List<GdbThread> threads() {
        boolean running = run.isRunning();
        if (running || stop.threads == null) {
            long start = System.nanoTime();
            List<GdbThread> threads = !running && stop.threadsAnswer != null
                    ? GdbDebugger.threads(Gdb.await(stop.threadsAnswer, GdbDebugger.THREAD_INFO, config.gdbTimeout()))
                    : debugger.threads();
            if (Boolean.getBoolean("jompd.dap.timing")) {
                session.log("-thread-info: " + threads.size() + " threads in " + (System.nanoTime() - start) / 1_000_000 + " ms");
            }
            if (running) {
                return threads;
            }
            stop.threads = threads;
        }
        return stop.threads;
    }

    /** The OpenMP picture of this stop, or empty with the reason when there is none. */
    Optional<OpenMpView> openMp() {
        if (!run.is(RunState.STOPPED) || openmp == null) {
            return Optional.empty();
        }
        if (stop.cachedView().isPresent() || stop.cachedProblem() != null) {
            return stop.cachedView();
        }
        long start = System.nanoTime();
        try {
            stop.rememberView(openmp.view(this::threads));
            if (Boolean.getBoolean("jompd.dap.timing")) {
                session.log("OpenMP picture of stop " + stop.generation + " opened in "
                        + (System.nanoTime() - start) / 1_000_000 + " ms");
            }
        } catch (OpenMpTarget.UnavailableException e) {
            stop.rememberProblem(e);
        } catch (RuntimeException e) {
            stop.rememberProblem(new OpenMpTarget.UnavailableException("reading OpenMP failed: " + e, e));
        }
        if (stop.cachedProblem() != null && !stop.cachedProblem().getMessage().equals(lastOpenMpProblem)) {
            lastOpenMpProblem = stop.cachedProblem().getMessage();
            session.output("console", "jompd-dap: " + lastOpenMpProblem + "\n");
        }
        return stop.cachedView();
    }

    /**
     * This stop's parallel stacks, unwound by jompd's own unwinder over the session's address space once per
     * stop (kept with the stop, dropped when the program resumes): a core has the threads' registers, a live
     * process gdb holds gets them from gdb. Empty when the stop has no OpenMP picture.
     */
    Optional<ParallelStacks> parallelStacks() {
        Optional<OpenMpView> view = openMp();
        if (view.isEmpty()) {
            return Optional.empty();
        }
        if (stop.stacks == null) {
            long start = System.nanoTime();
            var space = view.get().process().target();
            List<TargetThread> registers = space.threads();
            if (!isCore()) {
                registers = new ArrayList<>();
                for (GdbThread thread : threads()) {
                    if (thread.lwp().isPresent()) {
                        registers.add(new TargetThread(thread.lwp().getAsLong(),
                                debugger.registers(thread.id(), Unwinder.REGISTERS)));
                    }
                }
            }
            try (Unwinder unwinder = new Unwinder(space, view.get().debugInfo())) {
                stop.stacks = ParallelStacks.of(view.get().picture(), registers, unwinder);
            }
            if (Boolean.getBoolean("jompd.dap.timing")) {
                session.log("parallel stacks of stop " + stop.generation + " in " + (System.nanoTime() - start) / 1_000_000 + " ms");
            }
        }
        return Optional.of(stop.stacks);
    }

    /** Why {@link #openMp()} is empty. */
    String openMpProblem() {
        if (openmp == null || run.is(RunState.NOT_STARTED)) {
            return "the program has not started yet";
        }
        if (run.isRunning()) {
            return "the program is running";
        }
        if (run.isOver()) {
            return "the program has exited";
        }
        return stop.cachedProblem() == null ? "unknown" : stop.cachedProblem().getMessage();
    }

    // ------------------------------------------------------------------ stepping into OpenMP code

    /** DAP stepIn on a line: like gdb's step, and into the OpenMP code the line starts ({@link OpenMpStepIn}). */
    void stepIn(int thread) {
        openMpStep = OpenMpStepIn.start(debugger, openmp, session::log, thread).orElse(null);
    }

    // ------------------------------------------------------------------ gdb's async output

    @Override
    public void onAsync(MiRecord.AsyncRecord record) {
        if (record.kind() == MiRecord.AsyncKind.EXEC) {
            if (record.asyncClass().equals("running")) {
                gdbRun.running();
            } else {
                gdbRun.stopped(); // read at once by attach and end, which block the worker
            }
        }
        session.post(() -> handleAsync(record));
    }

    @Override
    public void onStream(MiRecord.StreamRecord record) {
        switch (record.kind()) {
            case CONSOLE -> { if (!session.replActive()) session.output("console", record.text()); }
            case TARGET -> session.output("stdout", record.text());
            case LOG -> { if (!session.replActive()) session.output("console", record.text()); }
        }
    }

    @Override
    public void onNoise(String line, String problem) {
        session.log("gdb: " + problem + ": " + line);
    }

    @Override
    public void onExit(String description) {
        gdbRun.gone();
        session.post(() -> session.gdbEnded(description));
    }

    private void handleAsync(MiRecord.AsyncRecord record) {
        MiValue.Tuple results = record.results();
        switch (record.asyncClass()) {
            case "running" -> {
                // the client's resumes moved to RUNNING or STEPPING already, and gdb also says *running for
                // each thread created while running: news only when something else resumed a stopped program
                if (!run.isRunning() && !run.isOver()) {
                    leaveStop(RunState.RUNNING);
                    if (configured) {
                        session.continued(results.string("thread-id").filter(id -> !id.equals("all")).map(Integer::parseInt).orElse(1));
                    }
                }
            }
            case "stopped" -> handleStopped(results);
            case "thread-group-started" -> results.string("pid").ifPresent(text -> {
                pid = Long.parseLong(text);
                if (openmp == null) {
                    openmp = OpenMpTarget.live(pid);
                }
            });
            case "thread-group-exited" -> {
                if (!run.isOver()) {
                    Optional<String> code = results.string("exit-code");
                    if (code.isPresent()) {
                        exited(exitCode(code.get()));
                    } else {
                        // killed (terminate, or from the console): no exit code to tell
                        run.moveTo(RunState.TERMINATED);
                        session.terminated();
                    }
                }
            }
            case "thread-created" -> results.string("id").ifPresent(id -> session.threadEvent("started", Integer.parseInt(id)));
            case "thread-exited" -> results.string("id").ifPresent(id -> session.threadEvent("exited", Integer.parseInt(id)));
            case "library-loaded", "library-unloaded" -> {
                if (openmp != null) {
                    openmp.librariesChanged();
                }
            }
            case "breakpoint-modified" -> results.get("bkpt").ifPresent(session::breakpointModified);
            default -> { }
        }
    }

    private void handleStopped(MiValue.Tuple results) {
        if (run.isOver()) {
            return; // exited, or disconnect is ending it: no stop to tell
        }
        String reason = results.string("reason").orElse("");
        if (reason.startsWith("exited")) {
            openMpStep = null;
            exited(results.string("exit-code").map(Debuggee::exitCode).orElse(reason.equals("exited-signalled") ? 128 : 0));
            return;
        }
        if (openMpStep != null) {
            if (openMpStep.movesOn(reason, results)) {
                return; // a stop on the way: the client hears of the step's end only
            }
            openMpStep = null;
        }
        boolean pausing = run.is(RunState.PAUSING);
        run.moveTo(RunState.STOPPED);
        Warmup.realStopBegins();
        int threadId = results.string("thread-id").map(Integer::parseInt).orElse(1);
        lastStopThread = threadId;
        StopReport report = describeStop(reason, results, threadId, pausing);
        // start what every client asks next (threads, OpenMP names) before telling it about the stop
        stop.threadsAnswer = debugger.submitThreads();
        if (openmp != null) {
            openmp.prepare();
        }
        if (!configured) {
            initialStop = report;
            return;
        }
        session.stopped(report);
    }

    private StopReport describeStop(String reason, MiValue.Tuple results, int threadId, boolean pauseRequested) {
        return switch (reason) {
            case "breakpoint-hit" -> {
                int number = results.string("bkptno").map(Integer::parseInt).orElse(-1);
                if (stopAtEntryPending && results.string("disp").map("del"::equals).orElse(false)) {
                    stopAtEntryPending = false;
                    yield new StopReport("entry", "Stopped at main", threadId, List.of());
                }
                yield session.breakpointStop(number, threadId);
            }
            case "end-stepping-range", "function-finished", "location-reached" ->
                    new StopReport("step", null, threadId, List.of());
            case "signal-received" -> {
                String signal = results.string("signal-name").orElse("?");
                if (pauseRequested && (signal.equals("SIGINT") || signal.equals("0") || signal.equals("SIGSTOP"))) {
                    yield new StopReport("pause", null, threadId, List.of());
                }
                yield new StopReport("exception", "Signal " + signal + results.string("signal-meaning")
                        .map(meaning -> ", " + meaning).orElse(""), threadId, List.of());
            }
            case "watchpoint-trigger", "read-watchpoint-trigger", "access-watchpoint-trigger" ->
                    new StopReport("data breakpoint", null, threadId, List.of());
            case "" -> new StopReport(pauseRequested ? "pause" : "entry", null, threadId, List.of());
            default -> new StopReport("pause", reason, threadId, List.of());
        };
    }

    /** gdb prints exit codes in octal ("01", "0377"). */
    static int exitCode(String text) {
        try {
            return text.startsWith("0") && text.length() > 1 ? Integer.parseInt(text.substring(1), 8) : Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private void exited(int code) {
        run.moveTo(RunState.EXITED);
        if (output != null) {
            output.drain(java.time.Duration.ofMillis(500)); // the program's last words before its exit
        }
        session.exited(code);
    }

    // ------------------------------------------------------------------ ending

    /** Ends the session's hold on the program: kill it (launch) or let it go (attach), then end gdb. */
    void end(boolean terminateProgram) {
        try {
            if (gdb != null && gdb.isAlive() && !isCore() && !run.isOver() && pid > 0) {
                if (run.isRunning() || gdbRun.isRunning()) {
                    if (run.isRunning() && !run.is(RunState.PAUSING)) {
                        run.moveTo(RunState.PAUSING);
                    }
                    try {
                        debugger.interrupt();
                    } catch (dev.jompd.dap.gdb.GdbCommandException alreadyStopped) {
                        // it stopped by itself meanwhile
                    }
                    gdbRun.awaitStopped(STOP_BEFORE_ENDING);
                }
                run.moveTo(RunState.DISCONNECTING);
                if (terminateProgram) {
                    debugger.kill();
                } else {
                    debugger.detach();
                }
            }
        } catch (GdbException | DapException e) {
            session.log("ending the program: " + e.getMessage());
        } finally {
            close();
        }
    }

    /** Kills gdb at once (it hangs). */
    void killGdb() {
        if (gdb != null) {
            gdb.kill();
        }
    }

    void close() {
        if (gdb != null) {
            gdb.close();
        }
        if (output != null) {
            output.close();
        }
        if (openmp != null) {
            openmp.close();
        }
    }
}
