package dev.jompd.libompd;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.OmpdRc;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LinkMap;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetSymbol;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A target read through the debugger's OMPD callbacks, asked over the shim's pipe: memory, strings, symbols
 * (with or without a thread context), type sizes. The callbacks list no threads and no registers, so
 * {@link #threads()} is empty: an OS thread reaches its OpenMP thread through the thread-local
 * {@code __kmp_gtid} read with that thread's context ({@link Engine}). Modules come from the dynamic
 * linker's link map ({@code _r_debug}).
 *
 * <p>Reads are field-sized: a debugger's read callback can cost per byte (LLVM's gdb plugin reads byte by
 * byte in Python, ~4 ms per KiB), so the page-sized reads of core's typed memory are refused and it falls
 * back to the exact ranges; those are kept for one call.
 */
final class CallbackAddressSpace implements AddressSpace {
    /** Core's typed memory asks in blocks of this size first. */
    private static final int PAGE = 4096;
    private static final int MAX_PATH = 4096;
    /** ELF symbol type of thread-local symbols (their value is an offset in the TLS block). */
    private static final int STT_TLS = 6;

    /**
     * The refusal of a page read, made once: core's typed memory catches it and reads the exact range, so
     * its stack trace is never looked at, and filling one per block and call cost more than the read.
     */
    private final MemoryReadException pageRefused;
    private final Questions questions;
    private final TargetArchitecture architecture;
    /** Global symbols: constants of the process. */
    private final Map<String, Optional<TargetSymbol>> symbols = new HashMap<>();
    /**
     * Globals the runtime writes once, at start-up, before any debugger can load an OMPD library
     * ({@code ompd_state}, set by {@code ompd_init()} from OMP_DEBUG): their reads are kept for the process.
     */
    private static final Set<String> WRITTEN_AT_START_UP = Set.of("ompd_state");
    private final Map<Long, byte[]> constantReads = new HashMap<>();
    private final Set<Long> constantAddresses = new HashSet<>();
    /** Exact reads of this call, by address and length. */
    private final Map<Long, byte[]> reads = new HashMap<>();
    private List<LoadedModule> modules;
    /** The runtime's module name, once the link map showed it: a process constant. */
    private String runtimeModule;
    /** The runtime's file on disk, for symbol sizes (the debugger's lookup gives addresses only). */
    private Optional<ElfFile> runtimeFile;
    private long runtimeBias;
    private boolean walkingLinkMap;
    /**
     * A lookup of this address space failed or was contradicted (not kept here), but core's layout may have
     * kept its absence: the engine makes the address space's handle again before the next call.
     */
    private boolean doubtfulLookup;

    /** The questions the shim answers with the debugger's callbacks; a callback's failure throws its rc. */
    interface Questions {
        byte[] read(long address, int length);

        String readString(long address, int maxLength);

        /** The address of {@code name}, looked up with a thread context (0: none). */
        long symbol(long threadContext, String name);

        long threadContext(long kind, byte[] id);

        byte[] typeSizes();
    }

    /** A callback answered with an rc other than ok. */
    static final class CallbackException extends RuntimeException {
        final OmpdRc rc;

        CallbackException(OmpdRc rc, String what) {
            super(what + ": the debugger's callback answered " + rc.cName());
            this.rc = rc;
        }
    }

    CallbackAddressSpace(Questions questions) {
        this.questions = questions;
        this.pageRefused = new MemoryReadException(name(), 0, PAGE, "page reads are not made through the debugger");
        byte[] sizes = questions.typeSizes();
        if (sizes.length != 6) {
            throw new OmpdException(OmpdRc.CALLBACK_ERROR, "the debugger's sizeof_type answer has " + sizes.length
                    + " sizes (char, short, int, long, long long, pointer expected)");
        }
        this.architecture = new TargetArchitecture(sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5],
                ByteOrder.LITTLE_ENDIAN);
        if (!architecture.equals(TargetArchitecture.X86_64_LINUX)) {
            throw new OmpdException(OmpdRc.INCOMPATIBLE, "the target's type sizes " + architecture
                    + " are not x86-64 Linux's, the only target jompd reads");
        }
    }

    @Override
    public String name() {
        return "ompd-callbacks";
    }

    @Override
    public TargetArchitecture architecture() {
        return architecture;
    }

    @Override
    public void read(long address, byte[] buffer, int offset, int length) {
        if (length == PAGE && (address & (PAGE - 1)) == 0) {
            throw pageRefused;
        }
        long key = address * 31 + length;
        boolean constant = constantAddresses.contains(address);
        byte[] known = constant ? constantReads.get(key) : reads.get(key);
        if (known == null || known.length != length) {
            try {
                known = questions.read(address, length);
            } catch (CallbackException e) {
                throw new MemoryReadException(name(), address, length, e.getMessage());
            }
            if (known.length != length) {
                throw new MemoryReadException(name(), address, length, "the debugger read " + known.length + " bytes");
            }
            if (constant) {
                constantReads.put(key, known);
            } else {
                if (reads.size() > 65_536) {
                    reads.clear();
                }
                reads.put(key, known);
            }
        }
        System.arraycopy(known, 0, buffer, offset, length);
    }

    @Override
    public Optional<TargetSymbol> lookupSymbol(String name) {
        Optional<TargetSymbol> known = symbols.get(name);
        if (known == null) {
            Lookup found = lookup(0, name);
            known = found.symbol();
            if (found.definitive()) { // a failed or contradicted lookup is asked again next time
                symbols.put(name, known);
                if (WRITTEN_AT_START_UP.contains(name)) {
                    known.ifPresent(symbol -> constantAddresses.add(symbol.address()));
                }
            }
        }
        return known;
    }

    @Override
    public Optional<TargetSymbol> lookupSymbol(String name, String moduleNameFragment) {
        // the callback takes a file name, but debuggers (LLVM's gdb plugin) ignore it: the runtime is asked
        return lookupSymbol(name);
    }

    /** A thread-local symbol's address in the thread of {@code threadContext}: never cached. */
    long threadLocalAddress(long threadContext, String name) {
        return lookup(threadContext, name).symbol().orElseThrow(() -> new OmpdException(OmpdRc.UNAVAILABLE,
                "the debugger finds no " + name + " in that thread")).address();
    }

    /**
     * One answer of the debugger's symbol lookup; {@code definitive} when it may be kept for the process (the
     * debugger answered, and nothing contradicts it): a failing callback or an address the runtime's own
     * symbol table contradicts is not kept, so the next call asks again.
     */
    private record Lookup(Optional<TargetSymbol> symbol, boolean definitive) {}

    private Lookup lookup(long threadContext, String name) {
        long address;
        try {
            address = questions.symbol(threadContext, name);
        } catch (CallbackException e) {
            doubtfulLookup |= threadContext == 0;
            return new Lookup(Optional.empty(), false);
        }
        // a debugger may answer ok with 0 or -1 for a symbol it does not know (LLVM's gdb plugin does)
        if (address == 0 || address == -1) {
            return new Lookup(Optional.empty(), true);
        }
        if (threadContext == 0) {
            long expected = fileAddress(name);
            if (expected != 0 && expected != address) {
                System.err.printf("jompd libompd: the debugger looked %s up at 0x%x, the runtime's symbol table "
                        + "puts it at 0x%x: not used%n", name, address, expected);
                doubtfulLookup = true;
                return new Lookup(Optional.empty(), false);
            }
        }
        return new Lookup(Optional.of(new TargetSymbol(name, address, threadContext != 0 ? 0 : sizeOf(name, address),
                runtimeModuleName(), threadContext != 0)), true);
    }

    /** Where the runtime's symbol table on disk puts a global of the runtime in this process; 0 when unknown. */
    private long fileAddress(String name) {
        if (!runtimeFileKnown()) {
            return 0;
        }
        try {
            return runtimeFile.get().symbolTable().lookup(name)
                    .filter(symbol -> symbol.value() != 0 && symbol.sectionIndex() != 0 && symbol.type() != STT_TLS)
                    .map(symbol -> symbol.value() + runtimeBias).orElse(0L);
        } catch (RuntimeException unreadable) {
            return 0;
        }
    }

    /**
     * A global's size from the runtime's symbol table on disk, when that file is the one mapped (its symbol
     * lies where the debugger found it); 0 when unknown. Some ICVs are read at their symbol's size.
     */
    private long sizeOf(String name, long address) {
        if (!runtimeFileKnown()) {
            return 0;
        }
        try {
            return runtimeFile.get().symbolTable().lookup(name)
                    .filter(symbol -> symbol.value() + runtimeBias == address)
                    .map(ElfSymbol::size).orElse(0L);
        } catch (RuntimeException unreadable) {
            return 0;
        }
    }

    /** Whether the runtime's file on disk is open (opened once the link map names the runtime). */
    private boolean runtimeFileKnown() {
        if (runtimeFile == null) {
            if (walkingLinkMap || runtimeModuleName() == null || runtimeModule == null) {
                return false; // not known yet: asked again later
            }
            runtimeFile = Optional.empty();
            String module = runtimeModule;
            for (LoadedModule loaded : modules()) {
                if (loaded.path().getFileName() != null && loaded.path().getFileName().toString().equals(module)) {
                    try {
                        runtimeFile = Optional.of(ElfFile.open(loaded.path()));
                        runtimeBias = loaded.loadBias();
                    } catch (IOException | RuntimeException unreadable) {
                        // sizes stay unknown
                    }
                    break;
                }
            }
        }
        return runtimeFile.isPresent();
    }

    @Override
    public void close() {
        if (runtimeFile != null) {
            runtimeFile.ifPresent(ElfFile::close);
        }
    }

    /** The file name of the module that looks like libomp, for the symbols the debugger finds. */
    private String runtimeModuleName() {
        if (runtimeModule != null) {
            return runtimeModule;
        }
        for (LoadedModule module : modules()) {
            String file = module.path().getFileName() == null ? "" : module.path().getFileName().toString();
            if (file.startsWith("libomp") || file.startsWith("libiomp")) {
                runtimeModule = file;
                return file;
            }
        }
        return "libomp.so";
    }

    /** Whether a global's lookup failed since the last call of this (and so core may keep a wrong absence). */
    boolean takeDoubtfulLookup() {
        boolean doubtful = doubtfulLookup;
        doubtfulLookup = false;
        return doubtful;
    }

    /** Makes {@link #takeDoubtfulLookup} true again (the address space could not be made again). */
    void doubtLookups() {
        doubtfulLookup = true;
    }

    long threadContext(long kind, byte[] id) {
        return questions.threadContext(kind, id);
    }

    /** The link map's modules ({@link LinkMap#entries} from {@code _r_debug}). */
    @Override
    public List<LoadedModule> modules() {
        if (modules != null) {
            return modules;
        }
        List<LoadedModule> found = new ArrayList<>();
        modules = found;
        walkingLinkMap = true;
        try {
            walkLinkMap(found);
        } finally {
            walkingLinkMap = false;
        }
        modules = List.copyOf(found);
        return modules;
    }

    private void walkLinkMap(List<LoadedModule> found) {
        Optional<TargetSymbol> rDebug = lookupSymbol("_r_debug");
        if (rDebug.isEmpty()) {
            return;
        }
        try {
            for (LinkMap.Entry entry : LinkMap.entries(this::readU64, rDebug.get().address())) {
                String path = entry.namePointer() == 0 ? "" : readCString(entry.namePointer(), MAX_PATH);
                if (!path.isEmpty()) {
                    found.add(new LoadedModule(Path.of(path), entry.loadBias(), Optional.empty()));
                }
            }
        } catch (MemoryReadException | CallbackException unreadable) {
            // the modules read so far; symbols still come from the debugger
        }
    }

    /** Through the debugger's string callback ({@code read_string}), which reads the string in one answer. */
    @Override
    public String readCString(long address, int maxLength) {
        return questions.readString(address, maxLength);
    }

    @Override
    public List<dev.jompd.core.target.TargetThread> threads() {
        return List.of();
    }

    /** A new call: nothing read for the previous one is kept (the target may have run since). */
    @Override
    public void resumed() {
        reads.clear();
        modules = null;
    }

    static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
