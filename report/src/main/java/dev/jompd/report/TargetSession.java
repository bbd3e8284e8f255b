package dev.jompd.report;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.ModuleFileCache;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.core.unwind.NativeStack;
import dev.jompd.core.unwind.Unwinder;

import java.util.List;
import java.util.Optional;

/**
 * The one way a process or a core is inspected, for every door (the command line's {@code inspect} and
 * {@code diagnose}, gdb's bridge, the DAP server), each rank of a job and the tests: the address space, OMPD on it,
 * the names of its code kept across stops, and the picture of the current stop with its threads' parallel stacks,
 * each taken once for every request of that stop ({@link #inspect}: picture, stacks, diagnosis). The door says when the target ran ({@link #resumed()}: the one place a stop's
 * caches die, the backend's among them) and when it is another target (close this session and open a
 * new one: modules changed, another process or core).
 *
 * <p>Owns the address space: {@link #close()} closes it. Thread-safe.
 */
public final class TargetSession implements AutoCloseable {
    private final AddressSpace space;
    private final String kind;
    private final String name;
    private final Symbolizer symbols;
    private final CodeNames codeNames;
    /** OMPD on the target; null until the runtime is found and initialised. */
    private AddressSpaceHandle process;
    /** This stop's picture, taken on first use; dropped when the stop ends. */
    private OpenMpPicture picture;
    /** Unwinds the threads; made on first use. */
    private Unwinder unwinder;
    /** This stop's parallel stacks, taken on first use; dropped when the stop ends. */
    private ParallelStacks stacks;
    /** The threads being unwound on a second thread ({@link #unwindAside()}); null when they are not. */
    private Unwinding unwinding;

    /**
     * @param kind {@code core}, {@code pid} or {@code remote}, as {@link TargetDescription#kind()}
     * @param name the core file, the process id or the connection, as {@link TargetDescription#name()}
     */
    public TargetSession(AddressSpace space, String kind, String name) {
        this.space = space;
        this.kind = kind;
        this.name = name;
        this.symbols = new Symbolizer(space);
        this.codeNames = new CodeNames(symbols);
    }

    /**
     * A session whose modules' files and debug information come from caches shared with other sessions (the ranks
     * of a job run the same executable and libraries: each is parsed once for all of them).
     */
    public TargetSession(AddressSpace space, String kind, String name, ModuleFileCache files, DebugInfoCache debugInfo) {
        this.space = space;
        this.kind = kind;
        this.name = name;
        this.symbols = new Symbolizer(space, files);
        this.codeNames = new CodeNames(symbols, debugInfo);
    }

    /** One inspection: the picture of this stop, its threads' parallel stacks when asked for, and the diagnosis. */
    public record Inspection(OpenMpPicture picture, Optional<ParallelStacks> stacks) {
        /** The hang diagnosis in one process's words (computed at each call). */
        public List<Diagnosis.Finding> findings() {
            return findings(Naming.PROCESS);
        }

        /** The hang diagnosis, its threads and locks named as {@code naming} says (computed at each call). */
        public List<Diagnosis.Finding> findings(Naming naming) {
            return Diagnosis.of(picture, stacks, naming);
        }
    }

    /** This stop's picture and, with {@code withStacks}, its parallel stacks. */
    public Inspection inspect(boolean withStacks) {
        OpenMpPicture taken = picture();
        return new Inspection(taken, withStacks ? Optional.of(stacks()) : Optional.empty());
    }

    /**
     * Starts unwinding every thread on a second thread, for {@link #stacks()} to take: a core's threads are unwound
     * while this thread takes the OpenMP picture (the two read different things: registers, stacks and debug
     * information; the runtime's memory), a cold run's two biggest parts side by side. Not for a live process
     * (one ptrace thread reads it).
     */
    public synchronized void unwindAside() {
        if (unwinding == null && stacks == null) {
            unwinding = new Unwinding(unwinder());
            unwinding.start();
        }
    }

    /** The parallel stacks of this stop, taken once (from {@link #unwindAside()}'s unwinding when it runs). */
    public ParallelStacks stacks() {
        Unwinding aside;
        synchronized (this) {
            if (stacks != null) {
                return stacks;
            }
            aside = unwinding;
        }
        OpenMpPicture taken = picture();
        ParallelStacks made = aside != null ? ParallelStacks.ofUnwound(taken, aside.stacks())
                : ParallelStacks.of(taken, space, unwinder());
        synchronized (this) {
            unwinding = null;
            stacks = made;
            return made;
        }
    }

    private synchronized Unwinder unwinder() {
        if (unwinder == null) {
            unwinder = new Unwinder(space, codeNames.debugInfo());
        }
        return unwinder;
    }

    /** Every thread unwound on a second thread: its stacks, or what it threw (thrown again to whoever takes them). */
    private static final class Unwinding extends Thread {
        private final Unwinder unwinder;
        private volatile List<NativeStack> stacks;
        private volatile Throwable thrown;

        Unwinding(Unwinder unwinder) {
            super("jompd-unwind");
            setDaemon(true);
            this.unwinder = unwinder;
        }

        @Override
        public void run() {
            try {
                stacks = unwinder.unwindAll();
            } catch (RuntimeException | Error e) {
                thrown = e;
            }
        }

        /** The stacks, once the thread is done; what it threw, thrown here. */
        List<NativeStack> stacks() {
            awaitEnd();
            if (thrown instanceof RuntimeException failure) {
                throw failure;
            }
            if (thrown instanceof Error error) {
                throw error;
            }
            return stacks;
        }

        /** Waits for the thread to end: the space it reads stays open until then. */
        void awaitEnd() {
            boolean interrupted = false;
            while (isAlive()) {
                try {
                    join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public AddressSpace space() {
        return space;
    }

    public Symbolizer symbols() {
        return symbols;
    }

    /** Names of code, kept while the target is the same. */
    public CodeNames codeNames() {
        return codeNames;
    }

    /**
     * OMPD on the target, initialised on first use; until that succeeds it is tried again at each call
     * (libomp may be loaded or initialised meanwhile).
     *
     * @throws dev.jompd.core.ompd.OmpdException when the target has no (usable) OpenMP runtime yet
     * @throws dev.jompd.core.target.TargetException when the target cannot be read
     */
    public synchronized AddressSpaceHandle process() {
        if (process == null) {
            process = Ompd.processInitialize(space);
        }
        return process;
    }

    /** OMPD on the target if {@link #process()} succeeded before. */
    public synchronized Optional<AddressSpaceHandle> initialisedProcess() {
        return Optional.ofNullable(process);
    }

    /** What is inspected, for a report's header. Needs OMPD ({@link #process()}). */
    public TargetDescription description() {
        return new TargetDescription(kind, name, space.name(), process().layout().runtimeModule());
    }

    /** The OpenMP picture of this stop, taken once for every request of the stop. */
    public synchronized OpenMpPicture picture() {
        if (picture == null) {
            picture = OpenMpPicture.take(process(), description(), codeNames);
        }
        return picture;
    }

    /**
     * The target ran: the picture, OMPD's stop (its handles go stale) and the backend's per-stop caches
     * go. Names of code stay.
     */
    public synchronized void resumed() {
        picture = null;
        stacks = null;
        if (unwinding != null) {
            unwinding.awaitEnd();
            unwinding = null;
        }
        if (process != null) {
            process.resumed(); // ends the stop, down to the backend's caches
        } else {
            space.resumed();
        }
    }

    /** Closes the names and the address space (a live backend lets the process go). */
    @Override
    public synchronized void close() {
        if (unwinding != null) {
            unwinding.awaitEnd(); // the space stays open until the unwinding thread is done with it
            unwinding = null;
        }
        picture = null;
        stacks = null;
        process = null;
        if (unwinder != null) {
            unwinder.close();
        }
        codeNames.close();
        symbols.close();
        space.close();
    }
}
