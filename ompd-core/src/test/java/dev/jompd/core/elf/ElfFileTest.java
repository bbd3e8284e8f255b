package dev.jompd.core.elf;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ElfFileTest {
    private static final String BUILD_ID = "00112233445566778899aabbccddeeff01234567";

    @TempDir
    Path directory;

    private static List<SyntheticElf.Symbol> symbols() {
        return List.of(
                SyntheticElf.Symbol.object("exported_global", 0x110),
                new SyntheticElf.Symbol("twice", 0x118, 8, ElfSymbol.STT_OBJECT, ElfSymbol.STB_LOCAL, SyntheticElf.DATA_SECTION, false),
                new SyntheticElf.Symbol("twice", 0x120, 8, ElfSymbol.STT_OBJECT, ElfSymbol.STB_GLOBAL, SyntheticElf.DATA_SECTION, false),
                new SyntheticElf.Symbol("hidden_static", 0x128, 4, ElfSymbol.STT_OBJECT, ElfSymbol.STB_LOCAL, SyntheticElf.DATA_SECTION, false),
                new SyntheticElf.Symbol("tls_variable", 0x8, 8, ElfSymbol.STT_TLS, ElfSymbol.STB_GLOBAL, SyntheticElf.TBSS_SECTION, true),
                new SyntheticElf.Symbol("imported", 0, 0, ElfSymbol.STT_FUNC, ElfSymbol.STB_GLOBAL, ElfSymbol.SHN_UNDEF, true),
                new SyntheticElf.Symbol("absolute_value", 0x4242, 0, ElfSymbol.STT_NOTYPE, ElfSymbol.STB_GLOBAL, ElfSymbol.SHN_ABS, true));
    }

    private Path write(byte[] bytes) throws IOException {
        return Files.write(Files.createTempFile(directory, "elf", ".so"), bytes);
    }

    private Path sharedObject(boolean withStaticSymbols) throws IOException {
        return write(SyntheticElf.sharedObject(BUILD_ID, new byte[] {1, 2, 3}, symbols(), withStaticSymbols));
    }

    @Test
    void readsHeaderAndProgramHeaders() throws IOException {
        try (ElfFile elf = ElfFile.open(sharedObject(true))) {
            assertThat(elf.header().type()).isEqualTo(ElfHeader.ET_DYN);
            assertThat(elf.header().machine()).isEqualTo(ElfHeader.EM_X86_64);
            assertThat(elf.programHeaders()).extracting(ProgramHeader::type)
                    .containsExactly(ProgramHeader.PT_LOAD, ProgramHeader.PT_NOTE, ProgramHeader.PT_TLS);
            assertThat(elf.tlsSegment()).hasValueSatisfying(tls -> assertThat(tls.memorySize()).isEqualTo(16));
            assertThat(elf.segmentBytes(elf.programHeaders().getFirst()).u8(SyntheticElf.DATA_OFFSET)).isEqualTo(1);
        }
    }

    @Test
    void readsSectionsByName() throws IOException {
        try (ElfFile elf = ElfFile.open(sharedObject(true))) {
            assertThat(elf.sectionHeaders()).extracting(SectionHeader::name)
                    .containsExactly("", ".note.gnu.build-id", ".data", ".symtab", ".strtab", ".dynsym", ".dynstr", ".shstrtab", ".tbss");
            SectionHeader data = elf.section(".data").orElseThrow();
            assertThat(elf.sectionBytes(data).toByteArray()).startsWith(1, 2, 3);
            assertThatThrownBy(() -> elf.sectionBytes(elf.section(".tbss").orElseThrow()))
                    .isInstanceOf(ElfFormatException.class).hasMessageContaining("no bytes in the file");
        }
    }

    @Test
    void findsTheGnuBuildIdNote() throws IOException {
        try (ElfFile elf = ElfFile.open(sharedObject(true))) {
            assertThat(elf.notes()).singleElement().satisfies(note -> {
                assertThat(note.name()).isEqualTo("GNU");
                assertThat(note.isGnuBuildId()).isTrue();
            });
            assertThat(elf.buildId()).contains(BUILD_ID);
        }
    }

    @Test
    void looksUpDefinedSymbolsPreferringGlobalOnes() throws IOException {
        try (ElfFile elf = ElfFile.open(sharedObject(true))) {
            ElfSymbolTable symtab = elf.symbolTable();
            assertThat(symtab.lookup("exported_global")).hasValueSatisfying(symbol -> {
                assertThat(symbol.value()).isEqualTo(0x110);
                assertThat(symbol.size()).isEqualTo(8);
                assertThat(symbol.type()).isEqualTo(ElfSymbol.STT_OBJECT);
                assertThat(symbol.binding()).isEqualTo(ElfSymbol.STB_GLOBAL);
                assertThat(symbol.sectionIndex()).isEqualTo(SyntheticElf.DATA_SECTION);
            });
            assertThat(symtab.lookup("twice")).map(ElfSymbol::value).contains(0x120L);
            assertThat(symtab.lookup("hidden_static")).map(ElfSymbol::binding).contains(ElfSymbol.STB_LOCAL);
            assertThat(symtab.lookup("imported")).as("undefined symbols are imports, not definitions").isEmpty();
            assertThat(symtab.lookup("absent")).isEmpty();
            assertThat(symtab.lookup("tls_variable")).hasValueSatisfying(symbol -> {
                assertThat(symbol.isThreadLocal()).isTrue();
                assertThat(symbol.value()).isEqualTo(8);
            });
            assertThat(symtab.lookup("absolute_value")).hasValueSatisfying(symbol -> assertThat(symbol.isAbsolute()).isTrue());
            assertThat(symtab.symbol(0).name()).isEmpty();
        }
    }

    @Test
    void allDecodesEveryEntryAsSymbolDoes() throws IOException {
        // the JDK's own libjvm.so: a real table of thousands of entries, present wherever the tests run
        Path libjvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        for (Path file : List.of(sharedObject(true), libjvm)) {
            try (ElfFile elf = ElfFile.open(file)) {
                for (ElfSymbolTable table : List.of(elf.symbolTable(), elf.dynamicSymbolTable())) {
                    List<ElfSymbol> one = new java.util.ArrayList<>();
                    for (int i = 1; i < table.size(); i++) {
                        one.add(table.symbol(i));
                    }
                    assertThat(table.all()).as(table.description()).isEqualTo(one);
                }
                assertThat(elf.dynamicSymbolTable().size()).isPositive();
            }
        }
    }

    @Test
    void namesOverlappingBeyondAnyLinkerAreDamageNotAHang() {
        // 4,000 entries all naming one 64 KiB run without a terminating NUL
        int count = 4000;
        ByteBuffer entries = ByteBuffer.allocate(count * ElfSymbol.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 1; i < count; i++) {
            entries.put(i * ElfSymbol.SIZE + 4, (byte) (ElfSymbol.STT_FUNC | ElfSymbol.STB_GLOBAL << 4));
            entries.putShort(i * ElfSymbol.SIZE + 6, (short) 1);
        }
        byte[] run = new byte[64 * 1024];
        java.util.Arrays.fill(run, (byte) 'a');
        ElfSymbolTable table = new ElfSymbolTable("damaged .symtab", ByteView.of(entries.array(), "entries"),
                ByteView.of(run, "strings"));
        assertThatThrownBy(table::all).isInstanceOf(ElfFormatException.class).hasMessageContaining("overlap");
        assertThatThrownBy(() -> table.lookup("a")).isInstanceOf(ElfFormatException.class).hasMessageContaining("overlap");
    }

    @Test
    void dynamicSymbolTableHoldsOnlyExportedSymbols() throws IOException {
        try (ElfFile elf = ElfFile.open(sharedObject(false))) {
            assertThat(elf.symbolTable().size()).as("stripped: no .symtab").isZero();
            assertThat(elf.dynamicSymbolTable().lookup("exported_global")).isPresent();
            assertThat(elf.dynamicSymbolTable().lookup("hidden_static")).isEmpty();
        }
    }

    @Test
    void readsCoreNotesFromTheNoteSegment() throws IOException {
        byte[] core = new SyntheticElf.Core().thread(100, 0x7000).thread(101, 0x8000)
                .segment(0x10000, new byte[16]).build();
        try (ElfFile elf = ElfFile.open(write(core))) {
            assertThat(elf.header().type()).isEqualTo(ElfHeader.ET_CORE);
            assertThat(elf.sectionHeaders()).isEmpty();
            assertThat(elf.notes()).extracting(ElfNote::type)
                    .containsExactly(ElfNote.NT_PRSTATUS, ElfNote.NT_PRSTATUS, ElfNote.NT_PRPSINFO);
            assertThat(elf.notes().getFirst().descriptor().s32(32)).isEqualTo(100);
        }
    }

    @Test
    void extendedProgramHeaderCountComesFromSectionZero() throws IOException {
        // A core with more than 65534 segments stores PN_XNUM in e_phnum and the count in sh_info of
        // section 0; build one with the count moved there.
        byte[] core = new SyntheticElf.Core().thread(1, 0).segment(0x10000, new byte[8]).build();
        ByteBuffer buffer = ByteBuffer.allocate(core.length + SectionHeader.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        buffer.put(core);
        buffer.putLong(40, core.length);                 // e_shoff
        buffer.putShort(56, (short) ElfHeader.PN_XNUM);  // e_phnum
        buffer.putShort(58, (short) SectionHeader.SIZE); // e_shentsize
        buffer.putShort(60, (short) 0);                  // e_shnum: 0 means "in section 0" too
        buffer.putInt(core.length + 44, 2);              // sh_info: the real program header count
        buffer.putLong(core.length + 32, 1);             // sh_size: the real section count
        try (ElfFile elf = ElfFile.open(write(buffer.array()))) {
            assertThat(elf.programHeaders()).hasSize(2);
            assertThat(elf.sectionHeaders()).hasSize(1);
        }
    }

    @Test
    void refusesWhatIsNotElf64LittleEndian() throws IOException {
        byte[] elf = SyntheticElf.sharedObject(BUILD_ID, new byte[0], List.of(), true);
        assertThatThrownBy(() -> ElfFile.open(write("not an elf file at all".getBytes())))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("not an ELF file");
        byte[] elf32 = elf.clone();
        elf32[4] = 1;
        assertThatThrownBy(() -> ElfFile.open(write(elf32)))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("not a 64-bit ELF file");
        byte[] bigEndian = elf.clone();
        bigEndian[5] = 2;
        assertThatThrownBy(() -> ElfFile.open(write(bigEndian)))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("little-endian");
        assertThatThrownBy(() -> ElfFile.open(write(new byte[0])))
                .isInstanceOf(ElfFormatException.class).hasMessageContaining("not an ELF file");
    }

    @Test
    void missingFileIsAnIoErrorNotAFormatError() {
        assertThatThrownBy(() -> ElfFile.open(directory.resolve("absent")))
                .isInstanceOf(IOException.class);
    }
}
