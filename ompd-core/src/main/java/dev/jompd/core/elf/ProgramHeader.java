package dev.jompd.core.elf;

/**
 * One ELF64 program header ({@code Elf64_Phdr}): a segment. Offsets and sizes are as the file states
 * them; {@link ElfFile#segmentBytes} checks them against the file when the contents are needed.
 */
public record ProgramHeader(
        int index, int type, int flags, long offset, long virtualAddress, long physicalAddress,
        long fileSize, long memorySize, long alignment) {

    public static final int SIZE = 56;
    public static final int PT_LOAD = 1;
    public static final int PT_DYNAMIC = 2;
    public static final int PT_NOTE = 4;
    public static final int PT_PHDR = 6;
    public static final int PT_TLS = 7;
    public static final int PF_X = 1;
    public static final int PF_W = 2;
    public static final int PF_R = 4;

    /** Parses the program header at the start of {@code bytes} (which must hold {@link #SIZE} bytes). */
    public static ProgramHeader parse(ByteView bytes, int index) {
        return new ProgramHeader(index, bytes.s32(0), bytes.s32(4), bytes.u64(8), bytes.u64(16),
                bytes.u64(24), bytes.u64(32), bytes.u64(40), bytes.u64(48));
    }

    @Override
    public String toString() {
        return "ProgramHeader[%d type=0x%x flags=%d offset=0x%x vaddr=0x%x filesz=0x%x memsz=0x%x align=0x%x]"
                .formatted(index, type, flags, offset, virtualAddress, fileSize, memorySize, alignment);
    }
}
