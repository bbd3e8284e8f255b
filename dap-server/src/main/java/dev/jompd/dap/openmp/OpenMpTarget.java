package dev.jompd.dap.openmp;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.report.CodeNames;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.TargetDescription;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    public static OpenMpTarget core(Path core) {
        return new Core(core);
    }

    public static OpenMpTarget live(long pid) {
        return new Live(pid);
    }

    static UnavailableException unavailable(String what, RuntimeException e) {
        return new UnavailableException(what + ": " + e.getMessage(), e);
    }

    /** A core file: one stop forever. */
    static final class Core extends OpenMpTarget {
        private final Path core;
        private AddressSpace space;
        private AddressSpaceHandle process;
        private OpenMpView view;
        private CodeNames names;

        Core(Path core) {
            this.core = core;
        }

        @Override
        public OpenMpView view(Supplier<List<GdbThread>> threads) {
            if (view == null) {
                try {
                    if (space == null) {
                        space = CoreFileAddressSpace.open(core);
                    }
                    process = Ompd.processInitialize(space);
                } catch (OmpdException | TargetException e) {
                    throw unavailable("no OpenMP picture of " + core, e);
                }
                TargetDescription description = new TargetDescription("core", core.toString(), space.name(),
                        process.layout().runtimeModule());
                Symbolizer symbols = new Symbolizer(space);
                names = new CodeNames(symbols);
                view = new OpenMpView(process, description, names, OpenMpView.picture(process, description, names));
            }
            return view;
        }

        @Override
        public void resumed() {
            // a core never runs
        }

        @Override
        public void close() {
            if (names != null) {
                names.close();
            }
            if (space != null) {
                space.close();
            }
        }
    }

    /** A live process gdb holds. */
    static final class Live extends OpenMpTarget {
        private final long pid;
        private LiveProcessAddressSpace held;
        /** This stop's threads as gdb names them (LWP, pthread_t as the thread pointer), for a space opened with them. */
        private volatile List<TargetThread> gdbThreadsOfStop = List.of();
        private AddressSpaceHandle process;
        private Symbolizer symbols;
        private OpenMpView view;

        Live(long pid) {
            this.pid = pid;
        }

        private CompletableFuture<Void> preparing;
        /** This stop's picture, taken while gdb lists the threads when the space is opened with gdb's threads. */
        private OpenMpPicture picture;
        /** Names of code: kept while the modules stay the same. */
        private CodeNames codeNames;

        @Override
        public synchronized void prepare() {
            if (preparing == null) {
                // The picture itself waits for gdb's thread list of this stop (it names each thread's LWP,
                // which ompd-core maps once per stop): here only what needs no thread list.
                preparing = CompletableFuture.runAsync(() -> open(true),
                        task -> Thread.ofPlatform().daemon().name("jompd-openmp-open").start(task));
            }
        }

        /** The picture of this stop, once. */
        private synchronized void takePicture() {
            if (picture == null) {
                if (codeNames == null) {
                    codeNames = new CodeNames(symbols);
                }
                picture = OpenMpView.picture(process, description(), codeNames);
            }
        }

        private TargetDescription description() {
            return new TargetDescription("pid", Long.toString(pid), held.name(), process.layout().runtimeModule());
        }

        /**
         * Opens the process read-only and initialises OMPD on it, when not done yet. With
         * {@code threadsFromGdb} the space skips its own thread discovery (gdb names the threads).
         */
        private synchronized void open(boolean threadsFromGdb) {
            long start = System.nanoTime();
            if (held == null) {
                LiveProcessAddressSpace.Builder builder = LiveProcessAddressSpace.builder(pid);
                held = threadsFromGdb ? builder.withThreadsFrom(() -> gdbThreadsOfStop).openReadOnly()
                        : builder.openReadOnly();
                symbols = new Symbolizer(held);
            }
            long opened = System.nanoTime();
            if (process == null) {
                process = Ompd.processInitialize(held);
            }
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
            // Without libthread_db gdb names no pthread_t: then glibc's lists are read afresh at each stop.
            boolean fromGdb = identities.size() == list.size() && !identities.isEmpty();
            try {
                if (held == null || !fromGdb) {
                    closeSpace();
                }
                open(fromGdb);
                if (fromGdb) {
                    gdbThreadsOfStop = List.copyOf(identities);
                }
            } catch (OmpdException | TargetException e) {
                throw unavailable("no OpenMP picture of process " + pid, e);
            }
            if (!fromGdb) {
                picture = null; // threads read afresh: the picture of this stop too
            }
            takePicture();
            view = new OpenMpView(process, description(), codeNames, picture);
            return view;
        }

        @Override
        public void resumed() {
            awaitPreparation(); // a preparation of the finished stop must not outlive it
            synchronized (this) {
                view = null;
                picture = null;
                if (process != null) {
                    process.resumed();
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
            picture = null;
            if (codeNames != null) {
                codeNames.close();
            }
            codeNames = null;
            process = null;
            if (held != null) {
                try {
                    held.close();
                } catch (TargetException ignored) {
                    // read-only: nothing to give back
                }
                held = null;
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
