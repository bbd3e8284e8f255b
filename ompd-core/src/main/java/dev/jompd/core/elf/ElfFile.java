package dev.jompd.core.elf;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An ELF64 little-endian file (executable, shared library, separate debug file or core), mapped into
 * memory and parsed on demand.
 *
 * <p>Opening parses only the file header and the program headers, so a core of many gigabytes opens
 * at once. Section headers, notes and symbol tables are parsed when first asked for. Every offset and
 * size the file states is checked against the file before it is used; a malformed file raises
 * {@link ElfFormatException} and nothing else. Counts are bounded by the file's size, so no damaged
 * count can make the reader allocate or loop without end.
 *
 * <p>Thread-safe. Everything returned (views, notes, symbol tables) is usable until {@link #close()}.
 */
public final class ElfFile implements AutoCloseable {
    private static final int SHN_XINDEX = 0xffff;
    private static final int MAX_SECTION_NAME_LENGTH = 4096;

    private final MappedFile file;
    private final ByteView bytes;
    private final ElfHeader header;
    private final List<ProgramHeader> programHeaders;
    private List<SectionHeader> sectionHeaders;
    private List<ElfNote> notes;
    private Optional<String> buildId;
    private ElfSymbolTable symbolTable;
    private ElfSymbolTable dynamicSymbolTable;

    private ElfFile(MappedFile file) {
        this.file = file;
        this.bytes = file.bytes();
        this.header = ElfHeader.parse(bytes);
        this.programHeaders = parseProgramHeaders();
    }

    /**
     * Maps and parses the file at {@code path}.
     *
     * @throws IOException        when the file cannot be read (missing, not a regular file, ...)
     * @throws ElfFormatException when it is not a well-formed ELF64 little-endian file
     */
    public static ElfFile open(Path path) throws IOException {
        MappedFile file = MappedFile.open(path);
        try {
            return new ElfFile(file);
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /**
     * Parses an already mapped file, sharing its mapping: {@link #close()} closes {@code file}, but a
     * failed parse leaves it open for its owner.
     */
    public static ElfFile of(MappedFile file) {
        return new ElfFile(file);
    }

    public Path path() { return file.path(); }

    /** The file's size in bytes. */
    public long size() { return bytes.size(); }

    /** The whole file. */
    public ByteView bytes() { return bytes; }

    public ElfHeader header() { return header; }

    public List<ProgramHeader> programHeaders() { return programHeaders; }

    /** The program headers of one type ({@link ProgramHeader#PT_LOAD}, ...), in file order. */
    public List<ProgramHeader> programHeaders(int type) {
        return programHeaders.stream().filter(ph -> ph.type() == type).toList();
    }

    /** The first PT_TLS segment: the template of the module's thread-local storage. */
    public Optional<ProgramHeader> tlsSegment() {
        return programHeaders.stream().filter(ph -> ph.type() == ProgramHeader.PT_TLS).findFirst();
    }

    /**
     * The bytes a segment has in the file ({@code p_filesz} of them).
     *
     * @throws ElfFormatException when they lie outside the file
     */
    public ByteView segmentBytes(ProgramHeader segment) {
        return bytes.slice(segment.offset(), segment.fileSize(), "segment " + segment.index());
    }

    /**
     * The section headers, with their names; empty when the file has none (cores written by the
     * kernel, stripped-of-sections files).
     *
     * @throws ElfFormatException when the section header table or its name table is malformed
     */
    public synchronized List<SectionHeader> sectionHeaders() {
        if (sectionHeaders == null) {
            sectionHeaders = parseSectionHeaders();
        }
        return sectionHeaders;
    }

    /** The first section called {@code name}. */
    public Optional<SectionHeader> section(String name) {
        return sectionHeaders().stream().filter(section -> section.name().equals(name)).findFirst();
    }

    /**
     * The bytes of a section in the file.
     *
     * @throws ElfFormatException when the section has no bytes in the file (SHT_NOBITS) or they lie
     *                            outside it
     */
    public ByteView sectionBytes(SectionHeader section) {
        if (!section.hasFileBytes()) {
            throw new ElfFormatException(bytes.source(), "section %d (%s) has no bytes in the file"
                    .formatted(section.index(), section.name()));
        }
        return bytes.slice(section.offset(), section.size(), "section %d (%s)".formatted(section.index(), section.name()));
    }

    /**
     * All notes: those of the PT_NOTE segments, or when there are none, those of the SHT_NOTE sections
     * (taking both would list each note of an executable twice, as its segments cover its sections).
     *
     * @throws ElfFormatException when a note segment or section is malformed
     */
    public synchronized List<ElfNote> notes() {
        if (notes == null) {
            List<ElfNote> found = new ArrayList<>();
            List<ProgramHeader> noteSegments = programHeaders(ProgramHeader.PT_NOTE);
            if (!noteSegments.isEmpty()) {
                for (ProgramHeader segment : noteSegments) {
                    found.addAll(ElfNote.parseAll(segmentBytes(segment), segment.alignment() == 8 ? 8 : 4));
                }
            } else {
                for (SectionHeader section : sectionHeaders()) {
                    if (section.type() == SectionHeader.SHT_NOTE) {
                        found.addAll(ElfNote.parseAll(sectionBytes(section), section.alignment() == 8 ? 8 : 4));
                    }
                }
            }
            notes = List.copyOf(found);
        }
        return notes;
    }

    /** The GNU build-id (NT_GNU_BUILD_ID note) as lower-case hex. */
    public synchronized Optional<String> buildId() {
        // asked again by every process that maps this file (each rank's module checks it against its memory)
        if (buildId == null) {
            buildId = buildIdOf(notes());
        }
        return buildId;
    }

    /** The build-id among {@code notes}, as lower-case hex. */
    public static Optional<String> buildIdOf(List<ElfNote> notes) {
        return notes.stream()
                .filter(note -> note.isGnuBuildId() && note.descriptor().size() > 0 && note.descriptor().size() <= 64)
                .findFirst()
                .map(note -> note.descriptor().toHex());
    }

    /**
     * The static symbol table (.symtab); empty when the file has been stripped of it.
     *
     * @throws ElfFormatException when the table or its string table is malformed
     */
    public synchronized ElfSymbolTable symbolTable() {
        if (symbolTable == null) {
            symbolTable = parseSymbolTable(SectionHeader.SHT_SYMTAB, ".symtab");
        }
        return symbolTable;
    }

    /**
     * The dynamic symbol table (.dynsym), the exported symbols every shared library keeps.
     *
     * @throws ElfFormatException when the table or its string table is malformed
     */
    public synchronized ElfSymbolTable dynamicSymbolTable() {
        if (dynamicSymbolTable == null) {
            dynamicSymbolTable = parseSymbolTable(SectionHeader.SHT_DYNSYM, ".dynsym");
        }
        return dynamicSymbolTable;
    }

    @Override
    public void close() {
        file.close();
    }

    @Override
    public String toString() {
        return "ElfFile[" + file.path() + "]";
    }

    private ElfFormatException malformed(String problem) {
        return new ElfFormatException(bytes.source(), problem);
    }

    private List<ProgramHeader> parseProgramHeaders() {
        long count = header.programHeaderCount();
        if (count == ElfHeader.PN_XNUM) {
            // More than 65534 segments (a core of a process with many mappings): the real count is in
            // section 0's sh_info.
            count = sectionZero().orElseThrow(() -> malformed("e_phnum is PN_XNUM but there is no section 0"))
                    .u32(44);
        }
        if (count == 0) {
            return List.of();
        }
        if (header.programHeaderEntrySize() != ProgramHeader.SIZE) {
            throw malformed("program header entry size %d, expected %d"
                    .formatted(header.programHeaderEntrySize(), ProgramHeader.SIZE));
        }
        ByteView table = bytes.slice(header.programHeaderOffset(), count * ProgramHeader.SIZE,
                "program header table (%d entries)".formatted(count));
        List<ProgramHeader> headers = new ArrayList<>((int) count);
        for (int index = 0; index < count; index++) {
            headers.add(ProgramHeader.parse(table.slice((long) index * ProgramHeader.SIZE, ProgramHeader.SIZE, "program header"), index));
        }
        return List.copyOf(headers);
    }

    /** Section header 0, which holds the real counts when they overflow the ELF header's fields. */
    private Optional<ByteView> sectionZero() {
        if (header.sectionHeaderOffset() == 0) {
            return Optional.empty();
        }
        if (header.sectionHeaderEntrySize() != SectionHeader.SIZE) {
            throw malformed("section header entry size %d, expected %d"
                    .formatted(header.sectionHeaderEntrySize(), SectionHeader.SIZE));
        }
        return Optional.of(bytes.slice(header.sectionHeaderOffset(), SectionHeader.SIZE, "section header 0"));
    }

    private List<SectionHeader> parseSectionHeaders() {
        Optional<ByteView> zero = sectionZero();
        if (zero.isEmpty()) {
            return List.of();
        }
        long count = header.sectionHeaderCount() != 0 ? header.sectionHeaderCount() : zero.get().u64(32);
        // Check before multiplying: a damaged sh_size could be anything.
        if (count < 0 || count > bytes.size() / SectionHeader.SIZE) {
            throw malformed("section header count %s does not fit in the file".formatted(Long.toUnsignedString(count)));
        }
        ByteView table = bytes.slice(header.sectionHeaderOffset(), count * SectionHeader.SIZE,
                "section header table (%d entries)".formatted(count));
        long nameTableIndex = header.sectionNameTableIndex() == SHN_XINDEX
                ? zero.get().u32(40) : header.sectionNameTableIndex();
        if (nameTableIndex >= count && nameTableIndex != 0) {
            throw malformed("section name table index %d, but there are %d sections".formatted(nameTableIndex, count));
        }
        ByteView names = null;
        if (nameTableIndex != 0) {
            ByteView nameHeader = table.slice(nameTableIndex * SectionHeader.SIZE, SectionHeader.SIZE, "section name table header");
            if (nameHeader.s32(4) != SectionHeader.SHT_NOBITS) {
                names = bytes.slice(nameHeader.u64(24), nameHeader.u64(32), "section name table");
            }
        }
        List<SectionHeader> sections = new ArrayList<>((int) count);
        for (int index = 0; index < count; index++) {
            ByteView entry = table.slice((long) index * SectionHeader.SIZE, SectionHeader.SIZE, "section header");
            long nameOffset = entry.u32(0);
            String name = "";
            if (names != null) {
                if (!names.contains(nameOffset, 0)) {
                    throw malformed("section %d: name offset 0x%x beyond the section name table (%d bytes)"
                            .formatted(index, nameOffset, names.size()));
                }
                name = names.cString(nameOffset, MAX_SECTION_NAME_LENGTH);
            }
            sections.add(new SectionHeader(index, name, entry.s32(4), entry.u64(8), entry.u64(16),
                    entry.u64(24), entry.u64(32), entry.s32(40), entry.s32(44), entry.u64(48), entry.u64(56)));
        }
        return List.copyOf(sections);
    }

    private ElfSymbolTable parseSymbolTable(int sectionType, String label) {
        String description = bytes.source() + " " + label;
        Optional<SectionHeader> table = sectionHeaders().stream().filter(s -> s.type() == sectionType).findFirst();
        if (table.isEmpty()) {
            return ElfSymbolTable.empty(description);
        }
        SectionHeader symbols = table.get();
        if (symbols.entrySize() != ElfSymbol.SIZE) {
            throw malformed("%s: entry size %d, expected %d".formatted(label, symbols.entrySize(), ElfSymbol.SIZE));
        }
        int stringTableIndex = symbols.link();
        if (stringTableIndex <= 0 || stringTableIndex >= sectionHeaders().size()) {
            throw malformed("%s: string table index %d out of range (%d sections)"
                    .formatted(label, stringTableIndex, sectionHeaders().size()));
        }
        SectionHeader strings = sectionHeaders().get(stringTableIndex);
        if (strings.type() != SectionHeader.SHT_STRTAB) {
            throw malformed("%s: linked section %d is not a string table (type %d)"
                    .formatted(label, stringTableIndex, strings.type()));
        }
        return new ElfSymbolTable(description, sectionBytes(symbols), sectionBytes(strings));
    }
}
