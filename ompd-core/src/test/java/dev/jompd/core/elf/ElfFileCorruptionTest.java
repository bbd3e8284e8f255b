package dev.jompd.core.elf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Damaged files raise ElfFormatException with a message that says what is wrong, nothing else. */
class ElfFileCorruptionTest {
    @TempDir
    Path directory;

    private static final List<SyntheticElf.Symbol> SYMBOLS = List.of(SyntheticElf.Symbol.object("value", 0x110));

    private Path damagedSharedObject(Consumer<ByteBuffer> damage) throws IOException {
        byte[] bytes = SyntheticElf.sharedObject("abcdef0123456789", new byte[8], SYMBOLS, true);
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        damage.accept(buffer);
        return Files.write(Files.createTempFile(directory, "damaged", ".so"), bytes);
    }

    private static long sectionHeaderOffset(ByteBuffer elf) { return elf.getLong(40); }

    private static int sectionField(ByteBuffer elf, int section, int field) {
        return (int) (sectionHeaderOffset(elf) + (long) section * SectionHeader.SIZE + field);
    }

    @Test
    void programHeaderTableBeyondTheFile() {
        assertThatThrownBy(() -> ElfFile.open(damagedSharedObject(elf -> elf.putLong(32, 1L << 40))))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("program header table");
        assertThatThrownBy(() -> ElfFile.open(damagedSharedObject(elf -> elf.putLong(32, -8))))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("program header table");
    }

    @Test
    void wrongProgramHeaderEntrySize() {
        assertThatThrownBy(() -> ElfFile.open(damagedSharedObject(elf -> elf.putShort(54, (short) 32))))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("program header entry size 32");
    }

    @Test
    void segmentBeyondTheFileFailsWhenItsBytesAreWanted() throws IOException {
        // p_filesz of the PT_LOAD
        try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> buffer.putLong(64 + 32, Long.MAX_VALUE)))) {
            assertThatThrownBy(() -> elf.segmentBytes(elf.programHeaders().getFirst()))
                    .isInstanceOf(ElfFormatException.class).hasMessageContaining("segment 0");
        }
    }

    @Test
    void noteSizesBeyondTheirSegment() throws IOException {
        long noteOffset = 64 + 3 * ProgramHeader.SIZE;
        for (int field : new int[] {0, 4}) {
            for (long size : new long[] {0xffff_ffffL, 0x8000_0000L, 200}) {
                try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> buffer.putInt((int) noteOffset + field, (int) size)))) {
                    assertThatThrownBy(elf::notes).isInstanceOf(ElfFormatException.class).hasMessageContaining("note 0");
                }
            }
        }
    }

    @Test
    void sectionTableBeyondTheFile() throws IOException {
        try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> buffer.putShort(60, (short) 0x7fff)))) {
            assertThatThrownBy(elf::sectionHeaders).isInstanceOf(ElfFormatException.class).hasMessageContaining("section header count 32767");
        }
        try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> buffer.putLong(40, Long.MIN_VALUE)))) {
            assertThatThrownBy(elf::sectionHeaders).isInstanceOf(ElfFormatException.class);
        }
    }

    @Test
    void sectionNameIndexOutOfRange() throws IOException {
        try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> buffer.putShort(62, (short) 50)))) {
            assertThatThrownBy(elf::sectionHeaders).isInstanceOf(ElfFormatException.class).hasMessageContaining("section name table index 50");
        }
    }

    @Test
    void symbolTableWithBadLinkOrEntrySizeOrRange() throws IOException {
        try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> buffer.putInt(sectionField(buffer, 3, 40), 99)))) {
            assertThatThrownBy(elf::symbolTable).isInstanceOf(ElfFormatException.class).hasMessageContaining("string table index 99");
        }
        try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> buffer.putInt(sectionField(buffer, 3, 40), 2)))) {
            assertThatThrownBy(elf::symbolTable).isInstanceOf(ElfFormatException.class).hasMessageContaining("not a string table");
        }
        try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> buffer.putLong(sectionField(buffer, 3, 56), 16)))) {
            assertThatThrownBy(elf::symbolTable).isInstanceOf(ElfFormatException.class).hasMessageContaining("entry size 16");
        }
        try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> buffer.putLong(sectionField(buffer, 3, 32), 1L << 50)))) {
            assertThatThrownBy(elf::symbolTable).isInstanceOf(ElfFormatException.class).hasMessageContaining("section 3 (.symtab)");
        }
    }

    @Test
    void symbolNameBeyondItsStringTable() throws IOException {
        try (ElfFile elf = ElfFile.open(damagedSharedObject(buffer -> {
            long symtab = buffer.getLong(sectionField(buffer, 3, 24));
            buffer.putInt((int) symtab + ElfSymbol.SIZE, 0x7fff_ffff); // st_name of symbol 1
        }))) {
            assertThatThrownBy(() -> elf.symbolTable().symbol(1))
                    .isInstanceOf(ElfFormatException.class).hasMessageContaining("name offset 0x7fffffff");
        }
    }

    @Test
    void truncatedAtEveryLength() throws IOException {
        byte[] whole = SyntheticElf.sharedObject("abcdef0123456789", new byte[8], SYMBOLS, true);
        for (int length = 0; length < whole.length; length++) {
            Path truncated = Files.write(directory.resolve("truncated"), java.util.Arrays.copyOf(whole, length));
            ElfTestExercise.exerciseElf(truncated);
        }
    }
}
