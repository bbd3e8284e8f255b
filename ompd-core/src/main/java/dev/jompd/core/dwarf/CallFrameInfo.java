package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The call frame information of one module: {@code .eh_frame} (searched through {@code .eh_frame_hdr}'s
 * sorted table when present) or {@code .debug_frame}. Addresses are the file's virtual addresses.
 * The FDE index is built once; rows are computed per lookup by running the CIE's and FDE's
 * instructions (remember/restore state included), bounded by the instructions' length.
 */
public final class CallFrameInfo {
    /** Registers tracked: x86-64 DWARF 0..15 are the general registers, 16 the return address. */
    public static final int REGISTER_COUNT = 17;
    private static final int MAX_STATE_STACK = 64;

    private final ByteView section;
    private final long sectionAddress;
    private final boolean isEhFrame;
    private final long dataBase;
    private final long[] starts;
    private final long[] fdeOffsets;
    private final Map<Long, Cie> cies = new HashMap<>();
    /** Rows already computed, by pc: the threads of one program share their return addresses. */
    private final Map<Long, Optional<UnwindRow>> rows = new java.util.concurrent.ConcurrentHashMap<>();
    private static final int MAX_CACHED_ROWS = 1 << 16;

    private record Cie(int codeAlignment, long dataAlignment, int returnAddressRegister, int fdeEncoding,
                       boolean hasAugmentationData, boolean signalFrame, long instructionsStart,
                       long instructionsEnd, int addressSize) {}

    private record Fde(Cie cie, long pcBegin, long pcRange, long instructionsStart, long instructionsEnd) {}

    private CallFrameInfo(ByteView section, long sectionAddress, boolean isEhFrame, long dataBase, long[] starts,
                          long[] fdeOffsets) {
        this.section = section;
        this.sectionAddress = sectionAddress;
        this.isEhFrame = isEhFrame;
        this.dataBase = dataBase;
        this.starts = starts;
        this.fdeOffsets = fdeOffsets;
    }

    /**
     * {@code .eh_frame} at {@code address}, with {@code .eh_frame_hdr}'s binary search table when the
     * header is given and well formed (otherwise every FDE is indexed by a scan).
     */
    public static CallFrameInfo ehFrame(ByteView ehFrame, long address, Optional<ByteView> header, long headerAddress) {
        if (header.isPresent()) {
            Optional<CallFrameInfo> fromTable = fromHeaderTable(ehFrame, address, header.get(), headerAddress);
            if (fromTable.isPresent()) {
                return fromTable.get();
            }
        }
        return scan(ehFrame, address, true);
    }

    /** {@code .debug_frame} (addresses are absolute, CIE pointers section offsets). */
    public static CallFrameInfo debugFrame(ByteView debugFrame) {
        return scan(debugFrame, 0, false);
    }

    /** How many FDEs the index holds. */
    public int size() {
        return starts.length;
    }

    private static Optional<CallFrameInfo> fromHeaderTable(ByteView ehFrame, long address, ByteView header,
                                                           long headerAddress) {
        DwarfCursor cursor = new DwarfCursor(header, 0);
        int version = cursor.u8();
        int framePointerEncoding = cursor.u8();
        int countEncoding = cursor.u8();
        int tableEncoding = cursor.u8();
        if (version != 1 || countEncoding == DwarfCursor.DW_EH_PE_OMIT || tableEncoding != 0x3b) {
            return Optional.empty(); // the only table encoding binutils and lld write: datarel sdata4
        }
        cursor.encodedPointer(framePointerEncoding, headerAddress, headerAddress);
        long count = cursor.encodedPointer(countEncoding, headerAddress, headerAddress);
        if (count < 0 || count > (header.size() - cursor.position()) / 8) {
            throw new DwarfFormatException(header.source(), ".eh_frame_hdr claims %d entries".formatted(count));
        }
        long[] starts = new long[(int) count];
        long[] offsets = new long[(int) count];
        for (int i = 0; i < count; i++) {
            starts[i] = headerAddress + header.s32(cursor.position());
            offsets[i] = headerAddress + header.s32(cursor.position() + 4) - address;
            cursor.skip(8);
        }
        for (int i = 1; i < count; i++) {
            if (starts[i] < starts[i - 1]) {
                return Optional.empty(); // not sorted: do not trust the table, scan instead
            }
        }
        return Optional.of(new CallFrameInfo(ehFrame, address, true, headerAddress, starts, offsets));
    }

    private static CallFrameInfo scan(ByteView section, long address, boolean isEhFrame) {
        CallFrameInfo partial = new CallFrameInfo(section, address, isEhFrame, 0, new long[0], new long[0]);
        long[] starts = new long[64];
        long[] offsets = new long[64];
        int count = 0;
        DwarfCursor cursor = new DwarfCursor(section, 0);
        while (cursor.position() + 4 <= section.size()) {
            long entryOffset = cursor.position();
            long length = cursor.initialLength();
            boolean dwarf64 = cursor.lastWas64Bit;
            if (length == 0) {
                if (isEhFrame) {
                    break; // the terminator
                }
                continue;
            }
            long end = cursor.position() + length;
            if (end > section.size() || end < cursor.position()) {
                throw new DwarfFormatException(section.source(), "CFI entry at 0x%x runs past the section".formatted(entryOffset));
            }
            long idPosition = cursor.position();
            long id = cursor.offset(dwarf64);
            boolean isCie = isEhFrame ? id == 0 : (dwarf64 ? id == -1L : id == 0xffff_ffffL);
            if (!isCie) {
                long cieOffset = isEhFrame ? idPosition - id : id;
                Cie cie = partial.cie(cieOffset);
                long pcBegin = cursor.encodedPointer(isEhFrame ? cie.fdeEncoding() : 0, address, 0);
                if (count == starts.length) {
                    starts = Arrays.copyOf(starts, count * 2);
                    offsets = Arrays.copyOf(offsets, count * 2);
                }
                starts[count] = pcBegin;
                offsets[count] = entryOffset;
                count++;
            }
            cursor.seek(end);
        }
        // Sort (pcBegin, offset) pairs by pcBegin.
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        long[] unsortedStarts = starts;
        Arrays.sort(order, (a, b) -> Long.compareUnsigned(unsortedStarts[a], unsortedStarts[b]));
        long[] sortedStarts = new long[count];
        long[] sortedOffsets = new long[count];
        for (int i = 0; i < count; i++) {
            sortedStarts[i] = starts[order[i]];
            sortedOffsets[i] = offsets[order[i]];
        }
        CallFrameInfo info = new CallFrameInfo(section, address, isEhFrame, 0, sortedStarts, sortedOffsets);
        info.cies.putAll(partial.cies);
        return info;
    }

    /**
     * The row covering {@code pc} (a file address), empty when no FDE covers it.
     *
     * @throws DwarfFormatException when the covering FDE or its CIE is malformed
     */
    public Optional<UnwindRow> rowFor(long pc) {
        Optional<UnwindRow> cached = rows.get(pc);
        if (cached != null) {
            return cached;
        }
        Optional<UnwindRow> row = computeRow(pc);
        if (rows.size() >= MAX_CACHED_ROWS) {
            rows.clear();
        }
        rows.put(pc, row);
        return row;
    }

    private Optional<UnwindRow> computeRow(long pc) {
        int low = 0;
        int high = starts.length - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(starts[mid], pc) <= 0) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        // Zero-length FDEs can share a start with the real one: look back over equal starts.
        for (int index = found; index >= 0 && index > found - 4; index--) {
            Fde fde = fde(fdeOffsets[index]);
            if (Long.compareUnsigned(pc - fde.pcBegin(), fde.pcRange()) < 0) {
                return Optional.of(execute(fde, pc));
            }
            if (index > 0 && starts[index - 1] != starts[index]) {
                break;
            }
        }
        return Optional.empty();
    }

    private synchronized Cie cie(long offset) {
        Cie cached = cies.get(offset);
        if (cached != null) {
            return cached;
        }
        Cie parsed = parseCie(offset);
        cies.put(offset, parsed);
        return parsed;
    }

    private Cie parseCie(long offset) {
        if (offset < 0 || offset >= section.size()) {
            throw new DwarfFormatException(section.source(), "CIE pointer 0x%x outside the section".formatted(offset));
        }
        DwarfCursor cursor = new DwarfCursor(section, offset);
        long length = cursor.initialLength();
        boolean dwarf64 = cursor.lastWas64Bit;
        long end = cursor.position() + length;
        if (length == 0 || end > section.size() || end < cursor.position()) {
            throw new DwarfFormatException(section.source(), "CIE at 0x%x has a bad length".formatted(offset));
        }
        long id = cursor.offset(dwarf64);
        boolean isCie = isEhFrame ? id == 0 : (dwarf64 ? id == -1L : id == 0xffff_ffffL);
        if (!isCie) {
            throw new DwarfFormatException(section.source(), "entry at 0x%x is not a CIE".formatted(offset));
        }
        int version = cursor.u8();
        if (version != 1 && version != 3 && version != 4) {
            throw new DwarfFormatException(section.source(), "CIE at 0x%x has version %d".formatted(offset, version));
        }
        String augmentation = cursor.cString();
        int addressSize = 8;
        if (version == 4) {
            addressSize = cursor.u8();
            cursor.u8(); // segment selector size
        }
        int codeAlignment = cursor.ulebInt("code alignment");
        long dataAlignment = cursor.sleb();
        int returnAddressRegister = version == 1 ? cursor.u8() : cursor.ulebInt("return address register");
        int fdeEncoding = 0;
        boolean signalFrame = false;
        boolean hasAugmentationData = false;
        if (augmentation.startsWith("z")) {
            hasAugmentationData = true;
            long dataLength = cursor.uleb();
            long dataEnd = cursor.position() + dataLength;
            if (dataLength < 0 || dataEnd > end) {
                throw new DwarfFormatException(section.source(), "CIE at 0x%x: augmentation data overruns".formatted(offset));
            }
            for (int i = 1; i < augmentation.length(); i++) {
                switch (augmentation.charAt(i)) {
                    case 'L' -> cursor.u8();
                    case 'P' -> {
                        int encoding = cursor.u8();
                        cursor.encodedPointer(encoding & 0x7f, sectionAddress, dataBase);
                    }
                    case 'R' -> fdeEncoding = cursor.u8();
                    case 'S' -> signalFrame = true;
                    case 'B', 'G' -> { }
                    default -> i = augmentation.length(); // unknown: the data length lets us skip the rest
                }
            }
            cursor.seek(dataEnd);
        } else if (augmentation.equals("eh")) {
            cursor.u64(); // old GCC's eh_ptr
        } else if (!augmentation.isEmpty()) {
            throw new DwarfFormatException(section.source(), "CIE at 0x%x: unknown augmentation \"%s\"".formatted(offset, augmentation));
        }
        return new Cie(codeAlignment, dataAlignment, returnAddressRegister, fdeEncoding, hasAugmentationData,
                signalFrame, cursor.position(), end, addressSize);
    }

    private Fde fde(long offset) {
        if (offset < 0 || offset >= section.size()) {
            throw new DwarfFormatException(section.source(), "FDE offset 0x%x outside the section".formatted(offset));
        }
        DwarfCursor cursor = new DwarfCursor(section, offset);
        long length = cursor.initialLength();
        boolean dwarf64 = cursor.lastWas64Bit;
        long end = cursor.position() + length;
        if (length == 0 || end > section.size() || end < cursor.position()) {
            throw new DwarfFormatException(section.source(), "FDE at 0x%x has a bad length".formatted(offset));
        }
        long idPosition = cursor.position();
        long id = cursor.offset(dwarf64);
        Cie cie = cie(isEhFrame ? idPosition - id : id);
        long pcBegin;
        long pcRange;
        if (isEhFrame) {
            pcBegin = cursor.encodedPointer(cie.fdeEncoding(), sectionAddress, dataBase);
            pcRange = cursor.encodedPointer(cie.fdeEncoding() & 0x0f, sectionAddress, dataBase);
        } else {
            pcBegin = cursor.unsigned(cie.addressSize());
            pcRange = cursor.unsigned(cie.addressSize());
        }
        if (cie.hasAugmentationData()) {
            long dataLength = cursor.uleb();
            if (dataLength < 0 || cursor.position() + dataLength > end) {
                throw new DwarfFormatException(section.source(), "FDE at 0x%x: augmentation data overruns".formatted(offset));
            }
            cursor.skip(dataLength);
        }
        return new Fde(cie, pcBegin, pcRange, cursor.position(), end);
    }

    private UnwindRow execute(Fde fde, long pc) {
        Cie cie = fde.cie();
        UnwindRule[] initial = new UnwindRule[REGISTER_COUNT];
        Arrays.fill(initial, UnwindRule.SAME_VALUE);
        State state = new State(initial);
        run(cie, fde, cie.instructionsStart(), cie.instructionsEnd(), Long.MAX_VALUE, state, null);
        UnwindRule[] cieRules = state.registers.clone();
        run(cie, fde, fde.instructionsStart(), fde.instructionsEnd(), pc, state, cieRules);
        if (state.cfa == null) {
            throw new DwarfFormatException(section.source(), "FDE for 0x%x defines no CFA".formatted(fde.pcBegin()));
        }
        return new UnwindRow(state.cfa, state.registers, cie.returnAddressRegister(), cie.signalFrame());
    }

    private static final class State {
        UnwindRule cfa;
        UnwindRule[] registers;
        final UnwindRule[] savedCfa = new UnwindRule[MAX_STATE_STACK];
        final UnwindRule[][] savedRegisters = new UnwindRule[MAX_STATE_STACK][];
        int saved;

        State(UnwindRule[] registers) {
            this.registers = registers;
        }
    }

    /** Runs instructions in [start, end) while the location stays at or below {@code pc}. */
    private void run(Cie cie, Fde fde, long start, long end, long pc, State state, UnwindRule[] cieRules) {
        DwarfCursor cursor = new DwarfCursor(section, start);
        long location = fde.pcBegin();
        String source = section.source();
        while (cursor.position() < end) {
            int opcode = cursor.u8();
            int high = opcode & 0xc0;
            int low = opcode & 0x3f;
            long advance = -1;
            if (high == 0x40) {
                advance = (long) low * cie.codeAlignment();
            } else if (high == 0x80) {
                set(state, low, new UnwindRule.AtCfaOffset(cursor.uleb() * cie.dataAlignment()));
            } else if (high == 0xc0) {
                restore(state, low, cieRules, source);
            } else {
                switch (opcode) {
                    case 0x00 -> { }
                    case 0x01 -> {
                        long newLocation = isEhFrame ? cursor.encodedPointer(cie.fdeEncoding(), sectionAddress, dataBase)
                                : cursor.unsigned(cie.addressSize());
                        if (Long.compareUnsigned(newLocation, pc) > 0) {
                            return;
                        }
                        location = newLocation;
                    }
                    case 0x02 -> advance = (long) cursor.u8() * cie.codeAlignment();
                    case 0x03 -> advance = (long) cursor.u16() * cie.codeAlignment();
                    case 0x04 -> advance = cursor.u32() * cie.codeAlignment();
                    case 0x05 -> set(state, cursor.ulebInt("register"), new UnwindRule.AtCfaOffset(cursor.uleb() * cie.dataAlignment()));
                    case 0x06 -> restore(state, cursor.ulebInt("register"), cieRules, source);
                    case 0x07 -> set(state, cursor.ulebInt("register"), UnwindRule.UNDEFINED);
                    case 0x08 -> set(state, cursor.ulebInt("register"), UnwindRule.SAME_VALUE);
                    case 0x09 -> set(state, cursor.ulebInt("register"), new UnwindRule.InRegister(cursor.ulebInt("register")));
                    case 0x0a -> {
                        if (state.saved >= MAX_STATE_STACK) {
                            throw new DwarfFormatException(source, "DW_CFA_remember_state nested deeper than " + MAX_STATE_STACK);
                        }
                        state.savedCfa[state.saved] = state.cfa;
                        state.savedRegisters[state.saved] = state.registers.clone();
                        state.saved++;
                    }
                    case 0x0b -> {
                        if (state.saved == 0) {
                            throw new DwarfFormatException(source, "DW_CFA_restore_state without a remembered state");
                        }
                        state.saved--;
                        state.cfa = state.savedCfa[state.saved];
                        state.registers = state.savedRegisters[state.saved];
                    }
                    case 0x0c -> state.cfa = new UnwindRule.CfaRegisterOffset(cursor.ulebInt("register"), cursor.uleb());
                    case 0x0d -> state.cfa = new UnwindRule.CfaRegisterOffset(cursor.ulebInt("register"), cfaOffset(state, source));
                    case 0x0e -> state.cfa = new UnwindRule.CfaRegisterOffset(cfaRegister(state, source), cursor.uleb());
                    case 0x0f -> state.cfa = new UnwindRule.CfaExpression(block(cursor, end));
                    case 0x10 -> set(state, cursor.ulebInt("register"), new UnwindRule.AtExpression(blockAfterRegister(cursor, end)));
                    case 0x11 -> set(state, cursor.ulebInt("register"), new UnwindRule.AtCfaOffset(cursor.sleb() * cie.dataAlignment()));
                    case 0x12 -> state.cfa = new UnwindRule.CfaRegisterOffset(cursor.ulebInt("register"), cursor.sleb() * cie.dataAlignment());
                    case 0x13 -> state.cfa = new UnwindRule.CfaRegisterOffset(cfaRegister(state, source), cursor.sleb() * cie.dataAlignment());
                    case 0x14 -> set(state, cursor.ulebInt("register"), new UnwindRule.ValueCfaOffset(cursor.uleb() * cie.dataAlignment()));
                    case 0x15 -> set(state, cursor.ulebInt("register"), new UnwindRule.ValueCfaOffset(cursor.sleb() * cie.dataAlignment()));
                    case 0x16 -> set(state, cursor.ulebInt("register"), new UnwindRule.ValueExpression(blockAfterRegister(cursor, end)));
                    case 0x2e -> cursor.uleb(); // GNU_args_size: matters only for exception landing pads
                    case 0x2f -> set(state, cursor.ulebInt("register"), new UnwindRule.AtCfaOffset(-cursor.uleb() * cie.dataAlignment()));
                    default -> throw new DwarfFormatException(source, "unknown CFA instruction 0x%x at 0x%x"
                            .formatted(opcode, cursor.position() - 1));
                }
            }
            if (advance >= 0) {
                long newLocation = location + advance;
                if (Long.compareUnsigned(newLocation, pc) > 0) {
                    return;
                }
                location = newLocation;
            }
        }
    }

    private static ByteView block(DwarfCursor cursor, long end) {
        long length = cursor.uleb();
        if (length < 0 || cursor.position() + length > end) {
            throw new DwarfFormatException(cursor.bytes().source(), "expression at 0x%x overruns its entry".formatted(cursor.position()));
        }
        ByteView block = cursor.bytes().slice(cursor.position(), length, "DWARF expression");
        cursor.skip(length);
        return block;
    }

    private static ByteView blockAfterRegister(DwarfCursor cursor, long end) {
        return block(cursor, end);
    }

    private static void set(State state, int register, UnwindRule rule) {
        if (register < REGISTER_COUNT) {
            state.registers[register] = rule; // vector and other registers: not needed to unwind
        }
    }

    private static void restore(State state, int register, UnwindRule[] cieRules, String source) {
        if (cieRules == null) {
            throw new DwarfFormatException(source, "DW_CFA_restore in a CIE");
        }
        if (register < REGISTER_COUNT) {
            state.registers[register] = cieRules[register];
        }
    }

    private static int cfaRegister(State state, String source) {
        if (state.cfa instanceof UnwindRule.CfaRegisterOffset(int register, long offset)) {
            return register;
        }
        throw new DwarfFormatException(source, "CFA offset change without a register CFA rule");
    }

    private static long cfaOffset(State state, String source) {
        if (state.cfa instanceof UnwindRule.CfaRegisterOffset(int register, long offset)) {
            return offset;
        }
        throw new DwarfFormatException(source, "CFA register change without a register CFA rule");
    }
}
