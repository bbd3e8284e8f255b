package dev.jompd.core.unwind;

import dev.jompd.core.dwarf.CallFrameInfo;
import dev.jompd.core.dwarf.DwarfExpression;
import dev.jompd.core.dwarf.DwarfFormatException;
import dev.jompd.core.dwarf.CallSite;
import dev.jompd.core.dwarf.FunctionScopes;
import dev.jompd.core.dwarf.UnwindRow;
import dev.jompd.core.dwarf.UnwindRule;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.X86_64;
import dev.jompd.core.unwind.NativeStack.Reason;
import dev.jompd.core.unwind.NativeStack.Truncation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Unwinds the native stacks of one stop's threads (x86-64) through the {@link AddressSpace}: only its
 * memory reads, its threads' registers and its modules' files on disk. Call frame information comes
 * from {@code .eh_frame} (through {@code .eh_frame_hdr}) and {@code .debug_frame}; a signal
 * trampoline's frame ({@code S} augmentation, or {@code __restore_rt} by name) yields the interrupted
 * frame's registers; a pc without call frame information falls back to the frame-pointer chain
 * (marked). Every walk is bounded: a frame limit, a CFA that must grow, a (pc, CFA) visited set.
 *
 * <p>One instance belongs to one stop (it caches stack memory and the module map); parsed debug data
 * lives in the {@link DebugInfoCache} across stops.
 */
public final class Unwinder implements AutoCloseable {
    private static final int RSP = X86_64.DWARF_RSP;
    private static final int RBP = X86_64.DWARF_RBP;
    private static final int RIP = X86_64.DWARF_RIP;
    /**
     * The registers a thread's stack is unwound from, by their {@code user_regs_struct} names: what a
     * debugger that holds the process passes in (TargetThread's registers).
     */
    public static final List<String> REGISTERS = X86_64.DWARF_REGISTERS;
    private static final int PAGE_SIZE = (int) X86_64.PAGE_SIZE;
    private static final int MAX_CACHED_PAGES = 4096;

    /**
     * @param maxFrames            the most frames (inlined ones included) a stack may have
     * @param framePointerFallback whether to follow the frame-pointer chain where no CFI covers a pc
     */
    public record Options(int maxFrames, boolean framePointerFallback) {
        public static final Options DEFAULT = new Options(512, true);
    }

    private final AddressSpace space;
    private final Options options;
    private final ModuleMap modules;
    private final SourceLocator locator;
    private final Map<Long, byte[]> pages = new HashMap<>();

    public Unwinder(AddressSpace space, DebugInfoCache cache) {
        this(space, cache, Options.DEFAULT);
    }

    public Unwinder(AddressSpace space, DebugInfoCache cache, Options options) {
        this.space = space;
        this.options = options;
        this.modules = new ModuleMap(space.modules(), cache);
        this.locator = new SourceLocator(modules);
    }

    /** This stop's source locator (sharing the module map). */
    public SourceLocator sourceLocator() {
        return locator;
    }

    /** Every thread's stack, in the order the address space lists the threads. */
    public List<NativeStack> unwindAll() {
        List<NativeStack> stacks = new ArrayList<>();
        for (TargetThread thread : space.threads()) {
            stacks.add(unwind(thread));
        }
        return stacks;
    }

    /** The thread's stack; never throws for bad data: a cut-short stack says why. */
    public NativeStack unwind(TargetThread thread) {
        long[] registers = new long[CallFrameInfo.REGISTER_COUNT];
        boolean[] known = new boolean[CallFrameInfo.REGISTER_COUNT];
        for (int i = 0; i < REGISTERS.size(); i++) {
            OptionalLong value = thread.register(REGISTERS.get(i));
            if (value.isPresent()) {
                registers[i] = value.getAsLong();
                known[i] = true;
            }
        }
        List<NativeFrame> frames = new ArrayList<>();
        if (!known[RIP] || !known[RSP]) {
            return new NativeStack(thread.lwp(), frames, Optional.of(new Truncation(Reason.NO_REGISTERS,
                    "the thread's pc or stack pointer is unknown")));
        }
        try {
            return new NativeStack(thread.lwp(), frames, walk(registers, known, frames));
        } catch (RuntimeException unexpected) {
            // A bug of ours, not bad data: still answer with what was found, and say so.
            return new NativeStack(thread.lwp(), frames, Optional.of(new Truncation(Reason.BAD_UNWIND_INFO,
                    "unwinding failed: " + unexpected)));
        }
    }

    private Optional<Truncation> walk(long[] registers, boolean[] known, List<NativeFrame> frames) {
        UnwindMethod method = UnwindMethod.THREAD_REGISTERS;
        boolean exactPc = true;
        long previousCfa = 0;
        boolean previousWasSignalTrampoline = false;
        Set<String> visited = new HashSet<>();
        while (true) {
            long pc = registers[RIP];
            if (frames.size() >= options.maxFrames()) {
                return Optional.of(new Truncation(Reason.TOO_MANY_FRAMES, "more than %d frames".formatted(options.maxFrames())));
            }
            long lookup = exactPc ? pc : pc - 1;
            Optional<ModuleMap.Mapping> mapping = modules.at(lookup);
            Optional<UnwindRow> row = Optional.empty();
            String cfiProblem = null;
            if (mapping.isPresent()) {
                try {
                    row = rowFor(mapping.get(), lookup);
                } catch (ElfFormatException e) {
                    cfiProblem = e.getMessage();
                }
            }
            Optional<String> symbol = symbolAt(pc).map(entry -> entry.getValue() == 0 ? entry.getKey()
                    : entry.getKey() + "+0x" + Long.toHexString(entry.getValue()));
            // A signal trampoline is entered by the kernel, not called: its name is at its pc (the
            // byte before it, where a return address would be looked up, is outside the function).
            boolean trampolineRow = row.isPresent() && row.get().signalFrame();
            Optional<String> trampolineName = symbolAt(pc).map(Map.Entry::getKey).filter("__restore_rt"::equals);
            if (trampolineRow || trampolineName.isPresent()) {
                lookup = pc;
            }
            Optional<Map.Entry<String, Long>> lookupSymbol = symbolAt(lookup);
            Optional<String> symbolName = lookupSymbol.map(Map.Entry::getKey);
            long lookedUp = lookup;
            OptionalLong entry = lookupSymbol.map(found -> OptionalLong.of(lookedUp - found.getValue()))
                    .orElse(OptionalLong.empty());
            long cfa;
            Optional<Truncation> stop = Optional.empty();
            long[] caller = registers.clone();
            boolean[] callerKnown = known.clone();
            boolean signalTrampoline = false;
            UnwindMethod callerMethod = UnwindMethod.CALL_FRAME_INFO;
            try {
                if (row.isPresent()) {
                    cfa = computeCfa(row.get(), registers, known);
                    signalTrampoline = row.get().signalFrame();
                    callerMethod = signalTrampoline ? UnwindMethod.SIGNAL_CONTEXT : UnwindMethod.CALL_FRAME_INFO;
                    addFrames(frames, pc, lookup, Optional.of(cfa), mapping, symbol, symbolName, entry, method);
                    applyRules(row.get(), cfa, registers, known, caller, callerKnown);
                    int returnColumn = row.get().returnAddressRegister();
                    if (row.get().rule(returnColumn) instanceof UnwindRule.Undefined) {
                        return Optional.empty(); // the outermost frame (clone3, _start mark it so)
                    }
                    if (returnColumn != RIP) {
                        caller[RIP] = caller[returnColumn];
                        callerKnown[RIP] = callerKnown[returnColumn];
                    }
                } else if (symbolName.filter("__restore_rt"::equals).isPresent()) {
                    cfa = registers[RSP];
                    addFrames(frames, pc, lookup, Optional.of(cfa), mapping, symbol, symbolName, entry, method);
                    long gregs = registers[RSP] + X86_64.UCONTEXT_GREGS_OFFSET;
                    for (int r = 0; r < CallFrameInfo.REGISTER_COUNT; r++) {
                        caller[r] = readLong(gregs + 8L * X86_64.gregsIndex(r));
                        callerKnown[r] = true;
                    }
                    signalTrampoline = true;
                    callerMethod = UnwindMethod.SIGNAL_CONTEXT;
                } else {
                    String why = cfiProblem != null ? cfiProblem
                            : mapping.isEmpty() ? "pc 0x%x lies in no module".formatted(pc)
                            : "no call frame information covers pc 0x%x in %s".formatted(pc, mapping.get().module().path().getFileName());
                    boolean fallback = options.framePointerFallback() && known[RBP]
                            && Long.compareUnsigned(registers[RBP], registers[RSP]) >= 0 && (registers[RBP] & 7) == 0;
                    if (!fallback) {
                        addFrames(frames, pc, lookup, Optional.empty(), mapping, symbol, symbolName, entry, method);
                        return Optional.of(new Truncation(cfiProblem != null ? Reason.BAD_UNWIND_INFO : Reason.NO_UNWIND_INFO, why));
                    }
                    cfa = registers[RBP] + 16;
                    addFrames(frames, pc, lookup, Optional.of(cfa), mapping, symbol, symbolName, entry, method);
                    caller[RIP] = readLong(registers[RBP] + 8);
                    caller[RBP] = readLong(registers[RBP]);
                    caller[RSP] = cfa;
                    callerKnown[RIP] = callerKnown[RBP] = callerKnown[RSP] = true;
                    callerMethod = UnwindMethod.FRAME_POINTER;
                }
            } catch (MemoryReadException e) {
                return Optional.of(new Truncation(Reason.UNREADABLE_MEMORY, e.getMessage()));
            } catch (ElfFormatException e) {
                return Optional.of(new Truncation(Reason.BAD_UNWIND_INFO, e.getMessage()));
            } catch (TargetException e) {
                return Optional.of(new Truncation(Reason.UNREADABLE_MEMORY, e.getMessage()));
            }
            if (!callerKnown[RIP] || caller[RIP] == 0) {
                return Optional.empty(); // no return address: the outermost frame
            }
            if (!previousWasSignalTrampoline
                    && Long.compareUnsigned(cfa, previousCfa) <= 0 && method != UnwindMethod.THREAD_REGISTERS) {
                return Optional.of(new Truncation(Reason.CFA_NOT_INCREASING,
                        "the CFA 0x%x of the frame at pc 0x%x is not above its callee's 0x%x".formatted(cfa, pc, previousCfa)));
            }
            if (!visited.add(pc + ":" + cfa)) {
                return Optional.of(new Truncation(Reason.LOOP, "pc 0x%x with CFA 0x%x came back".formatted(pc, cfa)));
            }
            if (!callerKnown[RSP]) {
                caller[RSP] = cfa;
                callerKnown[RSP] = true;
            }
            if (!signalTrampoline) {
                for (NativeFrame tailCall : tailCallFrames(mapping, lookup, caller[RIP], cfa)) {
                    if (frames.size() >= options.maxFrames()) {
                        break;
                    }
                    frames.add(tailCall);
                }
            }
            previousCfa = cfa;
            previousWasSignalTrampoline = signalTrampoline;
            System.arraycopy(caller, 0, registers, 0, registers.length);
            System.arraycopy(callerKnown, 0, known, 0, known.length);
            exactPc = signalTrampoline;
            method = callerMethod;
        }
    }

    private static final int MAX_TAIL_CALL_CHAIN = 8;
    private static final int MAX_TAIL_CALL_PATHS = 64;

    /**
     * Frames of functions that tail-called their way from the caller's call (returning to
     * {@code returnAddress}) to the callee at {@code calleeLookup}: gdb's tail-call frames. Only when
     * the call site's target is not the callee and exactly one chain of described tail calls leads from
     * it to the callee, within one module.
     */
    private List<NativeFrame> tailCallFrames(Optional<ModuleMap.Mapping> calleeMapping, long calleeLookup,
                                             long returnAddress, long cfa) {
        Optional<ModuleMap.Mapping> callerMapping = modules.at(returnAddress - 1);
        if (calleeMapping.isEmpty() || callerMapping.isEmpty()
                || calleeMapping.get().info() != callerMapping.get().info()) {
            return List.of();
        }
        ModuleMap.Mapping mapping = callerMapping.get();
        long bias = mapping.module().loadBias();
        try {
            Optional<FunctionScopes> scopes = mapping.info().scopes();
            if (scopes.isEmpty()) {
                return List.of();
            }
            OptionalLong calleeEntry = scopes.get().functionEntryAt(calleeLookup - bias);
            Optional<CallSite> site = scopes.get().callSiteReturningTo(returnAddress - bias);
            if (calleeEntry.isEmpty() || site.isEmpty() || site.get().tailCall()) {
                return List.of();
            }
            OptionalLong target = entryOf(mapping.info(), site.get());
            if (target.isEmpty() || target.getAsLong() == calleeEntry.getAsLong()) {
                return List.of();
            }
            List<List<Long>> paths = new ArrayList<>();
            findTailCallPaths(scopes.get(), mapping.info(), target.getAsLong(), calleeEntry.getAsLong(),
                    new ArrayList<>(), new ArrayList<>(), paths);
            if (paths.size() != 1) {
                return List.of(); // none or ambiguous: gdb shows no tail-call frames either then
            }
            List<Long> returnPcs = paths.getFirst();
            List<NativeFrame> frames = new ArrayList<>();
            for (int i = returnPcs.size() - 1; i >= 0; i--) {
                long pc = returnPcs.get(i) + bias;
                // One frame per tail call, named by the innermost scope at the jump, as gdb shows them
                // (no frames for the functions that scope was inlined into).
                SourceLocator.ScopeFrame scope = locator.scopeFrames(mapping, pc - 1).getFirst();
                Optional<Map.Entry<String, Long>> jumpSymbol = symbolAt(pc - 1);
                frames.add(new NativeFrame(pc, Optional.of(cfa),
                        FrameNames.of(scope).or(() -> jumpSymbol.map(Map.Entry::getKey).map(FrameNames::ofSymbol)),
                        Optional.empty(), Optional.of(mapping.module().path().getFileName().toString()), scope.source(),
                        false, UnwindMethod.TAIL_CALL,
                        jumpSymbol.map(found -> OptionalLong.of(pc - 1 - found.getValue())).orElse(OptionalLong.empty())));
            }
            return frames;
        } catch (ElfFormatException e) {
            return List.of(); // damaged call sites: the physical frames stand on their own
        }
    }

    private static OptionalLong entryOf(ModuleDebugInfo info, CallSite site) {
        if (site.targetEntry().isPresent()) {
            return site.targetEntry();
        }
        return site.targetName().map(info::addressOf).orElse(OptionalLong.empty());
    }

    /** Depth-first over tail calls from {@code function} to {@code callee}, bounded in depth and paths. */
    private static void findTailCallPaths(FunctionScopes scopes, ModuleDebugInfo info, long function,
                                          long callee, List<Long> visited, List<Long> returnPcs, List<List<Long>> paths) {
        if (visited.size() >= MAX_TAIL_CALL_CHAIN || visited.contains(function) || paths.size() >= MAX_TAIL_CALL_PATHS) {
            return;
        }
        visited.add(function);
        for (CallSite site : scopes.tailCallsOf(function)) {
            OptionalLong target = entryOf(info, site);
            if (target.isEmpty()) {
                continue;
            }
            returnPcs.add(site.returnPc());
            if (target.getAsLong() == callee) {
                paths.add(List.copyOf(returnPcs));
            } else {
                findTailCallPaths(scopes, info, target.getAsLong(), callee, visited, returnPcs, paths);
            }
            returnPcs.removeLast();
        }
        visited.removeLast();
    }

    /** The symbol table's function at a run-time address (the tables are cached across stops). */
    private Optional<Map.Entry<String, Long>> symbolAt(long address) {
        return modules.at(address).flatMap(mapping -> mapping.info().symbolAt(address - mapping.module().loadBias()));
    }

    private Optional<UnwindRow> rowFor(ModuleMap.Mapping mapping, long lookup) {
        long fileAddress = lookup - mapping.module().loadBias();
        Optional<CallFrameInfo> ehFrame = mapping.info().ehFrame();
        if (ehFrame.isPresent()) {
            Optional<UnwindRow> row = ehFrame.get().rowFor(fileAddress);
            if (row.isPresent()) {
                return row;
            }
        }
        Optional<CallFrameInfo> debugFrame = mapping.info().debugFrame();
        return debugFrame.isPresent() ? debugFrame.get().rowFor(fileAddress) : Optional.empty();
    }

    private void addFrames(List<NativeFrame> frames, long pc, long lookup, Optional<Long> cfa,
                           Optional<ModuleMap.Mapping> mapping, Optional<String> symbol, Optional<String> symbolName,
                           OptionalLong entry, UnwindMethod method) {
        Optional<String> module = mapping.map(m -> m.module().path().getFileName().toString());
        if (mapping.isEmpty()) {
            frames.add(new NativeFrame(pc, cfa, symbolName.map(FrameNames::ofSymbol), symbol, module, Optional.empty(),
                    false, method, entry));
            return;
        }
        List<SourceLocator.ScopeFrame> scopes = locator.scopeFrames(mapping.get(), lookup);
        for (SourceLocator.ScopeFrame scope : scopes) {
            if (frames.size() >= options.maxFrames()) {
                return;
            }
            frames.add(new NativeFrame(pc, cfa, FrameNames.of(scope).or(() -> symbolName.map(FrameNames::ofSymbol)), symbol,
                    module, scope.source(), scope.inlined(), scope.inlined() ? UnwindMethod.INLINED : method,
                    scope.inlined() ? OptionalLong.empty() : entry));
        }
    }

    private long computeCfa(UnwindRow row, long[] registers, boolean[] known) {
        if (row.cfa() instanceof UnwindRule.CfaRegisterOffset(int register, long offset)) {
            if (register >= registers.length || !known[register]) {
                throw new DwarfFormatException("CFI", "the CFA's register %d has no known value".formatted(register));
            }
            return registers[register] + offset;
        }
        if (row.cfa() instanceof UnwindRule.CfaExpression(var expression)) {
            return DwarfExpression.evaluate(expression, OptionalLong.empty(), registerSource(registers, known), this::read);
        }
        throw new DwarfFormatException("CFI", "no CFA rule");
    }

    private void applyRules(UnwindRow row, long cfa, long[] registers, boolean[] known, long[] caller, boolean[] callerKnown) {
        DwarfExpression.Registers source = registerSource(registers, known);
        for (int r = 0; r < CallFrameInfo.REGISTER_COUNT; r++) {
            UnwindRule rule = row.rule(r);
            // instanceof, not a pattern switch: that one dispatches through a class made at run time, slow
            // in the interpreter for every register of every frame (cold start)
            if (rule instanceof UnwindRule.Undefined) {
                callerKnown[r] = false;
            } else if (rule instanceof UnwindRule.AtCfaOffset(long offset)) {
                caller[r] = readLong(cfa + offset);
                callerKnown[r] = true;
            } else if (rule instanceof UnwindRule.ValueCfaOffset(long offset)) {
                caller[r] = cfa + offset;
                callerKnown[r] = true;
            } else if (rule instanceof UnwindRule.InRegister(int other)) {
                if (other < registers.length) {
                    caller[r] = registers[other];
                    callerKnown[r] = known[other];
                } else {
                    callerKnown[r] = false;
                }
            } else if (rule instanceof UnwindRule.AtExpression(var expression)) {
                caller[r] = readLong(DwarfExpression.evaluate(expression, OptionalLong.of(cfa), source, this::read));
                callerKnown[r] = true;
            } else if (rule instanceof UnwindRule.ValueExpression(var expression)) {
                caller[r] = DwarfExpression.evaluate(expression, OptionalLong.of(cfa), source, this::read);
                callerKnown[r] = true;
            }
            // SameValue (and any other rule): the caller's register stays as it is
        }
        if (row.rule(RSP) instanceof UnwindRule.SameValue) {
            caller[RSP] = cfa; // the caller's stack pointer is the CFA unless a rule says otherwise
            callerKnown[RSP] = true;
        }
    }

    private static DwarfExpression.Registers registerSource(long[] registers, boolean[] known) {
        return number -> number >= 0 && number < registers.length && known[number]
                ? OptionalLong.of(registers[number]) : OptionalLong.empty();
    }

    private long read(long address, int size) {
        long value = readLong(address);
        return size == 8 ? value : value & ((1L << (8 * size)) - 1);
    }

    /** An 8-byte little-endian read through a page cache (stacks are read many times over). */
    private long readLong(long address) {
        long page = address & -PAGE_SIZE;
        int offset = (int) (address - page);
        if (offset <= PAGE_SIZE - 8) {
            byte[] bytes = pages.get(page);
            if (bytes == null && pages.size() < MAX_CACHED_PAGES) {
                try {
                    bytes = new byte[PAGE_SIZE];
                    space.read(page, bytes, 0, PAGE_SIZE);
                    pages.put(page, bytes);
                } catch (MemoryReadException e) {
                    bytes = null; // part of the page may be unmapped: read just the value
                }
            }
            if (bytes != null) {
                return littleEndian(bytes, offset);
            }
        }
        byte[] value = new byte[8];
        space.read(address, value, 0, 8);
        return littleEndian(value, 0);
    }

    private static long littleEndian(byte[] bytes, int offset) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = (value << 8) | (bytes[offset + i] & 0xff);
        }
        return value;
    }

    @Override
    public void close() {
        pages.clear();
    }
}
