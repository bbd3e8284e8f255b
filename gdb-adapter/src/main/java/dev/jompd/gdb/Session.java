package dev.jompd.gdb;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.ompd.FunctionNames;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.report.CodeNames;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.TargetDescription;
import dev.jompd.report.TargetSession;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The engine's view of gdb's current target, opened on the first command and kept while gdb's target
 * stays the same. Chooses the backend: a core file is opened directly, a local live process is read
 * read-only by ompd-core's live backend (or through gdb when that is not permitted), a remote one through gdb. The
 * counters in each request's context drive the {@link TargetSession}: a new stop ends its stop
 * ({@link TargetSession#resumed()}, down to the backend's per-stop data); new objfiles reopen a live
 * target (its modules changed); another target closes this one.
 */
final class Session implements AutoCloseable {
    /** Diagnostics: read a local live process through gdb, as when /proc/PID/mem is not permitted. */
    static final String MEMORY_VIA_GDB = "JOMPD_GDB_MEMORY_VIA_GDB";

    private final GdbChannel gdb;
    private final GdbThreads gdbThreads;

    private String identity;
    private long stop = Long.MIN_VALUE;
    private long modules = Long.MIN_VALUE;
    private TargetSession session;
    private long resumes;

    Session(GdbChannel gdb) {
        this.gdb = gdb;
        this.gdbThreads = new GdbThreads(gdb);
    }

    /** What a command works on: the OMPD process, gdb's threads and the selected thread. */
    record Target(AddressSpaceHandle process, Symbolizer symbols, GdbThreads gdbThreads, TargetContext context,
                  TargetDescription description, boolean coreFile, FunctionNames names,
                  dev.jompd.core.unwind.DebugInfoCache debugInfo, java.util.function.Supplier<OpenMpPicture> pictures) {
        /** The OpenMP picture of this stop, taken once for all commands of the stop. */
        OpenMpPicture picture() {
            return pictures.get();
        }
    }

    /**
     * Brings the session in line with gdb's target and initialises OMPD on it.
     *
     * @throws BridgeException when gdb has no target
     * @throws dev.jompd.core.ompd.OmpdException when the target has no (usable) OpenMP runtime
     */
    Target prepare(TargetContext context) {
        if (context.kind() == TargetContext.Kind.NONE || (context.kind() != TargetContext.Kind.CORE && context.pid() == 0)) {
            close();
            throw new BridgeException("no process: run the program, attach to one, or open a core file first");
        }
        boolean sameTarget = context.identity().equals(identity)
                && (context.kind() == TargetContext.Kind.CORE || context.modules() == modules);
        if (!sameTarget) {
            close();
            open(context);
        } else if (context.stop() != stop) {
            resumed();
        }
        identity = context.identity();
        stop = context.stop();
        modules = context.modules();
        // Also retried at each command until it succeeds: libomp may have been loaded or initialised meanwhile.
        AddressSpaceHandle process = session.process();
        CodeNames codeNames = session.codeNames();
        return new Target(process, session.symbols(), gdbThreads, context, session.description(),
                context.kind() == TargetContext.Kind.CORE, codeNames.functions(), codeNames.debugInfo(), session::picture);
    }

    private List<TargetThread> threadsFromGdb() {
        return gdbThreads.list(true).stream().map(GdbThreads.GdbThread::asTargetThread).toList();
    }

    /** The inferior ran: every cache of the stop goes (gdb's thread list here, the rest in the session). */
    void resumed() {
        resumes++;
        gdbThreads.invalidate();
        if (session != null) {
            session.resumed();
        }
    }

    long resumes() {
        return resumes;
    }

    private void open(TargetContext context) {
        gdbThreads.invalidate();
        AddressSpace space;
        String kind;
        String name;
        switch (context.kind()) {
            case CORE -> {
                Path core = chooseCore(context);
                CoreFileAddressSpace.Builder builder = CoreFileAddressSpace.builder(core);
                context.executable().filter(Files::isRegularFile).ifPresent(builder::withExecutable);
                space = builder.open();
                kind = "core";
                name = core.toString();
            }
            case LIVE -> {
                try {
                    if (System.getenv(MEMORY_VIA_GDB) != null) {
                        throw new TargetException(MEMORY_VIA_GDB + " is set");
                    }
                    // gdb is the tracer: read-only, with gdb's threads of the stop
                    space = LiveProcessAddressSpace.builder(context.pid()).withThreadsFrom(this::threadsFromGdb)
                            .openReadOnly();
                } catch (TargetException notPermitted) {
                    System.err.println("jompd engine: " + notPermitted.getMessage() + "; reading memory through " + context.debugger());
                    space = new GdbAddressSpace(context.debugger() + ":pid:" + context.pid(), "process " + context.pid(), gdb,
                            gdbThreads, context.executable());
                }
                kind = "pid";
                name = Long.toString(context.pid());
            }
            case REMOTE -> {
                space = new GdbAddressSpace("remote:" + (context.connection().isEmpty() ? "?" : context.connection())
                        + ":pid:" + context.pid(), "process " + context.pid() + " on " + context.connection(), gdb, gdbThreads, context.executable());
                kind = "remote";
                name = context.connection() + " pid " + context.pid();
            }
            case NONE -> throw new IllegalStateException("no target to open");
            default -> throw new IllegalStateException("unknown target kind " + context.kind());
        }
        session = new TargetSession(space, kind, name);
    }

    private static Path chooseCore(TargetContext context) {
        List<Path> cores = context.coreFiles();
        if (cores.isEmpty()) {
            throw new BridgeException("gdb's target is a core file, but gdb did not say which file it is");
        }
        if (cores.size() == 1) {
            return cores.getFirst();
        }
        // Several cores open: the one of this inferior's process.
        for (Path core : cores) {
            try (CoreFileAddressSpace candidate = CoreFileAddressSpace.open(core)) {
                if (candidate.processId().isPresent() && candidate.processId().getAsLong() == context.pid()) {
                    return core;
                }
            } catch (TargetException unreadable) {
                // try the next one
            }
        }
        return cores.getFirst();
    }

    Optional<AddressSpace> space() {
        return Optional.ofNullable(session).map(TargetSession::space);
    }

    @Override
    public void close() {
        if (session != null) {
            session.close();
        }
        session = null;
        identity = null;
        gdbThreads.invalidate();
    }
}
