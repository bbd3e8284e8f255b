package dev.jompd.dap.session;

import dev.jompd.core.target.TargetThread;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.dap.gdb.Gdb;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.openmp.OpenMpTarget;
import dev.jompd.dap.openmp.OpenMpView;
import dev.jompd.report.ParallelStacks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What is read of the program at one stop, each once and kept until it resumes: the thread list, the
 * OpenMP picture (or why there is none) and the parallel stacks; the {@link StopState} of the current stop
 * and the one place it is replaced ({@link #leave}, {@link #begin}). The caller says whether the program is
 * stopped: these never look at the run state.
 */
final class StopResources {
    private final DapSession session;
    private final Supplier<GdbDebugger> debugger;
    private final Duration gdbTimeout;
    private final boolean core;
    /** The program's OpenMP target, once there is a process or core (null before). */
    private OpenMpTarget openmp;
    private int generation;
    private StopState stop = new StopState(0);
    /** The last OpenMP problem said in the console: said once, not at every stop. */
    private String lastOpenMpProblem;

    StopResources(DapSession session, Supplier<GdbDebugger> debugger, Duration gdbTimeout, boolean core) {
        this.session = session;
        this.debugger = debugger;
        this.gdbTimeout = gdbTimeout;
        this.core = core;
    }

    StopState current() {
        return stop;
    }

    Optional<OpenMpTarget> openmp() {
        return Optional.ofNullable(openmp);
    }

    /** The OpenMP target of the process or core (the first one set stays). */
    void openmp(OpenMpTarget target) {
        if (openmp == null) {
            openmp = target;
        }
    }

    /** A new stop begins (a core's only one, a rehearsed one): nothing of the last one is kept. */
    StopState begin() {
        stop = new StopState(++generation);
        return stop;
    }

    /** The program resumes: this stop's gdb variable objects, handles and OpenMP picture go. */
    void leave() {
        for (String varobj : stop.varobjs) {
            debugger.get().deleteVarobj(varobj);
        }
        begin();
        if (openmp != null) {
            openmp.resumed();
        }
    }

    /** gdb reported a stop: start what every client asks next (threads, OpenMP names) before telling it. */
    void prepare() {
        stop.threadsAnswer = debugger.get().submitThreads();
        if (openmp != null) {
            openmp.prepare();
        }
    }

    /** The threads: this stop's (asked once), or gdb's answer now while the program runs. */
    List<GdbThread> threads(boolean running) {
        if (running || stop.threads == null) {
            long start = System.nanoTime();
            List<GdbThread> threads = !running && stop.threadsAnswer != null
                    ? GdbDebugger.threads(Gdb.await(stop.threadsAnswer, GdbDebugger.THREAD_INFO, gdbTimeout))
                    : debugger.get().threads();
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

    /** The OpenMP picture of this (stopped) stop, or empty with the reason kept ({@link #problem}). */
    Optional<OpenMpView> openMp() {
        if (openmp == null) {
            return Optional.empty();
        }
        if (stop.cachedView().isPresent() || stop.cachedProblem() != null) {
            return stop.cachedView();
        }
        long start = System.nanoTime();
        try {
            stop.rememberView(openmp.view(() -> threads(false)));
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
            if (!core) {
                registers = new ArrayList<>();
                for (GdbThread thread : threads(false)) {
                    if (thread.lwp().isPresent()) {
                        registers.add(TargetThread.fromRegisters(thread.lwp().getAsLong(),
                                debugger.get().registers(thread.id(), Unwinder.REGISTERS)));
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

    /** Why this stop has no OpenMP picture. */
    String problem() {
        return stop.cachedProblem() == null ? "unknown" : stop.cachedProblem().getMessage();
    }

    void close() {
        if (openmp != null) {
            openmp.close();
        }
    }
}
