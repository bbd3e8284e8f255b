package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.SyntheticElf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Deflater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Crafted debug data costs the heap what its bytes can honestly describe, no more: a compressed section
 * that lies about its size, and abbreviation tables with huge codes, one per unit (each was an array as
 * long as its largest code). Measured as the bytes this thread allocates while reading.
 */
class DebugMemoryBudgetTest {
    private static final long SHF_COMPRESSED = 0x800;

    @TempDir
    Path directory;

    @Test
    void aCompressedSectionClaimingOneGibibyteIsRefusedWithoutAllocatingIt() throws IOException {
        byte[] deflated = deflate(new byte[100]);
        ByteArrayOutputStream section = new ByteArrayOutputStream();
        writeU32(section, 1); // ELFCOMPRESS_ZLIB
        writeU32(section, 0);
        writeU64(section, 1L << 30); // ch_size: what the header claims
        writeU64(section, 1);
        section.writeBytes(deflated);
        Path file = write(SyntheticElf.withSections(List.of(
                new SyntheticElf.Section(".debug_info", SHF_COMPRESSED, section.toByteArray()),
                new SyntheticElf.Section(".debug_abbrev", 0, new byte[] {0}))));
        assertThat(Files.size(file)).isLessThan(500);

        try (ElfFile elf = ElfFile.open(file)) {
            DebugSections sections = new DebugSections(elf);
            long before = allocatedBytes();
            assertThatThrownBy(() -> FunctionScopes.of(sections))
                    .isInstanceOf(DwarfFormatException.class)
                    .hasMessage(file + ": compressed section .debug_info claims 1073741824 bytes, more than its "
                            + (section.size() - 24) + " compressed bytes can hold");
            assertThat(allocatedBytes() - before).isLessThan(1 << 20);
        }
    }

    @Test
    void twoThousandUnitsWithSparseAbbreviationCodesCostWhatTheyHold() throws IOException {
        int units = 2000;
        int unitCode = 1 << 20; // the largest code the reader accepts
        int functionCode = unitCode - 1;
        ByteArrayOutputStream info = new ByteArrayOutputStream();
        ByteArrayOutputStream abbrev = new ByteArrayOutputStream();
        List<String> expected = new ArrayList<>();
        List<String> found = new ArrayList<>();
        for (int i = 0; i < units; i++) {
            long abbrevOffset = abbrev.size();
            uleb(abbrev, unitCode);
            uleb(abbrev, DwarfConstants.DW_TAG_COMPILE_UNIT);
            abbrev.write(1); // children
            attribute(abbrev, DwarfConstants.DW_AT_LOW_PC, DwarfConstants.DW_FORM_ADDR);
            attribute(abbrev, DwarfConstants.DW_AT_HIGH_PC, DwarfConstants.DW_FORM_DATA4);
            attribute(abbrev, 0, 0);
            uleb(abbrev, functionCode);
            uleb(abbrev, DwarfConstants.DW_TAG_SUBPROGRAM);
            abbrev.write(0);
            attribute(abbrev, DwarfConstants.DW_AT_NAME, DwarfConstants.DW_FORM_STRING);
            attribute(abbrev, DwarfConstants.DW_AT_LOW_PC, DwarfConstants.DW_FORM_ADDR);
            attribute(abbrev, DwarfConstants.DW_AT_HIGH_PC, DwarfConstants.DW_FORM_DATA4);
            attribute(abbrev, 0, 0);
            abbrev.write(0); // end of this unit's table

            long low = 0x10000 + 0x100L * i;
            String name = "f" + i;
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            writeU16(body, 4); // DWARF 4
            writeU32(body, abbrevOffset);
            body.write(8);
            uleb(body, unitCode);
            writeU64(body, low);
            writeU32(body, 0x100);
            uleb(body, functionCode);
            body.writeBytes((name + "\0").getBytes(StandardCharsets.US_ASCII));
            writeU64(body, low);
            writeU32(body, 0x80);
            body.write(0); // end of the unit's children
            writeU32(info, body.size());
            info.writeBytes(body.toByteArray());
            expected.add(name);
        }
        Path file = write(SyntheticElf.withSections(List.of(
                new SyntheticElf.Section(".debug_info", 0, info.toByteArray()),
                new SyntheticElf.Section(".debug_abbrev", 0, abbrev.toByteArray()))));

        try (ElfFile elf = ElfFile.open(file)) {
            FunctionScopes scopes = FunctionScopes.of(new DebugSections(elf)).orElseThrow();
            long before = allocatedBytes();
            for (int i = 0; i < units; i++) {
                List<FunctionScopes.Scope> at = scopes.scopesAt(0x10000 + 0x100L * i + 0x10);
                found.add(at.size() == 1 ? at.getFirst().function() : at.toString());
            }
            assertThat(found).isEqualTo(expected);
            // a dense table a unit: 2000 arrays of 2^20 references (8 GiB); sparse: what the entries hold
            assertThat(allocatedBytes() - before).isLessThan(64L << 20);
        }
    }

    @Test
    void debugDataPastTheBudgetIsUnusableNotAnOutOfMemoryError() throws IOException {
        Path file = write(SyntheticElf.withSections(List.of(new SyntheticElf.Section(".debug_info", 0, new byte[16]))));
        try (ElfFile elf = ElfFile.open(file)) {
            DebugSections sections = new DebugSections(elf);
            sections.charge(DebugSections.MEMORY_BUDGET - 10, "most of it");
            assertThatThrownBy(() -> sections.charge(11, "the abbreviation table at 0x40"))
                    .isInstanceOf(DwarfFormatException.class)
                    .hasMessage(file + ": debug data unusable: the abbreviation table at 0x40 would take it past the 1024 MiB"
                            + " one file's debug data may use");
            assertThat(sections.section(".debug_info")).isPresent();
        }
    }

    private Path write(byte[] bytes) throws IOException {
        return Files.write(directory.resolve("crafted.debug"), bytes);
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static byte[] deflate(byte[] input) {
        Deflater deflater = new Deflater();
        deflater.setInput(input);
        deflater.finish();
        byte[] buffer = new byte[input.length + 64];
        int length = deflater.deflate(buffer);
        deflater.end();
        return java.util.Arrays.copyOf(buffer, length);
    }

    private static void attribute(ByteArrayOutputStream out, int name, int form) {
        uleb(out, name);
        uleb(out, form);
    }

    private static void uleb(ByteArrayOutputStream out, long value) {
        do {
            int b = (int) (value & 0x7f);
            value >>>= 7;
            out.write(value != 0 ? b | 0x80 : b);
        } while (value != 0);
    }

    private static void writeU16(ByteArrayOutputStream out, int value) {
        out.write(value);
        out.write(value >>> 8);
    }

    private static void writeU32(ByteArrayOutputStream out, long value) {
        writeU16(out, (int) value);
        writeU16(out, (int) (value >>> 16));
    }

    private static void writeU64(ByteArrayOutputStream out, long value) {
        writeU32(out, value);
        writeU32(out, value >>> 32);
    }
}
