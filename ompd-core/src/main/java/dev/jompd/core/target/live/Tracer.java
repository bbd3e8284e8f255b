package dev.jompd.core.target.live;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The one platform thread that ptraces a process: every {@code ptrace} and {@code waitpid} call for
 * it runs here, because the kernel makes the thread that attached the tracer (other threads, even of
 * the same process, get ESRCH). The thread lives exactly as long as the attachment; should it end
 * any other way (the JVM exits), the kernel detaches every thread and the program runs on.
 */
final class Tracer {
    private static final long MAX_POLL_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final int pid;
    private final ExecutorService thread;
    /** The platform thread the executor runs: the tracer, as the kernel sees it. */
    private volatile Thread tracerThread;
    // Touched only on the tracer thread.
    private Arena arena;
    private MemorySegment callState;
    private MemorySegment status;
    private MemorySegment registers;
    /** Threads in a ptrace stop, with the signal to hand back when detaching (0: none). */
    private final Map<Integer, Integer> stopped = new LinkedHashMap<>();
    /** Threads seized and interrupted whose stop has not been reported yet. */
    private final Set<Integer> pending = new LinkedHashSet<>();
    /** Every thread seized, in the order the scans found them (the leader first). */
    private final List<Integer> seizeOrder = new ArrayList<>();

    /** A thread held in a ptrace stop, with its registers (user_regs_struct, in order). */
    record StoppedThread(int tid, long[] registers) {}

    Tracer(int pid) {
        this.pid = pid;
        this.thread = Executors.newSingleThreadExecutor(task -> {
            Thread platform = Thread.ofPlatform().daemon().name("jompd-ptrace-" + pid).unstarted(task);
            tracerThread = platform;
            return platform;
        });
    }

    /** Runs {@code work} on the tracer thread and waits for it; its exception is rethrown as is. */
    private <T> T onTracerThread(Callable<T> work) {
        Future<T> future = thread.submit(work);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true; // the tracer thread's work must finish: ptrace state depends on it
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Seizes and interrupts every thread of the process and waits until each is in a ptrace stop;
     * re-scans {@code /proc/PID/task} until a scan made while everything is stopped finds no new thread.
     * On failure nothing is left stopped.
     *
     * @throws AttachException when the kernel refuses, the process exits meanwhile, or a thread does not stop in time
     */
    List<StoppedThread> attach(Duration stopTimeout) {
        return onTracerThread(() -> {
            arena = Arena.ofConfined();
            callState = LinuxNative.allocateCallState(arena);
            status = arena.allocate(ValueLayout.JAVA_INT);
            registers = arena.allocate(LinuxNative.USER_REGS_SIZE, 8);
            try {
                return attachAll(System.nanoTime() + stopTimeout.toNanos());
            } catch (RuntimeException | Error e) {
                releaseAll();
                throw e;
            }
        });
    }

    /** Every ptrace and waitpid call is made from here down: fail loudly if some path ever is not. */
    private void checkOnTracerThread() {
        if (Thread.currentThread() != tracerThread) {
            throw new IllegalStateException("ptrace call for process %d outside its tracer thread (on %s)"
                    .formatted(pid, Thread.currentThread()));
        }
    }

    private List<StoppedThread> attachAll(long deadline) {
        checkOnTracerThread();
        Set<Integer> gone = new LinkedHashSet<>();
        boolean seizedAny = false;
        while (true) {
            boolean found = false;
            for (int tid : ProcFs.threadIds(pid)) {
                if (stopped.containsKey(tid) || pending.contains(tid) || gone.contains(tid)) {
                    continue;
                }
                LinuxNative.Result seize = LinuxNative.ptrace(callState, LinuxNative.PTRACE_SEIZE, tid, 0, MemorySegment.NULL);
                if (seize.failed()) {
                    if (seize.errno() == LinuxNative.ESRCH || isGone(tid)) {
                        gone.add(tid); // exited between the scan and now (or a zombie leader)
                        continue;
                    }
                    if (seize.errno() == LinuxNative.EPERM) {
                        throw AttachException.permissionDenied(pid, tid, !seizedAny);
                    }
                    throw new AttachException(pid, AttachException.Reason.PTRACE_FAILED,
                            "cannot attach to thread %d of process %d: PTRACE_SEIZE failed with %s"
                                    .formatted(tid, pid, seize.errnoName()));
                }
                seizedAny = true;
                found = true;
                pending.add(tid);
                seizeOrder.add(tid);
                // ESRCH here means it died just now: waitpid reports its exit below.
                LinuxNative.ptrace(callState, LinuxNative.PTRACE_INTERRUPT, tid, 0, MemorySegment.NULL);
            }
            if (!found) {
                break; // every thread is stopped, so none can have started since the scan
            }
            awaitStops(deadline);
        }
        if (stopped.isEmpty()) {
            throw new AttachException(pid, seizedAny ? AttachException.Reason.EXITED_DURING_ATTACH
                    : AttachException.Reason.NO_SUCH_PROCESS, seizedAny
                    ? "process %d exited while jompd attached to it (nothing is left stopped)".formatted(pid)
                    : "process %d has no threads left (it is exiting or a zombie)".formatted(pid));
        }
        List<StoppedThread> threads = new ArrayList<>(stopped.size());
        for (int tid : seizeOrder) {
            if (!stopped.containsKey(tid)) {
                continue; // exited during the attach
            }
            LinuxNative.Result result = LinuxNative.ptrace(callState, LinuxNative.PTRACE_GETREGS, tid, 0, registers);
            if (result.failed()) {
                if (result.errno() == LinuxNative.ESRCH) {
                    continue; // killed (SIGKILL is the one thing a stop does not hold back)
                }
                throw new AttachException(pid, AttachException.Reason.PTRACE_FAILED,
                        "cannot read the registers of thread %d: PTRACE_GETREGS failed with %s".formatted(tid, result.errnoName()));
            }
            threads.add(new StoppedThread(tid, registers.toArray(ValueLayout.JAVA_LONG)));
        }
        if (threads.isEmpty()) {
            throw new AttachException(pid, AttachException.Reason.EXITED_DURING_ATTACH,
                    "process %d was killed while jompd attached to it".formatted(pid));
        }
        return threads;
    }

    private boolean isGone(int tid) {
        return ProcFs.threadState(pid, tid).map(state -> state == 'Z' || state == 'X').orElse(true);
    }

    /** Collects the stop (or exit) of every pending thread, polling so that a thread that never stops cannot hang us. */
    private void awaitStops(long deadline) {
        checkOnTracerThread();
        long pause = 10_000;
        while (!pending.isEmpty()) {
            boolean progress = false;
            for (int tid : List.copyOf(pending)) {
                LinuxNative.Result result = LinuxNative.waitpid(callState, tid, status, LinuxNative.WNOHANG | LinuxNative.WALL);
                if (result.value() == 0) {
                    continue;
                }
                progress = true;
                pending.remove(tid);
                if (result.failed()) {
                    continue; // ECHILD: no longer ours to wait for (it is gone)
                }
                int waitStatus = status.get(ValueLayout.JAVA_INT, 0);
                if (LinuxNative.stopped(waitStatus)) {
                    // PTRACE_EVENT_STOP: our interrupt or a group stop; the kernel restores a group
                    // stop by itself on detach. Anything else is a signal-delivery stop: the signal
                    // was about to be delivered, so it is handed back on detach.
                    boolean eventStop = LinuxNative.ptraceEvent(waitStatus) == LinuxNative.PTRACE_EVENT_STOP;
                    stopped.put(tid, eventStop ? 0 : LinuxNative.stopSignal(waitStatus));
                }
                // exited or killed: nothing to hold
            }
            if (!progress && !pending.isEmpty()) {
                if (System.nanoTime() - deadline > 0) {
                    int tid = pending.iterator().next();
                    throw new AttachException(pid, AttachException.Reason.STOP_TIMEOUT,
                            "thread %d of process %d did not stop within the timeout (state %s; uninterruptible sleep, D, delays stops)"
                                    .formatted(tid, pid, ProcFs.threadState(pid, tid).map(String::valueOf).orElse("gone")));
                }
                LockSupport.parkNanos(pause);
                pause = Math.min(pause * 2, MAX_POLL_PAUSE_NANOS);
            }
        }
    }

    /**
     * Detaches every thread, handing back any signal a thread was stopped for, then ends the tracer
     * thread. Idempotent; never throws for threads that died meanwhile.
     *
     * @return the threads that could not be detached and why (empty when all went well)
     */
    List<String> detach() {
        if (thread.isShutdown()) {
            return List.of();
        }
        try {
            return onTracerThread(this::releaseAll);
        } finally {
            thread.shutdown();
        }
    }

    private List<String> releaseAll() {
        checkOnTracerThread();
        List<String> problems = new ArrayList<>();
        if (arena == null) {
            return problems;
        }
        // A thread seized but not yet stopped cannot be detached: give it a moment to stop first.
        if (!pending.isEmpty()) {
            try {
                awaitStops(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500));
            } catch (AttachException e) {
                problems.add("threads %s never stopped; they are released when the tracer thread ends".formatted(pending));
            }
        }
        for (Map.Entry<Integer, Integer> entry : stopped.entrySet()) {
            int tid = entry.getKey();
            LinuxNative.Result result = LinuxNative.ptrace(callState, LinuxNative.PTRACE_DETACH, tid, 0,
                    MemorySegment.ofAddress(entry.getValue()));
            if (result.failed()) {
                // ESRCH: killed meanwhile. Reap its exit so that it is not left a traced zombie.
                LinuxNative.waitpid(callState, tid, status, LinuxNative.WNOHANG | LinuxNative.WALL);
                if (result.errno() != LinuxNative.ESRCH) {
                    problems.add("thread %d: PTRACE_DETACH failed with %s".formatted(tid, result.errnoName()));
                }
            }
        }
        stopped.clear();
        arena.close();
        arena = null;
        return problems;
    }
}
