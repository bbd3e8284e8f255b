package dev.jompd.dap.session;

import dev.jompd.core.launch.OpenMpLaunch;
import dev.jompd.core.ompd.RuntimeEntryPoints;
import dev.jompd.core.target.BuildIdMismatchException;
import dev.jompd.dap.gdb.Gdb;
import dev.jompd.dap.gdb.GdbCommandException;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.gdb.GdbException;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.mi.MiRecord;
import dev.jompd.dap.mi.MiValue;
import dev.jompd.dap.openmp.OpenMpTarget;
import dev.jompd.dap.openmp.OpenMpView;
import dev.jompd.report.ParallelStacks;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The program under debug: its gdb, its output pipes, its OpenMP source, and its run state. Turns gdb's
 * async records into session events; all state changes happen on the session's worker thread. The jobs
 * around it are their own classes: the environment it starts with ({@link LaunchEnvironment}), its run
 * state ({@link RunControl}), what is read at a stop ({@link StopResources}), stepping into OpenMP code
 * ({@link OpenMpStepIn}), how stops are told ({@link StopReasons}), its output ({@link InferiorOutput}) and
 * gdb's run state as gdb's reader thread hears it ({@link GdbRunSignal}).
 */
final class Debuggee implements Gdb.Listener {
    /** How a stop is told to the client. */
    record StopReport(String reason, String description, int threadId, List<Integer> hitBreakpoints) {}

    /**
     * The answer to continue, step and pause on a core: the same words for each, as the client shows the
     * message of the button pressed (not the request's name).
     */
    static final String NO_RUN_CONTROL_ON_CORE = "A core file cannot run or step: this post-mortem session shows the "
            + "program as the core recorded it, and its threads, stacks and OpenMP picture stay as they are";

    /** How long ending the session waits for the interrupted program's stop before killing or detaching. */
    private static final Duration STOP_BEFORE_ENDING = Duration.ofSeconds(3);
    /** How long the program's last output may take to reach the client before its exit is told. */
    private static final Duration LAST_OUTPUT = Duration.ofMillis(500);

    private final DapSession session;
    private final LaunchConfig config;
    private Gdb gdb;
    private GdbDebugger debugger;
    private InferiorOutput output;
    private volatile long pid;
    private final RunControl run = new RunControl();
    private final StopResources stops;
    private final StopReasons reasons;
    /** Run state as gdb last said it, updated on gdb's reader thread (the worker may be blocked). */
    private final GdbRunSignal gdbRun = new GdbRunSignal();
    /** configurationDone came: stops are the client's to hear of (before it, an attach's stop is kept). */
    private boolean configured;
    /** A stop gdb reported before configurationDone (attach), told to the client then if asked to. */
    private StopReport initialStop;
    /** The thread the last stop happened in: the "selected" thread of REPL commands. */
    private int lastStopThread = 1;
    /** Where the OpenMP runtime's code is (gdb's address ranges of its libraries); null until asked, or after libraries changed. */
    private List<long[]> runtimeCode;
    /**
     * A stepIn going into the OpenMP code its line starts, or a next that may leave it, between its stops;
     * null otherwise.
     */
    private OpenMpStep openMpStep;
    /**
     * Whether a stepIn into OpenMP code is under way: gdb's console lines of its helper stops ("hit Breakpoint 2,
     * __kmp_invoke_microtask ()", the outlined function's arguments it cannot read) are not the user's to read.
     * Read on the gdb reader's thread, hence volatile.
     */
    private volatile boolean steppingIntoOpenMp;

    Debuggee(DapSession session, LaunchConfig config) {
        this.session = session;
        this.config = config;
        this.stops = new StopResources(session, () -> debugger, config.gdbTimeout(), config.kind() == LaunchConfig.Kind.CORE);
        this.reasons = new StopReasons(session::breakpointStop);
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
        stops.begin().threads = threads;
    }

    LaunchConfig config() {
        return config;
    }

    GdbDebugger debugger() {
        return debugger;
    }

    /** Starts gdb and loads the program, the core or attaches; the program does not run yet. */
    void start() {
        if (config.kind() == LaunchConfig.Kind.CORE) {
            // before gdb: a core with files of another build is refused with the command line's words
            OpenMpTarget.Core core = OpenMpTarget.core(config.core().orElseThrow(), config.program());
            stops.openmp(core);
            try {
                core.refuseOtherBuilds();
            } catch (BuildIdMismatchException mismatch) {
                throw new DapException(ErrorId.PROGRAM_CANNOT_START, mismatch.getMessage(), mismatch);
            }
        }
        Map<String, String> environment = LaunchEnvironment.of(config, text -> session.output("console", text));
        gdb = Gdb.start(config.gdbPath(), List.of(), environment, config.cwd().orElse(null), config.gdbTimeout(), this);
        debugger = new GdbDebugger(gdb);
        debugger.configure();
        for (LaunchConfig.SetupCommand command : config.setupCommands()) {
            try {
                if (command.mi()) {
                    debugger.mi(command.text());
                } else {
                    debugger.console(command.text());
                }
            } catch (GdbCommandException e) {
                if (!command.ignoreFailures()) {
                    throw e;
                }
                session.output("console", "setupCommands: " + command.text() + ": " + e.gdbMessage() + " (ignoreFailures)\n");
            }
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
                stops.openmp(OpenMpTarget.live(pid));
            }
            case CORE -> {
                debugger.loadCore(config.core().orElseThrow());
                Warmup.realStopBegins();
                run.moveTo(RunState.STOPPED);
                stops.begin();
            }
        }
    }

    // ------------------------------------------------------------------ run control

    void run() {
        reasons.running(config.stopOnEntry());
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
        if (run.moveTo(how).isRunning()) {
            return; // not stopped: nothing of a stop to drop
        }
        stops.leave();
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

    boolean isCore() {
        return config.kind() == LaunchConfig.Kind.CORE;
    }

    void requireStopped(String what) {
        run.requireStopped(what);
    }

    void requireRunControl(String what) {
        if (isCore()) {
            throw new DapException(ErrorId.NO_RUN_CONTROL, NO_RUN_CONTROL_ON_CORE);
        }
        if (run.isOver()) {
            throw new DapException(ErrorId.PROGRAM_EXITED, what + ": the program has exited");
        }
    }

    // ------------------------------------------------------------------ what is read at a stop

    StopState stop() {
        return stops.current();
    }

    List<GdbThread> threads() {
        return stops.threads(run.isRunning());
    }

    /** The OpenMP picture of this stop, or empty with the reason when there is none. */
    Optional<OpenMpView> openMp() {
        return run.is(RunState.STOPPED) ? stops.openMp() : Optional.empty();
    }

    /** This stop's parallel stacks ({@link StopResources#parallelStacks}); empty when it has no OpenMP picture. */
    Optional<ParallelStacks> parallelStacks() {
        return run.is(RunState.STOPPED) ? stops.parallelStacks() : Optional.empty();
    }

    /**
     * Why {@link #openMp()} is empty, as the one sentence every door says (the reading's reason names the target:
     * "process 1007 has no OpenMP runtime loaded (...)").
     */
    String openMpProblem() {
        if (stops.openmp().isEmpty() || run.is(RunState.NOT_STARTED)) {
            return "no OpenMP picture: the program has not started yet";
        }
        if (run.isRunning()) {
            return "no OpenMP picture while the program runs";
        }
        if (run.isOver()) {
            return "no OpenMP picture: the program has exited";
        }
        return stops.problem();
    }

    /**
     * Where the OpenMP runtime's code is: the address ranges gdb gives for the libraries {@code libomp*}, read at
     * the first stop that needs them and again after libraries were loaded or unloaded; none without gdb (the
     * warm-up's rehearsal) or when gdb cannot say.
     */
    List<long[]> runtimeCode() {
        if (runtimeCode == null) {
            try {
                runtimeCode = debugger == null ? List.of() : debugger.libraryRanges(RuntimeEntryPoints::isRuntimeLibrary);
            } catch (GdbCommandException e) {
                return List.of();
            }
        }
        return runtimeCode;
    }

    // ------------------------------------------------------------------ stepping into OpenMP code

    /** DAP stepIn on a line: like gdb's step, and into the OpenMP code the line starts ({@link OpenMpStepIn}). */
    void stepIn(int thread) {
        steppingIntoOpenMp = true; // before the first move: its console lines may come at once
        try {
            openMpStep = OpenMpStepIn.start(debugger, stops.openmp().orElse(null), session::log, thread).orElse(null);
        } finally {
            steppingIntoOpenMp = openMpStep != null;
        }
    }

    /** DAP next on a line: like gdb's next, and out of the OpenMP code it leaves ({@link OpenMpStepOver}). */
    void stepOver(int thread) {
        steppingIntoOpenMp = true; // its finishes' console lines ("Run till exit from") are not the user's either
        try {
            openMpStep = OpenMpStepOver.start(debugger, session::log, thread).orElse(null);
        } finally {
            steppingIntoOpenMp = openMpStep != null;
        }
    }

    // ------------------------------------------------------------------ gdb's async output

    @Override
    public void onAsync(MiRecord.AsyncRecord record) {
        // Queued before the run signal releases a worker blocked on it (attach, end): the stop is handled before
        // any request the client sends after that request's answer. Signalled first, a loaded machine could let
        // configurationDone in ahead of an attach's stop, which then reached the client twice.
        session.post(() -> handleAsync(record));
        if (record.kind() == MiRecord.AsyncKind.EXEC) {
            if (record.asyncClass().equals("running")) {
                gdbRun.running();
            } else {
                gdbRun.stopped(); // read at once by attach and end, which block the worker
            }
        }
    }

    @Override
    public void onStream(MiRecord.StreamRecord record) {
        switch (record.kind()) {
            case CONSOLE -> { if (!session.replActive() && !steppingIntoOpenMp) session.output("console", record.text()); }
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
                if (stops.openmp().isEmpty()) {
                    stops.openmp(OpenMpTarget.live(pid));
                }
            });
            case "thread-group-exited" -> {
                if (!run.isOver()) {
                    Optional<String> code = results.string("exit-code");
                    if (code.isPresent()) {
                        exited(StopReasons.exitCode(code.get()));
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
                runtimeCode = null;
                stops.openmp().ifPresent(OpenMpTarget::librariesChanged);
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
            steppingIntoOpenMp = false;
            exited(results.string("exit-code").map(StopReasons::exitCode).orElse(reason.equals("exited-signalled") ? 128 : 0));
            return;
        }
        if (openMpStep != null) {
            if (openMpStep.movesOn(reason, results)) {
                return; // a stop on the way: the client hears of the step's end only
            }
            openMpStep = null;
            steppingIntoOpenMp = false;
        }
        boolean pausing = run.is(RunState.PAUSING);
        run.moveTo(RunState.STOPPED);
        Warmup.realStopBegins();
        int threadId = results.string("thread-id").map(Integer::parseInt).orElse(1);
        lastStopThread = threadId;
        StopReport report = reasons.describe(reason, results, threadId, pausing);
        stops.prepare();
        if (!configured) {
            initialStop = report;
            return;
        }
        session.stopped(report);
    }

    private void exited(int code) {
        run.moveTo(RunState.EXITED);
        if (output != null) {
            output.drain(LAST_OUTPUT); // the program's last words before its exit
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
                    } catch (GdbCommandException alreadyStopped) {
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
        stops.close();
    }
}
