package dev.jompd.core.elf;

/**
 * The ELF64 file header ({@code Elf64_Ehdr}).
 *
 * @param type                   {@code e_type}: {@link #ET_EXEC}, {@link #ET_DYN}, {@link #ET_CORE}, ...
 * @param machine                {@code e_machine}, {@link #EM_X86_64} for x86-64
 * @param entry                  {@code e_entry}
 * @param programHeaderOffset    {@code e_phoff}
 * @param sectionHeaderOffset    {@code e_shoff}
 * @param programHeaderEntrySize {@code e_phentsize}
 * @param programHeaderCount     {@code e_phnum} as written ({@link #PN_XNUM} means "see section 0")
 * @param sectionHeaderEntrySize {@code e_shentsize}
 * @param sectionHeaderCount     {@code e_shnum} as written (0 with a non-zero offset means "see section 0")
 * @param sectionNameTableIndex  {@code e_shstrndx} as written ({@code SHN_XINDEX} means "see section 0")
 */
public record ElfHeader(
        int type, int machine, long entry, long programHeaderOffset, long sectionHeaderOffset,
        int programHeaderEntrySize, int programHeaderCount, int sectionHeaderEntrySize,
        int sectionHeaderCount, int sectionNameTableIndex) {

    public static final int SIZE = 64;
    public static final int ET_EXEC = 2;
    public static final int ET_DYN = 3;
    public static final int ET_CORE = 4;
    public static final int EM_X86_64 = 62;
    /** {@code e_phnum} value meaning the real count is in section 0's {@code sh_info}. */
    public static final int PN_XNUM = 0xffff;

    private static final int ELFCLASS64 = 2;
    private static final int ELFDATA2LSB = 1;
    private static final int EV_CURRENT = 1;

    /** Whether {@code bytes} start with the ELF magic number. */
    public static boolean hasElfMagic(ByteView bytes) {
        return bytes.size() >= 4 && bytes.u8(0) == 0x7f && bytes.u8(1) == 'E' && bytes.u8(2) == 'L'
                && bytes.u8(3) == 'F';
    }

    /**
     * Parses the header at the start of {@code bytes}.
     *
     * @throws ElfFormatException when the bytes are not an ELF64 little-endian header
     */
    public static ElfHeader parse(ByteView bytes) {
        if (!hasElfMagic(bytes)) {
            throw new ElfFormatException(bytes.source(), "not an ELF file (no ELF magic number)");
        }
        if (bytes.size() < SIZE) {
            throw new ElfFormatException(bytes.source(), "ELF header truncated: %d of %d bytes".formatted(bytes.size(), SIZE));
        }
        if (bytes.u8(4) != ELFCLASS64) {
            throw new ElfFormatException(bytes.source(), "not a 64-bit ELF file (EI_CLASS %d)".formatted(bytes.u8(4)));
        }
        if (bytes.u8(5) != ELFDATA2LSB) {
            throw new ElfFormatException(bytes.source(), "not a little-endian ELF file (EI_DATA %d)".formatted(bytes.u8(5)));
        }
        if (bytes.u8(6) != EV_CURRENT) {
            throw new ElfFormatException(bytes.source(), "unknown ELF version %d".formatted(bytes.u8(6)));
        }
        return new ElfHeader(
                bytes.u16(16), bytes.u16(18), bytes.u64(24), bytes.u64(32), bytes.u64(40),
                bytes.u16(54), bytes.u16(56), bytes.u16(58), bytes.u16(60), bytes.u16(62));
    }
}
