package dev.jompd.core.elf;

/**
 * One ELF64 section header ({@code Elf64_Shdr}).
 *
 * @param name the section's name from the section-name string table ("" when there is none)
 */
public record SectionHeader(
        int index, String name, int type, long flags, long address, long offset, long size, int link,
        int info, long alignment, long entrySize) {

    public static final int SIZE = 64;
    public static final int SHT_NULL = 0;
    public static final int SHT_SYMTAB = 2;
    public static final int SHT_STRTAB = 3;
    public static final int SHT_NOTE = 7;
    public static final int SHT_NOBITS = 8;
    public static final int SHT_DYNSYM = 11;
    /** sh_flags: writable at run time. */
    public static final long SHF_WRITE = 0x1;
    /** sh_flags: occupies memory at run time. */
    public static final long SHF_ALLOC = 0x2;

    /** Whether the section occupies bytes in the file ({@code SHT_NOBITS} sections, like .bss, do not). */
    public boolean hasFileBytes() {
        return type != SHT_NOBITS && type != SHT_NULL;
    }

    @Override
    public String toString() {
        return "SectionHeader[%d %s type=%d addr=0x%x offset=0x%x size=0x%x link=%d]"
                .formatted(index, name, type, address, offset, size, link);
    }
}
