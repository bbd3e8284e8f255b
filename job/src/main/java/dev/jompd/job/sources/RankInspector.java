package dev.jompd.job.sources;

import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.OmpdRc;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.ModuleFileCache;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.core.CoreFileChecks;
import dev.jompd.core.target.live.AttachException;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.core.target.live.ProcFs;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.report.TargetSession;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * Inspects the ranks of a job in one JVM: each rank's OpenMP picture, its threads' parallel stacks and the
 * hang diagnosis, taken exactly as {@code jompd inspect --stacks} and {@code jompd diagnose} take them (the
 * report module's one inspection, {@link TargetSession}); what cannot
 * be read becomes a {@link RankInspection.Missing} that says why, never an exception. A live rank is
 * attached with ptrace, read, and detached (resumed); {@link #inspectAll} first attaches every live rank it is
 * given, then reads them concurrently, each by exactly one thread (ompd-core runs one ptrace thread per tracee).
 */
public final class RankInspector {
    /** At most this many ranks are held stopped at once: each holds a ptrace thread and its stopped threads. */
    public static final int MAX_HELD = 256;

    private final Duration stopTimeout;
    private final int parallelism;

    public RankInspector(Duration stopTimeout, int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, not " + parallelism);
        }
        this.stopTimeout = stopTimeout;
        this.parallelism = parallelism;
    }

    /** The defaults of {@link JobOptions}: its stop timeout, as many readers as the host has processors (at least 2). */
    public RankInspector() {
        this(JobOptions.defaults().stopTimeout(), JobOptions.defaultParallelism());
    }

    /** One rank to read: a live process ({@code core} empty) or a core file. */
    public record Target(RankId id, Optional<Path> core, Optional<Path> executable) {
        public static Target live(RankId id) {
            return new Target(id, Optional.empty(), Optional.empty());
        }

        public static Target core(RankId id, Path core, Optional<Path> executable) {
            return new Target(id, Optional.of(core), executable);
        }
    }

    /**
     * Every target, each once; the results in the targets' order. The live ranks are attached first, all of them
     * (up to {@link #MAX_HELD} at a time), concurrently, and then read ({@code parallelism} at a time), each
     * detached as soon as it is read: the node's ranks are one consistent cut (as STAT takes one), and ranks
     * that busy-poll in MPI while they wait stop competing with the reader for the processors. A rank that cannot
     * be attached is named as missing; every rank attached is detached whatever happens (and should this JVM die,
     * the kernel detaches its tracees and they run on).
     */
    public List<RankInspection> inspectAll(List<Target> targets) {
        // The ranks of a job run the same executable and libraries: their symbol tables, call frame information
        // and line tables are parsed once for all of them (the caches are keyed by file identity and thread-safe).
        try (ModuleFileCache files = new ModuleFileCache(); DebugInfoCache debugInfo = new DebugInfoCache()) {
            return inspectAll(targets, new Shared(files, debugInfo));
        }
    }

    /** What the ranks of one inspection share: their modules' files with their symbols, and their debug data. */
    private record Shared(ModuleFileCache files, DebugInfoCache debugInfo) {}

    private List<RankInspection> inspectAll(List<Target> targets, Shared modules) {
        long live = targets.stream().filter(target -> target.core().isEmpty()).count();
        if (targets.size() <= 1 || (parallelism == 1 && live <= 1)) {
            return targets.stream().map(target -> inspect(target, modules)).toList();
        }
        List<RankInspection> results = new ArrayList<>();
        List<CompletableFuture<Held>> held = new ArrayList<>();
        // Ranks attached and not yet read: taken in the targets' order (so the reader of the first unread rank never
        // waits for a permit a later rank holds), given back when a rank is detached.
        Semaphore window = new Semaphore(MAX_HELD);
        // Attaching is mostly the kernel's work and this JVM's cold code: more attachers than processors only make
        // every attach wait for the others (16 at once on 2 cores: the first rank held after ~0.6 s instead of ~0.1 s).
        int attacherCount = (int) Math.max(1, Math.min(live, JobOptions.defaultParallelism()));
        try (ExecutorService readers = Executors.newFixedThreadPool(Math.min(parallelism, targets.size()),
                Thread.ofPlatform().name("jompd-rank-", 0).daemon().factory());
             ExecutorService attachers = Executors.newFixedThreadPool(attacherCount,
                     Thread.ofPlatform().name("jompd-attach-", 0).daemon().factory())) {
            List<Future<RankInspection>> futures = new ArrayList<>();
            for (Target target : targets) {
                if (target.core().isPresent()) {
                    held.add(null);
                    futures.add(readers.submit(() -> inspectCore(target, modules)));
                } else {
                    CompletableFuture<Held> attached = new CompletableFuture<>();
                    held.add(attached);
                    futures.add(readers.submit(() -> {
                        try {
                            return read(target.id(), attached.join(), modules);
                        } finally {
                            window.release();
                        }
                    }));
                }
            }
            for (int i = 0; i < targets.size(); i++) {
                CompletableFuture<Held> attached = held.get(i);
                if (attached != null) {
                    RankId id = targets.get(i).id();
                    window.acquireUninterruptibly();
                    attachers.execute(() -> {
                        try {
                            attached.complete(attach(id, modules));
                        } finally {
                            // an Error (out of memory) while attaching: the reader must still not wait forever
                            attached.complete(Held.failed(missing(id, RankInspection.MissingReason.UNREADABLE,
                                    "internal error while attaching")));
                        }
                    });
                }
            }
            for (int i = 0; i < futures.size(); i++) {
                try {
                    results.add(futures.get(i).get());
                } catch (ExecutionException e) {
                    // inspect() turns every failure into a Missing; this is a bug, still said per rank
                    results.add(new RankInspection.Missing(targets.get(i).id(), RankInspection.MissingReason.UNREADABLE,
                            "internal error: " + e.getCause()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    results.add(new RankInspection.Missing(targets.get(i).id(), RankInspection.MissingReason.NO_ANSWER,
                            "interrupted before it was read"));
                }
            }
        } finally {
            // every rank attached is let go, whatever happened to its reader (close is idempotent)
            for (CompletableFuture<Held> attached : held) {
                if (attached != null && attached.isDone() && !attached.isCompletedExceptionally()) {
                    attached.join().release();
                }
            }
        }
        return results;
    }

    /** One target; never throws for what the target is or does. */
    public RankInspection inspect(Target target) {
        try (ModuleFileCache files = new ModuleFileCache(); DebugInfoCache debugInfo = new DebugInfoCache()) {
            return inspect(target, new Shared(files, debugInfo));
        }
    }

    private RankInspection inspect(Target target, Shared modules) {
        return target.core().isPresent() ? inspectCore(target, modules) : inspectLive(target.id(), modules);
    }

    private RankInspection inspectLive(RankId id, Shared modules) {
        return read(id, attach(id, modules), modules);
    }

    /** A live rank attached (every thread in a ptrace stop), or why it could not be. */
    private record Held(Optional<LiveProcessAddressSpace> space, Optional<RankInspection> failure) {
        static Held attached(LiveProcessAddressSpace space) {
            return new Held(Optional.of(space), Optional.empty());
        }

        static Held failed(RankInspection failure) {
            return new Held(Optional.empty(), Optional.of(failure));
        }

        /** Detaches (the rank runs on); a failure to detach is the tracer thread's end, which detaches anyway. */
        void release() {
            space.ifPresent(attached -> {
                try {
                    attached.close();
                } catch (RuntimeException ignored) {
                    // the reader already said what went wrong with this rank
                }
            });
        }
    }

    /** Attaches a live rank; never throws for what the rank is or does. */
    private Held attach(RankId id, Shared modules) {
        long pid = id.pid();
        try {
            if (!Files.isDirectory(Path.of("/proc/" + pid))) {
                return Held.failed(missing(id, RankInspection.MissingReason.EXITED,
                        "process " + pid + " no longer exists (the rank exited)"));
            }
            return Held.attached(LiveProcessAddressSpace.builder(pid).withStopTimeout(stopTimeout)
                    .withSharedFiles(modules.files()).attach());
        } catch (AttachException e) {
            return Held.failed(attachFailed(id, e));
        } catch (TargetException | IllegalArgumentException e) {
            return Held.failed(gone(id) ? exited(id, e) : missing(id, RankInspection.MissingReason.UNREADABLE, e.getMessage()));
        } catch (RuntimeException e) {
            return Held.failed(missing(id, RankInspection.MissingReason.UNREADABLE, "internal error while attaching: " + describe(e)));
        }
    }

    /** Reads an attached rank and detaches it. */
    private static RankInspection read(RankId id, Held held, Shared modules) {
        if (held.failure().isPresent()) {
            return held.failure().get();
        }
        LiveProcessAddressSpace space = held.space().orElseThrow();
        try {
            return read(id, space, "pid", Long.toString(id.pid()), modules);
        } catch (OmpdException e) {
            return ompdFailed(id, e);
        } catch (RuntimeException e) {
            // a read that failed because the rank exited while it was read says so; anything else is named as it is
            return gone(id) ? exited(id, e) : missing(id, RankInspection.MissingReason.UNREADABLE, describe(e));
        }
    }

    private RankInspection inspectCore(Target target, Shared modules) {
        RankId id = target.id();
        Path core = target.core().orElseThrow();
        Optional<String> damage = CoreFileChecks.truncation(core);
        if (damage.isPresent()) {
            return missing(id, RankInspection.MissingReason.DAMAGED_CORE, damage.get());
        }
        CoreFileAddressSpace space;
        try {
            CoreFileAddressSpace.Builder builder = CoreFileAddressSpace.builder(core);
            target.executable().ifPresent(builder::withExecutable);
            space = builder.open();
        } catch (RuntimeException e) {
            return missing(id, RankInspection.MissingReason.DAMAGED_CORE, "core " + core + " cannot be read: " + describe(e));
        }
        try {
            return read(id, space, "core", core.toString(), modules);
        } catch (OmpdException e) {
            return ompdFailed(id, e);
        } catch (RuntimeException e) {
            return missing(id, RankInspection.MissingReason.UNREADABLE, describe(e));
        }
    }

    /**
     * The picture, stacks and diagnosis of an opened rank, by the report's one inspection ({@link TargetSession}, as
     * jompd inspect --stacks and jompd diagnose take them); the session closes the space.
     */
    private static RankInspection read(RankId id, AddressSpace space, String kind, String name, Shared modules) {
        TargetSession session;
        try {
            session = new TargetSession(space, kind, name, modules.files(), modules.debugInfo());
        } catch (RuntimeException e) {
            space.close();
            throw e;
        }
        try (session) {
            return RankInspection.Seen.of(id, session.inspect(true));
        }
    }

    private static RankInspection attachFailed(RankId id, AttachException e) {
        return switch (e.reason()) {
            case NO_SUCH_PROCESS, EXITED_DURING_ATTACH -> exited(id, e);
            case PERMISSION_DENIED -> missing(id, RankInspection.MissingReason.PERMISSION_DENIED,
                    e.getMessage() + ProcessOwners.advice(id.pid()));
            case ALREADY_TRACED -> missing(id, RankInspection.MissingReason.ALREADY_TRACED, e.getMessage());
            case STOP_TIMEOUT -> missing(id, RankInspection.MissingReason.UNINTERRUPTIBLE, e.getMessage()
                    + ProcessOwners.stuckThreads(id.pid()));
            default -> missing(id, RankInspection.MissingReason.UNREADABLE, e.getMessage());
        };
    }

    private static RankInspection ompdFailed(RankId id, OmpdException e) {
        if (e.rc() == OmpdRc.UNAVAILABLE) {
            return missing(id, RankInspection.MissingReason.NOT_OPENMP, "no OpenMP runtime jompd can read: " + e.reason());
        }
        if (e.rc() == OmpdRc.INCOMPATIBLE) {
            return missing(id, RankInspection.MissingReason.NOT_OPENMP, "unsupported OpenMP runtime: " + e.reason());
        }
        return missing(id, RankInspection.MissingReason.UNREADABLE, e.reason());
    }

    private static boolean gone(RankId id) {
        return id.pid() > 0 && !Files.isDirectory(Path.of("/proc/" + id.pid()));
    }

    private static RankInspection exited(RankId id, Exception e) {
        return missing(id, RankInspection.MissingReason.EXITED, "process " + id.pid()
                + " exited while jompd read it (" + describe(e) + ")");
    }

    private static RankInspection missing(RankId id, RankInspection.MissingReason reason, String detail) {
        return new RankInspection.Missing(id, reason, detail);
    }

    private static String describe(Throwable e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    /** What {@code /proc} says about a process's owner and its threads, for the words of a missing rank. */
    static final class ProcessOwners {
        private ProcessOwners() {}

        /** Who owns the process and what would let jompd read it. */
        static String advice(long pid) {
            Optional<String> owner = ProcFs.ownerName(pid);
            if (owner.isEmpty()) {
                return "";
            }
            String self = System.getProperty("user.name");
            StringBuilder advice = new StringBuilder(". The process belongs to user " + owner.get() + "; jompd runs as " + self);
            // Never "give jompd CAP_SYS_PTRACE": jompd is a JVM a script starts, which honours JOMPD_JAVA,
            // JAVA_TOOL_OPTIONS and the user's caches, so the capability would let any user trace any process.
            String asRoot = "root (sudo, through a rule for jompd's installed launcher alone: docs/security.md)";
            advice.append(": run jompd job as ").append(owner.get().equals("root") ? asRoot
                    : owner.get() + " (srun steps into a job as its owner), or as " + asRoot);
            OptionalInt scope = ProcFs.yamaPtraceScope();
            if (scope.isPresent()) {
                advice.append("; Yama's ptrace_scope is ").append(scope.getAsInt());
                if (scope.getAsInt() == 1) {
                    advice.append(" (only a process's ancestors may attach: a tool step is not one; run jompd as ")
                            .append("root, set it to 0, or have the program call prctl(PR_SET_PTRACER))");
                }
            }
            return advice.toString();
        }

        /** The threads of a process in uninterruptible sleep (state D), for a stop that timed out. */
        static String stuckThreads(long pid) {
            List<String> stuck = ProcFs.threadIds((int) pid).stream()
                    .filter(tid -> ProcFs.threadState((int) pid, tid).orElse(' ') == 'D')
                    .map(String::valueOf).toList();
            return stuck.isEmpty() ? "" : " (in uninterruptible sleep, state D: LWP " + String.join(", ", stuck) + ")";
        }
    }
}
