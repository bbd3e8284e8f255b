package dev.jompd.core.dwarf;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.SyntheticElf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Arbitrary bytes as {@code .debug_info}, {@code .debug_abbrev}, {@code .debug_line} and the sections they
 * refer to, read through {@link FunctionScopes} as the unwinder does (scopes, lines, inlined calls, call
 * sites of addresses): only {@link ElfFormatException}, no other exception, no hang. An input is a list of
 * sections, each a byte naming it ({@link #SECTIONS}, modulo their number), a little-endian u16 length and
 * the bytes. The seeds in DebugInfoFuzzTestInputs/ are the DWARF 4 and 5 of small C and C++ libraries built
 * by clang 19 ({@link #seed} writes one from a file). JAZZER_FUZZ=1 fuzzes for maxDuration.
 */
public class DebugInfoFuzzTest {
    static final List<String> SECTIONS = List.of(".debug_info", ".debug_abbrev", ".debug_line", ".debug_str",
            ".debug_line_str", ".debug_str_offsets", ".debug_addr", ".debug_rnglists", ".debug_ranges", ".debug_aranges");
    private static Path scratchFile;

    private static synchronized Path scratch(byte[] data) throws IOException {
        if (scratchFile == null) {
            scratchFile = Files.createTempFile("jompd-fuzz", ".debug");
            scratchFile.toFile().deleteOnExit();
        }
        return Files.write(scratchFile, data);
    }

    @FuzzTest(maxDuration = "10s")
    void debugInfoRejectsArbitraryBytesOnlyWithFormatExceptions(byte[] data) throws IOException {
        debugInfo(data);
    }

    /** The property, for {@link dev.jompd.core.ParsersFuzzTest} too. */
    public static void debugInfo(byte[] data) throws IOException {
        ByteBuffer input = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        List<SyntheticElf.Section> sections = new ArrayList<>();
        List<String> named = new ArrayList<>();
        while (input.remaining() >= 3) {
            String name = SECTIONS.get(Byte.toUnsignedInt(input.get()) % SECTIONS.size());
            byte[] bytes = new byte[Math.min(Short.toUnsignedInt(input.getShort()), input.remaining())];
            input.get(bytes);
            if (!named.contains(name)) {
                named.add(name);
                sections.add(new SyntheticElf.Section(name, 0, bytes));
            }
        }
        try (ElfFile elf = ElfFile.open(scratch(SyntheticElf.withSections(sections)))) {
            Optional<FunctionScopes> scopes = FunctionScopes.of(new DebugSections(elf));
            if (scopes.isEmpty()) {
                return;
            }
            for (long address : addresses(data)) {
                exercise(scopes.get(), address);
            }
        } catch (ElfFormatException expected) {
            // the documented rejection
        }
    }

    /** The C seeds are read whole (a harness the reader could not use would fuzz nothing): work() at 0x1110. */
    @org.junit.jupiter.api.Test
    void theSeedsDescribeTheirLibrarysFunctions() throws IOException {
        for (String seed : List.of("clang19-c-dwarf4", "clang19-c-dwarf5")) {
            try (var in = DebugInfoFuzzTest.class.getResourceAsStream(
                    "DebugInfoFuzzTestInputs/debugInfoRejectsArbitraryBytesOnlyWithFormatExceptions/" + seed)) {
                byte[] data = in.readAllBytes();
                ByteBuffer input = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
                List<SyntheticElf.Section> sections = new ArrayList<>();
                while (input.remaining() >= 3) {
                    String name = SECTIONS.get(Byte.toUnsignedInt(input.get()));
                    byte[] bytes = new byte[Short.toUnsignedInt(input.getShort())];
                    input.get(bytes);
                    sections.add(new SyntheticElf.Section(name, 0, bytes));
                }
                try (ElfFile elf = ElfFile.open(scratch(SyntheticElf.withSections(sections)))) {
                    FunctionScopes scopes = FunctionScopes.of(new DebugSections(elf)).orElseThrow();
                    org.assertj.core.api.Assertions.assertThat(scopes.scopesAt(0x1110).getFirst().function()).as(seed).isEqualTo("work");
                    org.assertj.core.api.Assertions.assertThat(scopes.functionEntryAt(0x1120)).as(seed).hasValue(0x1110);
                }
            }
        }
    }

    /** Addresses to look up: a few fixed ones and any 8 bytes of the input that look like one. */
    private static List<Long> addresses(byte[] data) {
        List<Long> addresses = new ArrayList<>(List.of(0L, 0x1110L, 0x1130L, 0x1150L, 0x1160L, 0x1165L));
        ByteBuffer input = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        for (int at = 0; at + 8 <= data.length && addresses.size() < 24; at += 8) {
            long value = input.getLong(at);
            if (value > 0 && value < 1L << 32) {
                addresses.add(value);
            }
        }
        return addresses;
    }

    private static void exercise(FunctionScopes scopes, long address) {
        try {
            scopes.scopesAt(address);
            scopes.lineAt(address);
            scopes.inlinedCallsOf(address);
            scopes.callSiteReturningTo(address);
            scopes.functionEntryAt(address);
        } catch (ElfFormatException expected) {
            // each look-up may say on its own that its unit is malformed
        }
    }

    /** A seed: the sections of {@code args[0]} that {@link #SECTIONS} names, written to {@code args[1]}. */
    public static void main(String[] args) throws IOException {
        try (ElfFile elf = ElfFile.open(Path.of(args[0]))) {
            Files.write(Path.of(args[1]), seed(elf));
        }
    }

    static byte[] seed(ElfFile elf) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < SECTIONS.size(); i++) {
            Optional<dev.jompd.core.elf.ByteView> bytes = new DebugSections(elf).section(SECTIONS.get(i));
            if (bytes.isPresent()) {
                byte[] contents = bytes.get().toByteArray();
                out.write(i);
                out.write(contents.length);
                out.write(contents.length >>> 8);
                out.writeBytes(contents);
            }
        }
        return out.toByteArray();
    }
}
