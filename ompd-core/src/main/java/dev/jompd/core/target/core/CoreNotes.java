package dev.jompd.core.target.core;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.ElfNote;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.X86_64;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What an x86-64 Linux core's notes say: threads (NT_PRSTATUS), the process (NT_PRPSINFO), the
 * auxiliary vector (NT_AUXV) and the mapped files (NT_FILE). Layouts are those of the kernel's
 * {@code struct elf_prstatus}, {@code struct elf_prpsinfo} and {@code fill_files_note()}; gdb's gcore
 * writes the same.
 */
record CoreNotes(
        List<TargetThread> threads, List<FileMapping> fileMappings, Map<Long, Long> auxiliaryVector,
        Optional<String> programName, OptionalLong processId) {

    static final long AT_PHDR = 3;
    static final long AT_ENTRY = 9;

    /** user_regs_struct, in order: prstatus holds it from {@link #PRSTATUS_REGISTERS_OFFSET}. */
    private static final List<String> REGISTER_NAMES = X86_64.USER_REGS;
    private static final int PRSTATUS_PID_OFFSET = 32;
    private static final int PRSTATUS_REGISTERS_OFFSET = 112;
    private static final int PRPSINFO_PID_OFFSET = 24;
    private static final int PRPSINFO_FNAME_OFFSET = 40;
    private static final int PRPSINFO_FNAME_LENGTH = 16;
    private static final int NT_FILE_ENTRY_SIZE = 24;
    private static final int MAX_PATH_LENGTH = 4096;

    static CoreNotes parse(List<ElfNote> notes) {
        List<TargetThread> threads = new ArrayList<>();
        List<FileMapping> fileMappings = List.of();
        Map<Long, Long> auxiliaryVector = Map.of();
        Optional<String> programName = Optional.empty();
        OptionalLong processId = OptionalLong.empty();
        for (ElfNote note : notes) {
            if (!note.name().equals("CORE")) {
                continue;
            }
            switch (note.type()) {
                case ElfNote.NT_PRSTATUS -> threads.add(parseThread(note.descriptor(), threads.size()));
                case ElfNote.NT_PRPSINFO -> {
                    ByteView info = requireSize(note.descriptor(), PRPSINFO_FNAME_OFFSET + PRPSINFO_FNAME_LENGTH, "NT_PRPSINFO");
                    processId = OptionalLong.of(info.s32(PRPSINFO_PID_OFFSET));
                    programName = Optional.of(info.cString(PRPSINFO_FNAME_OFFSET, PRPSINFO_FNAME_LENGTH))
                            .filter(name -> !name.isEmpty());
                }
                case ElfNote.NT_AUXV -> auxiliaryVector = parseAuxiliaryVector(note.descriptor());
                case ElfNote.NT_FILE -> fileMappings = parseFileMappings(note.descriptor());
                default -> { }
            }
        }
        return new CoreNotes(List.copyOf(threads), fileMappings, auxiliaryVector, programName, processId);
    }

    OptionalLong auxiliaryValue(long type) {
        Long value = auxiliaryVector.get(type);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    private static ByteView requireSize(ByteView descriptor, long minimumSize, String what) {
        if (descriptor.size() < minimumSize) {
            throw new ElfFormatException(descriptor.source(), "%s note has %d bytes, expected at least %d"
                    .formatted(what, descriptor.size(), minimumSize));
        }
        return descriptor;
    }

    private static TargetThread parseThread(ByteView prstatus, int index) {
        requireSize(prstatus, PRSTATUS_REGISTERS_OFFSET + 8L * REGISTER_NAMES.size(), "NT_PRSTATUS " + index);
        Map<String, Long> registers = new LinkedHashMap<>();
        for (int i = 0; i < REGISTER_NAMES.size(); i++) {
            registers.put(REGISTER_NAMES.get(i), prstatus.u64(PRSTATUS_REGISTERS_OFFSET + 8L * i));
        }
        return TargetThread.fromRegisters(prstatus.s32(PRSTATUS_PID_OFFSET), registers);
    }

    private static Map<Long, Long> parseAuxiliaryVector(ByteView auxv) {
        Map<Long, Long> entries = new LinkedHashMap<>();
        // (type, value) pairs up to AT_NULL; the note's size bounds the count.
        for (long offset = 0; offset + 16 <= auxv.size(); offset += 16) {
            long type = auxv.u64(offset);
            if (type == 0) {
                break;
            }
            entries.putIfAbsent(type, auxv.u64(offset + 8));
        }
        return Map.copyOf(entries);
    }

    /**
     * NT_FILE: count, page size, count × (start, end, file offset in pages), then count NUL-terminated
     * paths. The kernel records a page size of 4096, gdb one of 1.
     */
    private static List<FileMapping> parseFileMappings(ByteView note) {
        requireSize(note, 16, "NT_FILE");
        long count = note.u64(0);
        long pageSize = note.u64(8);
        if (count < 0 || count > (note.size() - 16) / NT_FILE_ENTRY_SIZE) {
            throw new ElfFormatException(note.source(), "NT_FILE claims %s mappings in %d bytes"
                    .formatted(Long.toUnsignedString(count), note.size()));
        }
        if (pageSize <= 0) {
            throw new ElfFormatException(note.source(), "NT_FILE records page size " + Long.toUnsignedString(pageSize));
        }
        long pathOffset = 16 + count * NT_FILE_ENTRY_SIZE;
        List<FileMapping> mappings = new ArrayList<>((int) count);
        for (long i = 0; i < count; i++) {
            long entry = 16 + i * NT_FILE_ENTRY_SIZE;
            long start = note.u64(entry);
            long end = note.u64(entry + 8);
            long pageOffset = note.u64(entry + 16);
            if (pathOffset >= note.size()) {
                throw new ElfFormatException(note.source(), "NT_FILE has fewer paths than its %d mappings".formatted(count));
            }
            String path = note.cString(pathOffset, MAX_PATH_LENGTH);
            // The path's UTF-8 length is not its byte length when bytes are not valid UTF-8: skip to
            // the NUL instead of trusting the decoded string.
            pathOffset = endOfCString(note, pathOffset) + 1;
            if (Long.compareUnsigned(start, end) >= 0) {
                throw new ElfFormatException(note.source(), "NT_FILE mapping %d ends (0x%x) before it starts (0x%x)"
                        .formatted(i, end, start));
            }
            if (pageOffset < 0 || Math.multiplyHigh(pageOffset, pageSize) != 0 || pageOffset * pageSize < 0) {
                throw new ElfFormatException(note.source(), "NT_FILE mapping %d: file offset 0x%x pages of %d bytes overflows"
                        .formatted(i, pageOffset, pageSize));
            }
            mappings.add(new FileMapping(start, end, pageOffset * pageSize, path));
        }
        return List.copyOf(mappings);
    }

    private static long endOfCString(ByteView bytes, long offset) {
        long position = offset;
        while (position < bytes.size() && bytes.u8(position) != 0) {
            position++;
        }
        return position;
    }
}
