package dev.jompd.core.elf;

/**
 * One entry of a symbol table ({@code Elf64_Sym}).
 *
 * @param value        {@code st_value}: a virtual address in the file's address space, or for a
 *                     thread-local symbol the offset in its module's TLS block
 * @param type         {@code ELF64_ST_TYPE}: {@link #STT_OBJECT}, {@link #STT_FUNC}, {@link #STT_TLS}, ...
 * @param binding      {@code ELF64_ST_BIND}: {@link #STB_LOCAL}, {@link #STB_GLOBAL}, {@link #STB_WEAK}
 * @param sectionIndex {@code st_shndx}: {@link #SHN_UNDEF} for undefined symbols, {@link #SHN_ABS}, ...
 */
public record ElfSymbol(String name, long value, long size, int type, int binding, int sectionIndex) {

    public static final int SIZE = 24;
    public static final int STT_NOTYPE = 0;
    public static final int STT_OBJECT = 1;
    public static final int STT_FUNC = 2;
    public static final int STT_SECTION = 3;
    public static final int STT_FILE = 4;
    public static final int STT_COMMON = 5;
    public static final int STT_TLS = 6;
    public static final int STT_GNU_IFUNC = 10;
    public static final int STB_LOCAL = 0;
    public static final int STB_GLOBAL = 1;
    public static final int STB_WEAK = 2;
    public static final int SHN_UNDEF = 0;
    public static final int SHN_ABS = 0xfff1;

    public boolean isThreadLocal() { return type == STT_TLS; }

    /** Whether the symbol is defined in this file (not an import). */
    public boolean isDefined() { return sectionIndex != SHN_UNDEF; }

    /** Whether the value is an absolute number rather than an address to relocate. */
    public boolean isAbsolute() { return sectionIndex == SHN_ABS; }

    @Override
    public String toString() {
        return "ElfSymbol[%s value=0x%x size=%d type=%d bind=%d shndx=%d]"
                .formatted(name, value, size, type, binding, sectionIndex);
    }
}
