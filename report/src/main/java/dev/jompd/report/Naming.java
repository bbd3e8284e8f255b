package dev.jompd.report;

import dev.jompd.core.ompd.RuntimeLocks.Lock;
import dev.jompd.report.OpenMpPicture.OpenMpThread;

/**
 * How the diagnosis's sentences name threads and the runtime's memory. For one process ({@link #PROCESS}) a thread
 * by its place and its LWP (what gdb's and the OS's thread lists show) and a lock with the runtime's object at its
 * address; for the ranks of a job ({@link #JOB}) only what means the same in every rank, whatever the OS and the
 * address-space randomisation gave it: a thread by its place, a lock by the program's variable or construct, never
 * an LWP or an address, so that ranks in one state say one sentence. Evidence that quotes libomp's memory keeps its
 * addresses either way (the job shows the findings' sentences and the threads' parts, not the evidence).
 */
public enum Naming {
    /** One process, as the command line, gdb and the DAP server show it. */
    PROCESS,
    /** A rank of a job, as the job's classes compare and show it. */
    JOB;

    /**
     * How every finding names a thread, short and the same everywhere: {@code omp 1/4 (LWP 1234)}, the team path
     * first when nested ({@code omp 1 · 2/3 (LWP 1234)}), a teams league's team before it ({@code omp team 1 · 0/2
     * (LWP 1234)}: threads of two teams have the same numbers), {@link OpenMpPicture.ThreadPlace#shortWords()};
     * a thread in no team by its gtid. For a job without the LWP.
     */
    public String thread(OpenMpThread thread) {
        return thread.place().shortWords()
                + (this == PROCESS && thread.lwp().isPresent() ? " (LWP " + thread.lwp().getAsLong() + ")" : "");
    }

    /** A thread that is no OpenMP thread of the picture, by its LWP: {@code LWP 4711}; for a job {@code a thread}. */
    String lwp(long lwp) {
        return this == PROCESS ? "LWP " + lwp : "a thread";
    }

    /** libomp's object of a lock: {@code queuing lock #3 at 0x7f…}; for a job {@code queuing lock #3}. */
    String lockObject(Lock lock) {
        return this == PROCESS ? lock.runtimeObject() : lock.runtimeLock();
    }

    /** A lock by libomp's object alone: {@link Lock#describe()}, its object as {@link #lockObject} says it. */
    String lock(Lock lock) {
        return lock.describe(lockObject(lock));
    }

    /**
     * A lock the program names ({@code lock `guard`}, {@code critical(big) at solver.c:40}), libomp's object after
     * it for one process ({@code lock `guard` (queuing lock #0 at 0x…)}); for a job the program's name alone.
     */
    String named(String name, Lock lock) {
        return this == PROCESS ? name + " (" + lock.runtimeObject() + ")" : name;
    }

    /** An address in libomp's memory: {@code 0x7f…}; for a job {@code 0x…} (another in every run). */
    String address(long address) {
        return this == PROCESS ? Text.hex(address) : "0x…";
    }
}
