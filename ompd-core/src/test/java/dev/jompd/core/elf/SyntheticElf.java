package dev.jompd.core.elf;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes small but well-formed ELF files for tests that need no compiler: a shared object with symbol
 * tables and a build-id, and x86-64 cores with threads, mapped files and memory. The layouts follow
 * the ELF64 specification and the Linux core format, so the reader sees what a linker or the kernel
 * would write, only smaller.
 */
public final class SyntheticElf {
    private SyntheticElf() {}

    /** A symbol to put into the shared object; {@code exported} ones go into .dynsym too. */
    public record Symbol(String name, long value, long size, int type, int binding, int sectionIndex, boolean exported) {
        public static Symbol object(String name, long value) {
            return new Symbol(name, value, 8, ElfSymbol.STT_OBJECT, ElfSymbol.STB_GLOBAL, DATA_SECTION, true);
        }
    }

    /** Where the shared object keeps its data area: file offset and virtual address alike. */
    public static final long DATA_OFFSET = 0x110;
    public static final int DATA_SIZE = 64;
    /** Section indexes of the shared object. */
    public static final int DATA_SECTION = 2;
    public static final int TBSS_SECTION = 8;
    /** Bytes of the shared object before its data area: ELF header, program headers, build-id note. */
    public static final int HEADERS_SIZE = (int) DATA_OFFSET;

    /**
     * A shared object (ET_DYN) whose one PT_LOAD maps the whole file at address 0: ELF header, three
     * program headers (PT_LOAD, PT_NOTE, PT_TLS), the build-id note, a 64-byte data area at
     * {@link #DATA_OFFSET} filled with {@code data}, the symbol tables and the section headers.
     *
     * @param withStaticSymbols whether to keep .symtab (false: a stripped library, .dynsym only)
     */
    public static byte[] sharedObject(String buildIdHex, byte[] data, List<Symbol> symbols, boolean withStaticSymbols) {
        Writer out = new Writer();
        byte[] buildId = HexFormat.of().parseHex(buildIdHex);
        // ELF header, patched at the end once offsets are known.
        out.zeros(64);
        long programHeaders = out.position();
        out.zeros(3 * ProgramHeader.SIZE);
        long noteOffset = out.position();
        writeNote(out, "GNU", ElfNote.NT_GNU_BUILD_ID, buildId);
        long noteSize = out.position() - noteOffset;
        out.alignTo(8);
        if (out.position() > DATA_OFFSET) {
            throw new IllegalStateException("headers grew past the data area");
        }
        out.zeros((int) (DATA_OFFSET - out.position()));
        byte[] area = new byte[DATA_SIZE];
        System.arraycopy(data, 0, area, 0, Math.min(data.length, DATA_SIZE));
        out.bytes(area);

        StringTable strtab = new StringTable();
        StringTable dynstr = new StringTable();
        out.alignTo(8);
        long symtabOffset = out.position();
        List<Symbol> staticSymbols = new ArrayList<>(symbols);
        // ELF wants local symbols first; sh_info is the index of the first non-local one.
        staticSymbols.sort((a, b) -> Boolean.compare(a.binding() != ElfSymbol.STB_LOCAL, b.binding() != ElfSymbol.STB_LOCAL));
        int firstGlobal = 1 + (int) staticSymbols.stream().filter(s -> s.binding() == ElfSymbol.STB_LOCAL).count();
        writeSymbol(out, 0, new Symbol("", 0, 0, 0, 0, 0, false));
        for (Symbol symbol : staticSymbols) {
            writeSymbol(out, strtab.add(symbol.name()), symbol);
        }
        long symtabSize = out.position() - symtabOffset;
        long strtabOffset = out.position();
        out.bytes(strtab.bytes());
        out.alignTo(8);
        long dynsymOffset = out.position();
        writeSymbol(out, 0, new Symbol("", 0, 0, 0, 0, 0, false));
        for (Symbol symbol : symbols) {
            if (symbol.exported()) {
                writeSymbol(out, dynstr.add(symbol.name()), symbol);
            }
        }
        long dynsymSize = out.position() - dynsymOffset;
        long dynstrOffset = out.position();
        out.bytes(dynstr.bytes());

        StringTable shstrtab = new StringTable();
        List<String> sectionNames = List.of("", ".note.gnu.build-id", ".data", withStaticSymbols ? ".symtab" : ".comment",
                ".strtab", ".dynsym", ".dynstr", ".shstrtab", ".tbss");
        int[] nameOffsets = sectionNames.stream().mapToInt(shstrtab::add).toArray();
        long shstrtabOffset = out.position();
        out.bytes(shstrtab.bytes());
        out.alignTo(8);
        long loadSize = out.position();
        long sectionHeaders = out.position();
        writeSection(out, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        writeSection(out, nameOffsets[1], SectionHeader.SHT_NOTE, 2, noteOffset, noteOffset, noteSize, 0, 0, 4, 0);
        writeSection(out, nameOffsets[2], 1, 3, DATA_OFFSET, DATA_OFFSET, DATA_SIZE, 0, 0, 8, 0);
        writeSection(out, nameOffsets[3], withStaticSymbols ? SectionHeader.SHT_SYMTAB : 1, 0, 0, symtabOffset,
                symtabSize, 4, firstGlobal, 8, withStaticSymbols ? ElfSymbol.SIZE : 0);
        writeSection(out, nameOffsets[4], SectionHeader.SHT_STRTAB, 0, 0, strtabOffset, strtab.size(), 0, 0, 1, 0);
        writeSection(out, nameOffsets[5], SectionHeader.SHT_DYNSYM, 2, dynsymOffset, dynsymOffset, dynsymSize, 6, 1, 8, ElfSymbol.SIZE);
        writeSection(out, nameOffsets[6], SectionHeader.SHT_STRTAB, 2, dynstrOffset, dynstrOffset, dynstr.size(), 0, 0, 1, 0);
        writeSection(out, nameOffsets[7], SectionHeader.SHT_STRTAB, 0, 0, shstrtabOffset, shstrtab.size(), 0, 0, 1, 0);
        writeSection(out, nameOffsets[8], SectionHeader.SHT_NOBITS, 0x403, DATA_OFFSET, DATA_OFFSET, 16, 0, 0, 8, 0);

        writeElfHeader(out, ElfHeader.ET_DYN, programHeaders, 3, sectionHeaders, 9, 7);
        out.at(programHeaders);
        writeProgramHeader(out, ProgramHeader.PT_LOAD, ProgramHeader.PF_R | ProgramHeader.PF_W, 0, 0, loadSize, loadSize + 0x1000, 0x1000);
        writeProgramHeader(out, ProgramHeader.PT_NOTE, ProgramHeader.PF_R, noteOffset, noteOffset, noteSize, noteSize, 4);
        writeProgramHeader(out, ProgramHeader.PT_TLS, ProgramHeader.PF_R, DATA_OFFSET, DATA_OFFSET, 0, 16, 8);
        return out.toByteArray();
    }

    /** A section of {@link #withSections}: its name, flags ({@code SHF_*}) and contents. */
    public record Section(String name, long flags, byte[] contents) {}

    /**
     * A relocatable file (ET_REL) with no program headers holding only {@code sections} (type PROGBITS, at
     * address 0) and the section name table: what a debug file's DWARF looks like to a reader.
     */
    public static byte[] withSections(List<Section> sections) {
        Writer out = new Writer();
        out.zeros(64);
        StringTable shstrtab = new StringTable();
        long[] offsets = new long[sections.size()];
        int[] names = new int[sections.size()];
        for (int i = 0; i < sections.size(); i++) {
            names[i] = shstrtab.add(sections.get(i).name());
            out.alignTo(8);
            offsets[i] = out.position();
            out.bytes(sections.get(i).contents());
        }
        int shstrtabName = shstrtab.add(".shstrtab");
        long shstrtabOffset = out.position();
        out.bytes(shstrtab.bytes());
        out.alignTo(8);
        long sectionHeaders = out.position();
        writeSection(out, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        for (int i = 0; i < sections.size(); i++) {
            Section section = sections.get(i);
            writeSection(out, names[i], 1, section.flags(), 0, offsets[i], section.contents().length, 0, 0, 1, 0);
        }
        writeSection(out, shstrtabName, SectionHeader.SHT_STRTAB, 0, 0, shstrtabOffset, shstrtab.size(), 0, 0, 1, 0);
        writeElfHeader(out, 1, 0, 0, sectionHeaders, sections.size() + 2, sections.size() + 1);
        return out.toByteArray();
    }

    /** A memory segment of a core: {@code bytes} at {@code address}, {@code memorySize} >= bytes.length. */
    public record Segment(long address, byte[] bytes, long memorySize) {
        public static Segment of(long address, byte[] bytes) {
            return new Segment(address, bytes, bytes.length);
        }
    }

    /** An NT_FILE entry; {@code pageOffset} is in units of the core's recorded page size. */
    public record Mapping(long start, long end, long pageOffset, String path) {}

    /** An NT_PRSTATUS: the LWP and the 27 user_regs_struct registers by name (others are 0). */
    public record Thread(int lwp, Map<String, Long> registers) {}

    /** Everything an x86-64 core can say, for {@link #core}. */
    public static final class Core {
        public final List<Segment> segments = new ArrayList<>();
        public final List<Mapping> mappings = new ArrayList<>();
        public final List<Thread> threads = new ArrayList<>();
        public final Map<Long, Long> auxiliaryVector = new LinkedHashMap<>();
        public long pageSize = 4096;
        public int processId = 4711;
        public String programName = "synthetic";

        public Core segment(long address, byte[] bytes) {
            segments.add(Segment.of(address, bytes));
            return this;
        }

        public Core thread(int lwp, long fsBase) {
            threads.add(new Thread(lwp, Map.of("fs_base", fsBase, "rip", 0x401000L + lwp, "rsp", 0x7ff000L - lwp)));
            return this;
        }

        public Core mapping(long start, long end, long pageOffset, String path) {
            mappings.add(new Mapping(start, end, pageOffset, path));
            return this;
        }

        public byte[] build() {
            return core(this);
        }
    }

    /** The names of user_regs_struct, in order, as prstatus stores them. */
    public static final List<String> REGISTER_NAMES = List.of(
            "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx",
            "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds",
            "es", "fs", "gs");

    /** Writes a core as the kernel lays it out: header, program headers, notes, then memory. */
    public static byte[] core(Core core) {
        Writer notes = new Writer();
        for (Thread thread : core.threads) {
            byte[] prstatus = new byte[336];
            Writer status = new Writer();
            status.bytes(prstatus);
            status.at(32).u32(thread.lwp());
            status.at(112);
            for (String register : REGISTER_NAMES) {
                status.u64(thread.registers().getOrDefault(register, 0L));
            }
            writeNote(notes, "CORE", ElfNote.NT_PRSTATUS, status.toByteArray());
        }
        Writer prpsinfo = new Writer();
        prpsinfo.zeros(136);
        prpsinfo.at(24).u32(core.processId);
        byte[] name = core.programName.getBytes(StandardCharsets.UTF_8);
        prpsinfo.at(40).bytes(java.util.Arrays.copyOf(name, Math.min(name.length, 15)));
        writeNote(notes, "CORE", ElfNote.NT_PRPSINFO, prpsinfo.toByteArray());
        if (!core.auxiliaryVector.isEmpty()) {
            Writer auxv = new Writer();
            core.auxiliaryVector.forEach((type, value) -> auxv.u64(type).u64(value));
            auxv.u64(0).u64(0);
            writeNote(notes, "CORE", ElfNote.NT_AUXV, auxv.toByteArray());
        }
        if (!core.mappings.isEmpty()) {
            Writer files = new Writer();
            files.u64(core.mappings.size()).u64(core.pageSize);
            for (Mapping mapping : core.mappings) {
                files.u64(mapping.start()).u64(mapping.end()).u64(mapping.pageOffset());
            }
            for (Mapping mapping : core.mappings) {
                files.bytes(mapping.path().getBytes(StandardCharsets.UTF_8)).u8(0);
            }
            writeNote(notes, "CORE", ElfNote.NT_FILE, files.toByteArray());
        }
        byte[] noteBytes = notes.toByteArray();

        Writer out = new Writer();
        int programHeaderCount = 1 + core.segments.size();
        writeElfHeader(out, ElfHeader.ET_CORE, 64, programHeaderCount, 0, 0, 0);
        long noteOffset = 64 + (long) programHeaderCount * ProgramHeader.SIZE;
        writeProgramHeader(out, ProgramHeader.PT_NOTE, 0, noteOffset, 0, noteBytes.length, 0, 4);
        long dataOffset = noteOffset + noteBytes.length;
        for (Segment segment : core.segments) {
            writeProgramHeader(out, ProgramHeader.PT_LOAD, ProgramHeader.PF_R | ProgramHeader.PF_W, dataOffset,
                    segment.address(), segment.bytes().length, segment.memorySize(), 0x1000);
            dataOffset += segment.bytes().length;
        }
        out.bytes(noteBytes);
        for (Segment segment : core.segments) {
            out.bytes(segment.bytes());
        }
        return out.toByteArray();
    }

    private static void writeElfHeader(Writer out, int type, long programHeaderOffset, int programHeaderCount,
                                       long sectionHeaderOffset, int sectionCount, int sectionNameIndex) {
        out.at(0).bytes(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0}).zeros(8);
        out.u16(type).u16(ElfHeader.EM_X86_64).u32(1).u64(0x1000).u64(programHeaderOffset).u64(sectionHeaderOffset)
                .u32(0).u16(64).u16(ProgramHeader.SIZE).u16(programHeaderCount).u16(SectionHeader.SIZE)
                .u16(sectionCount).u16(sectionNameIndex);
    }

    private static void writeProgramHeader(Writer out, int type, int flags, long offset, long address,
                                           long fileSize, long memorySize, long alignment) {
        out.u32(type).u32(flags).u64(offset).u64(address).u64(0).u64(fileSize).u64(memorySize).u64(alignment);
    }

    private static void writeSection(Writer out, int name, int type, long flags, long address, long offset,
                                     long size, int link, int info, long alignment, long entrySize) {
        out.u32(name).u32(type).u64(flags).u64(address).u64(offset).u64(size).u32(link).u32(info)
                .u64(alignment).u64(entrySize);
    }

    private static void writeSymbol(Writer out, int nameOffset, Symbol symbol) {
        out.u32(nameOffset).u8((symbol.binding() << 4) | symbol.type()).u8(0).u16(symbol.sectionIndex())
                .u64(symbol.value()).u64(symbol.size());
    }

    static void writeNote(Writer out, String name, int type, byte[] descriptor) {
        byte[] nameBytes = (name + "\0").getBytes(StandardCharsets.UTF_8);
        out.u32(nameBytes.length).u32(descriptor.length).u32(type).bytes(nameBytes).alignTo(4).bytes(descriptor).alignTo(4);
    }

    private static final class StringTable {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        StringTable() {
            bytes.write(0);
        }

        int add(String string) {
            if (string.isEmpty()) {
                return 0;
            }
            int offset = bytes.size();
            bytes.writeBytes(string.getBytes(StandardCharsets.UTF_8));
            bytes.write(0);
            return offset;
        }

        int size() { return bytes.size(); }

        byte[] bytes() { return bytes.toByteArray(); }
    }

    /** A little-endian writer that can go back and patch. */
    static final class Writer {
        private byte[] buffer = new byte[256];
        private int position;
        private int size;

        long position() { return position; }

        Writer at(long offset) {
            position = (int) offset;
            return this;
        }

        private void ensure(int more) {
            if (position + more > buffer.length) {
                buffer = java.util.Arrays.copyOf(buffer, Math.max(buffer.length * 2, position + more));
            }
        }

        Writer u8(int value) {
            ensure(1);
            buffer[position++] = (byte) value;
            size = Math.max(size, position);
            return this;
        }

        Writer u16(int value) { return u8(value).u8(value >>> 8); }

        Writer u32(long value) { return u16((int) value).u16((int) (value >>> 16)); }

        Writer u64(long value) { return u32(value).u32(value >>> 32); }

        Writer bytes(byte[] bytes) {
            ensure(bytes.length);
            System.arraycopy(bytes, 0, buffer, position, bytes.length);
            position += bytes.length;
            size = Math.max(size, position);
            return this;
        }

        Writer zeros(int count) { return bytes(new byte[count]); }

        Writer alignTo(int alignment) {
            while (position % alignment != 0) {
                u8(0);
            }
            return this;
        }

        byte[] toByteArray() { return java.util.Arrays.copyOf(buffer, size); }
    }
}
