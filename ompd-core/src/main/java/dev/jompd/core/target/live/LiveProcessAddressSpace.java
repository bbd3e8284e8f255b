package dev.jompd.core.target.live;

import dev.jompd.core.elf.InMemoryElf;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.FileBackedAddressSpace;
import dev.jompd.core.target.LinkMap;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.ModuleFileCache;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.X86_64;
import dev.jompd.core.target.debug.DebugFileSearch;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * A running x86-64 Linux process, stopped, seen as an address space: one stop of it.
 *
 * <p><b>Attached mode</b> ({@link #attach(long)}): jompd becomes the process's tracer. Every thread is
 * seized and interrupted ({@code PTRACE_SEIZE} + {@code PTRACE_INTERRUPT}, so no signal is sent that
 * the program could notice) and held in a ptrace stop; {@code /proc/PID/task} is scanned again until a
 * scan made while every known thread is stopped finds no new one, so threads created during the attach
 * are caught too. Registers come from {@code PTRACE_GETREGS}, named as the core backend names them
 * ({@code r15} … {@code gs}, {@code fs_base} among them). All ptrace and waitpid calls run on one
 * dedicated platform thread, the tracer (ptrace belongs to the thread that attached). {@link #close()}
 * detaches every thread ({@code PTRACE_DETACH}, handing back any signal a thread was stopped for) and
 * the program goes on exactly as before: interrupted system calls restart, a group stop stays a stop.
 *
 * <p><b>Read-only mode</b> ({@link #readOnly(long)}): for a process another debugger (gdb) already holds
 * stopped; no ptrace call at all. Threads come from {@code /proc/PID/task}. Registers cannot be read
 * without being the tracer, so each thread has only its thread pointer, found in glibc's own thread lists
 * (see {@code GlibcThreads}: LWP → {@code struct pthread}, whose address is the thread pointer), and
 * {@code rsp}/{@code rip} from {@code /proc/PID/task/TID/syscall}. That is enough to map LWPs to
 * pthreads and hence to OpenMP threads; unwinding or anything else needing other registers is not
 * possible. The other debugger decides when the process runs: a read-only space is only as consistent
 * as that debugger keeps the process stopped.
 *
 * <p><b>Snapshot semantics</b>: an instance is one stop. Its thread list, registers and module list are
 * taken when it opens and never change; memory is read live but cannot change while the process is
 * stopped. There is no resume: {@link #close()} lets the process go, and every later read fails with
 * {@link MemoryReadException}; to look again, attach again (attaching takes milliseconds). A read-only
 * space holds nothing, so a caller may keep it across the other debugger's stops: memory is always read
 * live, but {@link #threads()} stays the list taken at opening, and caches above (TargetMemory) must be
 * cleared at each stop by whoever knows when the process ran.
 *
 * <p><b>Memory</b> is read with {@code process_vm_readv}, falling back to {@code /proc/PID/mem}; a failed
 * read throws {@link MemoryReadException} with the address, the length and this backend's name, never
 * zeros; once the process is gone (killed under us) the message says it exited. <b>Modules</b> are the
 * ELF files of {@code /proc/PID/maps}, with the load bias and build-id read from the ELF headers in the
 * process's memory, the executable ({@code /proc/PID/exe}) first, then the libraries in the dynamic
 * linker's load order. <b>Symbols</b> come from the files (.symtab, a build-id debug file, .dynsym).
 *
 * <p>A process that is this JVM's own child cannot be attached (see
 * {@link AttachException.Reason#CHILD_OF_THIS_JVM}): the JDK's process reaper thread waits on it, and
 * a thread of the tracer's process waiting on its child takes that child's ptrace stops, after which the
 * JDK believes the process ended. Start such a process through an intermediate process (a shell that
 * forks it) or use read-only mode.
 *
 * <p>Thread-safe. Errors while opening are {@link AttachException}s saying why in words a user can act
 * on (no such process, ptrace_scope, CAP_SYS_PTRACE, which debugger already traces it, ...).
 */
public final class LiveProcessAddressSpace implements FileBackedAddressSpace {
    private static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final Cleaner CLEANER = Cleaner.create(task -> Thread.ofPlatform().daemon()
            .name("jompd-live-cleaner").unstarted(task));
    /** user_regs_struct, in order: what PTRACE_GETREGS fills. */
    static final List<String> REGISTER_NAMES = X86_64.USER_REGS;

    /** How the process is held. */
    public enum Mode {
        /** jompd is the tracer and holds every thread in a ptrace stop. */
        ATTACHED,
        /** Another debugger holds the process; jompd only reads. */
        READ_ONLY
    }

    private final int pid;
    private final Mode mode;
    private final String name;
    private final ProcessMemory memory;
    private final Tracer tracer;
    private final Cleaner.Cleanable cleanable;
    private final DebugFileSearch debugFileDirectories;
    private final Optional<ModuleFileCache> sharedFiles;
    private List<TargetThread> threads = List.of();
    /** Where {@link #threads()} comes from when the caller knows the threads (read-only mode), else null. */
    private Supplier<List<TargetThread>> threadSource;
    private List<LiveModule> modules = List.of();
    private Optional<LiveModule> executable = Optional.empty();
    private Optional<String> threadPointerProblem = Optional.empty();
    private Duration stopDuration = Duration.ZERO;
    private volatile boolean closed;

    /** Options for opening a process; finish with {@link #attach()} or {@link #openReadOnly()}. */
    public static final class Builder {
        private final long pid;
        private DebugFileSearch debugFileDirectories = DebugFileSearch.standard();
        private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
        private Supplier<List<TargetThread>> threadsFromCaller;
        private Optional<ModuleFileCache> sharedFiles = Optional.empty();

        private Builder(long pid) {
            this.pid = pid;
        }

        /** Where separate debug files live ({@code DIR/.build-id/xx/yyyy.debug}); empty disables them. */
        public Builder withDebugFileDirectories(List<Path> directories) {
            this.debugFileDirectories = debugFileDirectories.withDirectories(directories);
            return this;
        }

        /**
         * Read-only mode for a caller that knows the threads itself (a debugger front end asks gdb at
         * every stop): skips the per-thread /proc reads and the walk of glibc's thread lists, and checks
         * only the main thread's stop. {@link #threads()} answers what {@code threads} supplies (the
         * current stop's threads, with their thread pointers).
         */
        public Builder withThreadsFrom(Supplier<List<TargetThread>> threads) {
            this.threadsFromCaller = Objects.requireNonNull(threads);
            return this;
        }

        /**
         * Reads the modules' files through {@code files}, which the caller owns and closes after this space: processes
         * that map the same files (the ranks of one job) open and index each file once.
         */
        public Builder withSharedFiles(ModuleFileCache files) {
            this.sharedFiles = Optional.of(files);
            return this;
        }

        /** How long to wait for every thread to stop (default 10 s; only threads in uninterruptible sleep take long). */
        public Builder withStopTimeout(Duration timeout) {
            this.stopTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /**
         * Attaches with ptrace and stops every thread.
         *
         * @throws AttachException when the process cannot be attached (the message says why)
         */
        public LiveProcessAddressSpace attach() {
            int id = checkPid(pid);
            if (id == ProcessHandle.current().pid()) {
                throw new AttachException(pid, AttachException.Reason.SELF,
                        "process %d is this JVM: a process cannot ptrace itself".formatted(pid));
            }
            if (ProcFs.statusNumber(id, "PPid").orElse(-1) == ProcessHandle.current().pid()) {
                throw new AttachException(pid, AttachException.Reason.CHILD_OF_THIS_JVM,
                        ("process %d is a child of this JVM: the JDK's process reaper thread waits on it and would take its "
                                + "ptrace stops (the JDK would then believe it ended); start it through an intermediate process "
                                + "(a shell that forks it), or open it with readOnly() while another debugger holds it").formatted(pid));
            }
            Optional<AttachException> traced = AttachException.alreadyTraced(id, id);
            if (traced.isPresent()) {
                throw traced.get();
            }
            Tracer tracer = new Tracer(id);
            LiveProcessAddressSpace space = null;
            try {
                long start = System.nanoTime();
                List<Tracer.StoppedThread> stopped = tracer.attach(stopTimeout);
                Duration stopDuration = Duration.ofNanos(System.nanoTime() - start);
                space = new LiveProcessAddressSpace(id, Mode.ATTACHED, tracer, debugFileDirectories, sharedFiles);
                space.stopDuration = stopDuration;
                space.threads = stopped.stream().map(LiveProcessAddressSpace::toTargetThread).toList();
                space.discoverModules();
                return space;
            } catch (RuntimeException | Error e) {
                if (space != null) {
                    space.closeQuietly();
                } else {
                    tracer.detach();
                }
                throw e;
            }
        }

        /**
         * Opens a process another debugger holds stopped, without ptrace.
         *
         * @throws AttachException when there is no such process, or some thread of it is running
         */
        public LiveProcessAddressSpace openReadOnly() {
            int id = checkPid(pid);
            List<Integer> tids = threadsFromCaller != null ? List.of(id) : ProcFs.threadIds(id);
            if (tids.isEmpty() || (threadsFromCaller != null && !ProcFs.exists(id))) {
                throw AttachException.noSuchProcess(pid);
            }
            for (int tid : tids) {
                Optional<Character> state = ProcFs.threadState(id, tid);
                if (state.isPresent() && "tTZX".indexOf(state.get()) < 0) {
                    throw new AttachException(pid, AttachException.Reason.NOT_STOPPED,
                            ("thread %d of process %d is running (state %s): read-only mode reads a process another debugger holds "
                                    + "stopped; attach with LiveProcessAddressSpace.attach(%d) instead").formatted(tid, pid, state.get(), pid));
                }
            }
            LiveProcessAddressSpace space = new LiveProcessAddressSpace(id, Mode.READ_ONLY, null, debugFileDirectories,
                    sharedFiles);
            try {
                space.discoverModules();
                space.threads = threadsFromCaller != null ? List.of() : space.readOnlyThreads(tids);
                space.threadSource = threadsFromCaller;
                return space;
            } catch (RuntimeException | Error e) {
                space.closeQuietly();
                throw e;
            }
        }
    }

    /** Options for opening process {@code pid}. */
    public static Builder builder(long pid) {
        return new Builder(pid);
    }

    /**
     * Attaches to process {@code pid} with ptrace and stops every thread, with the default options.
     *
     * @throws AttachException when the process cannot be attached (the message says why)
     */
    public static LiveProcessAddressSpace attach(long pid) {
        return builder(pid).attach();
    }

    /**
     * Opens process {@code pid}, which another debugger holds stopped, without ptrace.
     *
     * @throws AttachException when there is no such process, or some thread of it is running
     */
    public static LiveProcessAddressSpace readOnly(long pid) {
        return builder(pid).openReadOnly();
    }

    private static int checkPid(long pid) {
        if (pid <= 0 || pid > Integer.MAX_VALUE) {
            throw new AttachException(pid, AttachException.Reason.NO_SUCH_PROCESS, "%d is not a process id".formatted(pid));
        }
        if (!ProcFs.exists((int) pid)) {
            throw AttachException.noSuchProcess(pid);
        }
        return (int) pid;
    }

    private LiveProcessAddressSpace(int pid, Mode mode, Tracer tracer, DebugFileSearch debugFileDirectories,
                                    Optional<ModuleFileCache> sharedFiles) {
        this.pid = pid;
        this.mode = mode;
        this.name = mode == Mode.ATTACHED ? "pid:" + pid : "pid:" + pid + " (read-only)";
        this.memory = new ProcessMemory(pid, name);
        this.tracer = tracer;
        this.debugFileDirectories = debugFileDirectories;
        this.sharedFiles = sharedFiles;
        // Forgotten without close(): detach anyway once unreachable. The action holds only the tracer.
        this.cleanable = tracer == null ? null : CLEANER.register(this, tracer::detach);
    }

    private static TargetThread toTargetThread(Tracer.StoppedThread stopped) {
        Map<String, Long> registers = new LinkedHashMap<>();
        for (int i = 0; i < REGISTER_NAMES.size(); i++) {
            registers.put(REGISTER_NAMES.get(i), stopped.registers()[i]);
        }
        return TargetThread.fromRegisters(stopped.tid(), registers);
    }

    private List<TargetThread> readOnlyThreads(List<Integer> tids) {
        GlibcThreads.Result glibc = GlibcThreads.read(this);
        threadPointerProblem = glibc.problem();
        List<TargetThread> result = new ArrayList<>(tids.size());
        for (int tid : tids) {
            Map<String, Long> registers = new LinkedHashMap<>();
            ProcFs.stackAndInstructionPointer(pid, tid).ifPresent(pointers -> {
                registers.put("rsp", pointers[0]);
                registers.put("rip", pointers[1]);
            });
            // glibc's struct pthread of the thread is where its thread pointer points
            Long pthread = glibc.pthreadsByTid().get(tid);
            result.add(new TargetThread(tid, pthread == null ? OptionalLong.empty() : OptionalLong.of(pthread), registers));
        }
        return List.copyOf(result);
    }

    // ---------------------------------------------------------------- AddressSpace

    @Override
    public String name() { return name; }

    @Override
    public String described() { return "process " + pid; }

    @Override
    public void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
        memory.read(address, buffer, offset, length);
    }

    @Override
    public List<? extends LinkMap.Module> modulesInLoadOrder() {
        return modules;
    }

    /**
     * The threads as they were when this stop began, the thread group leader (main thread) first; or
     * what the caller supplies ({@link Builder#withThreadsFrom}).
     */
    @Override
    public List<TargetThread> threads() {
        return threadSource != null ? threadSource.get() : threads;
    }

    /**
     * Detaches from every thread (attached mode) and lets the process run on exactly as before; later
     * reads fail. Idempotent.
     *
     * @throws TargetException when some thread could not be detached (it is released anyway when the
     *                         tracer thread ends, which this call makes it do)
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        memory.close();
        modules.forEach(LiveModule::close);
        if (cleanable != null) {
            List<String> problems = tracer.detach();
            cleanable.clean(); // already detached: this only unregisters
            if (!problems.isEmpty()) {
                throw new TargetException(name + ": detaching: " + String.join("; ", problems));
            }
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (TargetException ignored) {
            // the original failure is what the caller needs to see
        }
    }

    // ---------------------------------------------------------------- beyond AddressSpace

    /** The process id. */
    public long pid() { return pid; }

    /** Whether jompd holds the process (attached) or another debugger does (read-only). */
    public Mode mode() { return mode; }

    /** The executable's module. */
    public Optional<LoadedModule> executable() { return executable.map(LiveModule::toLoadedModule); }

    /**
     * Read-only mode: why the threads carry no thread pointer (glibc's thread list could not be read),
     * when that is so. Always empty in attached mode.
     */
    public Optional<String> threadPointerProblem() { return threadPointerProblem; }

    /** How long seizing and stopping every thread took (attached mode). */
    Duration stopDuration() { return stopDuration; }

    @Override
    public String toString() {
        return name;
    }

    // ---------------------------------------------------------------- modules

    private void discoverModules() {
        List<ProcFs.Mapping> mappings;
        try {
            mappings = ProcFs.mappings(pid);
        } catch (IOException e) {
            if (!ProcFs.exists(pid)) {
                throw new AttachException(pid, AttachException.Reason.EXITED_DURING_ATTACH,
                        "process %d exited while jompd attached to it".formatted(pid));
            }
            throw new TargetException("%s: cannot read /proc/%d/maps: %s".formatted(name, pid, e), e);
        }
        Map<String, List<ProcFs.Mapping>> byPath = new LinkedHashMap<>();
        for (ProcFs.Mapping mapping : mappings) {
            if (mapping.fileBacked()) {
                byPath.computeIfAbsent(mapping.path(), unused -> new ArrayList<>()).add(mapping);
            }
        }
        Optional<String> executablePath = ProcFs.executable(pid);
        List<LiveModule> found = new ArrayList<>();
        LiveModule executableModule = null;
        for (Map.Entry<String, List<ProcFs.Mapping>> entry : byPath.entrySet()) {
            ProcFs.Mapping header = null;
            for (ProcFs.Mapping mapping : entry.getValue()) {
                if (mapping.offset() == 0) {
                    header = mapping;
                    break;
                }
            }
            if (header == null) {
                continue; // ld.so maps every ELF file from offset 0: this is not one
            }
            Optional<InMemoryElf.Layout> layout = layoutInMemory(header);
            if (layout.isEmpty()) {
                continue; // a data file (locale archive, font cache), not a module
            }
            LiveModule module = new LiveModule(pid, entry.getKey(), entry.getValue(), layout.get().loadBias(),
                    layout.get().buildId(), layout.get().dynamicSectionAddress(), debugFileDirectories, sharedFiles);
            found.add(module);
            if (executablePath.isPresent() && executablePath.get().equals(entry.getKey())) {
                executableModule = module;
            }
        }
        this.executable = Optional.ofNullable(executableModule);
        this.modules = List.copyOf(LinkMap.inLoadOrder(executable, found, new PagedWords()));
    }

    /**
     * The layout the ELF headers at the start of {@code header} (a file's offset 0) in the process's memory describe,
     * with the build-id. The mapping's first page is read at once (a mapping is whole pages): it holds the ELF header
     * and, as linkers lay files out, the program headers and the build-id note, which are then taken from it instead of
     * being read one by one (three system calls per module become one; a rank maps some sixty files). What lies
     * beyond that page is read from the process as before.
     */
    private Optional<InMemoryElf.Layout> layoutInMemory(ProcFs.Mapping header) {
        long start = header.start();
        int firstPageLength = (int) Math.min(X86_64.PAGE_SIZE, header.end() - start);
        byte[] firstPage = new byte[firstPageLength];
        try {
            memory.read(start, firstPage, 0, firstPageLength);
        } catch (MemoryReadException e) {
            return InMemoryElf.read(new Bytes(), start, name); // each part read (and found unreadable) on its own
        }
        // the other ranks' same module (a shared cache): the same page gives the same layout, without parsing it again
        InMemoryElf.Layouts layouts = sharedFiles.isPresent() ? sharedFiles.get().layoutsInMemory() : new InMemoryElf.Layouts();
        return layouts.read(header.path() + " inode " + header.inode(), firstPage, new Bytes(), start, name);
    }

    /** The process's bytes, empty where they cannot be read (no lambda: spun at run time in every cold JVM). */
    private final class Bytes implements InMemoryElf.Memory {
        @Override
        public Optional<byte[]> read(long address, int length) {
            try {
                byte[] bytes = new byte[length];
                memory.read(address, bytes, 0, length);
                return Optional.of(bytes);
            } catch (MemoryReadException e) {
                return Optional.empty(); // unreadable headers: not a module we can use
            }
        }
    }

    /**
     * The process's words read a page at a time, for one walk: the link map's walk reads some two hundred words (the
     * executable's dynamic entries, each loaded module's link map entry) that lie in a few pages. A page that cannot be
     * read whole, and a word across two pages, are read word by word as before.
     */
    private final class PagedWords implements LinkMap.WordReader {
        private static final int PAGE = (int) X86_64.PAGE_SIZE;
        private static final byte[] UNREADABLE = new byte[0];
        private final Map<Long, byte[]> pages = new HashMap<>();

        @Override
        public long readLong(long address) {
            int offset = (int) (address & (PAGE - 1));
            if (offset <= PAGE - 8) {
                Long pageAddress = address - offset;
                byte[] page = pages.get(pageAddress);
                if (page == null) {
                    page = new byte[PAGE];
                    try {
                        memory.read(pageAddress, page, 0, PAGE);
                    } catch (MemoryReadException e) {
                        page = UNREADABLE;
                    }
                    pages.put(pageAddress, page);
                }
                if (page != UNREADABLE) {
                    long value = 0;
                    for (int i = 7; i >= 0; i--) {
                        value = value << 8 | (page[offset + i] & 0xffL);
                    }
                    return value;
                }
            }
            return readU64(address);
        }
    }

}
