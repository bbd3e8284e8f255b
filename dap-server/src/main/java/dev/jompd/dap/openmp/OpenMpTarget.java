package dev.jompd.dap.openmp;

import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.target.BuildIdMismatchException;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.report.TargetSession;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * Where a session's OpenMP picture comes from: a core file (opened once), or a live process that gdb
 * holds (read-only; threads from gdb at each stop). {@link #view} opens the picture of the current stop;
 * {@link #resumed} ends the stop and drops every cache (jompd's one place for that).
 */
public abstract sealed class OpenMpTarget implements AutoCloseable {

    /** Why there is no OpenMP picture at this stop (no runtime, not initialised yet, unreadable). */
    public static final class UnavailableException extends RuntimeException {
        public UnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * The OpenMP picture of the current stop.
     *
     * @param threads gdb's thread list of this stop (fetched only if needed)
     * @throws UnavailableException when the process has no readable OpenMP runtime (yet)
     */
    public abstract OpenMpView view(Supplier<List<GdbThread>> threads);

    /**
     * A stop began: start opening what the picture needs (files, symbols, the runtime's layout) in the
     * background, while gdb lists the threads. {@link #view} waits for it.
     */
    public void prepare() {}

    /** The target ran: every handle of the finished stop is stale. */
    public abstract void resumed();

    /** Libraries were loaded or unloaded: modules and symbols must be read again. */
    public void librariesChanged() {}

    @Override
    public abstract void close();

    /** A core file, read with {@code executable} as its program when given (else the file the core names). */
    public static Core core(Path core, Optional<Path> executable) {
        return new Core(core, executable);
    }

    public static OpenMpTarget live(long pid) {
        return new Live(pid);
    }

    /**
     * Why there is no picture, in the user's words: the cause's reason, which names the target (no OMPD return code;
     * the door says "no OpenMP picture" once).
     */
    static UnavailableException unavailable(RuntimeException e) {
        return new UnavailableException(e instanceof OmpdException ompd ? ompd.reason() : e.getMessage(), e);
    }

    /** A core file: one stop forever. */
    public static final class Core extends OpenMpTarget {
        private final Path core;
        private final Optional<Path> executable;
        private TargetSession session;
        private OpenMpView view;

        Core(Path core, Optional<Path> executable) {
            this.core = core;
            this.executable = executable;
        }

        private void open() {
            if (session == null) {
                CoreFileAddressSpace.Builder builder = CoreFileAddressSpace.builder(core);
                executable.ifPresent(builder::withExecutable);
                session = new TargetSession(builder.open(), "core", core.toString());
            }
            session.process();
        }

        /**
         * Opens the core and OMPD on it now, as the command line does, and refuses it as the command line
         * does when a file is of another build than the one the core recorded (the executable given with it,
         * a library): every symbol, frame and OpenMP row read through that file would be wrong.
         *
         * @throws BuildIdMismatchException the command line's refusal, with its words
         */
        public void refuseOtherBuilds() {
            try {
                open();
                session.picture(); // names code through the executable and the libraries, as the command line does
            } catch (RuntimeException e) {
                for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                    if (cause instanceof BuildIdMismatchException mismatch) {
                        throw mismatch;
                    }
                }
                // any other problem (no OpenMP runtime, say) is the picture's to tell, at the stop
            }
        }

        @Override
        public OpenMpView view(Supplier<List<GdbThread>> threads) {
            if (view == null) {
                try {
                    open();
                } catch (OmpdException | TargetException e) {
                    throw unavailable(e);
                }
                view = new OpenMpView(session.process(), session.description(), session.codeNames(), session.picture());
            }
            return view;
        }

        @Override
        public void resumed() {
            // a core never runs
        }

        @Override
        public void close() {
            if (session != null) {
                session.close();
            }
        }
    }

    /** A live process gdb holds. */
    static final class Live extends OpenMpTarget {
        private final long pid;
        /** This stop's threads as gdb names them (LWP, pthread_t as the thread pointer), for a space opened with them. */
        private volatile List<TargetThread> gdbThreadsOfStop = List.of();
        /** The process read-only, OMPD on it, names of code (kept while the modules stay the same) and the stop's picture. */
        private TargetSession session;
        private OpenMpView view;

        Live(long pid) {
            this.pid = pid;
        }

        private CompletableFuture<Void> preparing;

        @Override
        public synchronized void prepare() {
            if (preparing == null) {
                // The picture itself waits for gdb's thread list of this stop (it names each thread's LWP,
                // which ompd-core maps once per stop): here only what needs no thread list.
                preparing = CompletableFuture.runAsync(() -> open(true),
                        task -> Thread.ofPlatform().daemon().name("jompd-openmp-open").start(task));
            }
        }

        /**
         * Opens the process read-only and initialises OMPD on it, when not done yet. With
         * {@code threadsFromGdb} the space skips its own thread discovery (gdb names the threads).
         */
        private synchronized void open(boolean threadsFromGdb) {
            long start = System.nanoTime();
            if (session == null) {
                LiveProcessAddressSpace.Builder builder = LiveProcessAddressSpace.builder(pid);
                LiveProcessAddressSpace held = threadsFromGdb ? builder.withThreadsFrom(() -> gdbThreadsOfStop).openReadOnly()
                        : builder.openReadOnly();
                session = new TargetSession(held, "pid", Long.toString(pid));
            }
            long opened = System.nanoTime();
            session.process();
            if (Boolean.getBoolean("jompd.dap.timing")) {
                System.err.printf("jompd-dap: read-only open %d ms, OMPD initialisation %d ms%n",
                        (opened - start) / 1_000_000, (System.nanoTime() - opened) / 1_000_000);
            }
        }

        /** Waits for a preparation in flight, without holding this object's lock (the preparation takes it). */
        private void awaitPreparation() {
            CompletableFuture<Void> pending;
            synchronized (this) {
                pending = preparing;
                preparing = null;
            }
            if (pending != null) {
                try {
                    pending.join();
                } catch (CompletionException failed) {
                    // opened again by view, where the failure is reported as it should be
                }
            }
        }

        @Override
        public OpenMpView view(Supplier<List<GdbThread>> threads) {
            awaitPreparation();
            synchronized (this) {
                return viewAfterPreparation(threads);
            }
        }

        private OpenMpView viewAfterPreparation(Supplier<List<GdbThread>> threads) {
            if (view != null) {
                return view;
            }
            List<GdbThread> list = threads.get();
            List<TargetThread> identities = new ArrayList<>();
            for (GdbThread thread : list) {
                if (thread.lwp().isPresent() && thread.pthread().isPresent()) {
                    // libthread_db's pthread_t is the thread pointer on glibc
                    identities.add(TargetThread.identity(thread.lwp().getAsLong(), thread.pthread().getAsLong()));
                }
            }
            // Without libthread_db gdb names no pthread_t: then glibc's lists are read afresh at each stop
            // (a new space, and so a new picture).
            boolean fromGdb = identities.size() == list.size() && !identities.isEmpty();
            try {
                if (session == null || !fromGdb) {
                    closeSpace();
                }
                open(fromGdb);
                if (fromGdb) {
                    gdbThreadsOfStop = List.copyOf(identities);
                }
            } catch (OmpdException | TargetException e) {
                throw unavailable(e);
            }
            view = new OpenMpView(session.process(), session.description(), session.codeNames(), session.picture());
            return view;
        }

        @Override
        public void resumed() {
            awaitPreparation(); // a preparation of the finished stop must not outlive it
            synchronized (this) {
                view = null;
                if (session != null) {
                    session.resumed();
                }
            }
        }

        @Override
        public void librariesChanged() {
            awaitPreparation();
            synchronized (this) {
                closeSpace();
            }
        }

        private void closeSpace() {
            view = null;
            if (session != null) {
                try {
                    session.close();
                } catch (TargetException ignored) {
                    // read-only: nothing to give back
                }
                session = null;
            }
        }

        @Override
        public void close() {
            awaitPreparation();
            synchronized (this) {
                closeSpace();
            }
        }
    }
}
