package dev.jompd.core.dwarf;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFormatException;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Arbitrary bytes as call frame information (.eh_frame with and without a header table,
 * .debug_frame), as a line program and as a DWARF expression: the parsers may reject them only with
 * {@link ElfFormatException} (DwarfFormatException is one), never loop, never throw anything else.
 * Runs the seeds as a regression test in every build; JAZZER_FUZZ=1 fuzzes for maxDuration.
 */
public class DwarfFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void dwarfParsersRejectArbitraryBytesOnlyWithFormatExceptions(byte[] data) {
        dwarfParsers(data);
    }

    /** The property, for {@link dev.jompd.core.ParsersFuzzTest} too. */
    public static void dwarfParsers(byte[] data) {
        if (data.length < 2) {
            return;
        }
        int mode = data[0] & 3;
        ByteView bytes = ByteView.of(Arrays.copyOfRange(data, 1, data.length), "fuzz");
        try {
            switch (mode) {
                case 0 -> exercise(CallFrameInfo.ehFrame(bytes, 0x1000, Optional.empty(), 0));
                case 1 -> exercise(CallFrameInfo.debugFrame(bytes));
                case 2 -> {
                    LineTable table = LineTable.parse(bytes, Optional.of(bytes), Optional.of(bytes), Map.of());
                    for (long address = 0; address < 0x200; address += 7) {
                        table.lookup(address);
                    }
                }
                default -> DwarfExpression.evaluate(bytes, OptionalLong.of(8), register -> OptionalLong.of(register),
                        (address, size) -> address * 31);
            }
        } catch (ElfFormatException expected) {
            // the documented rejection
        }
    }

    private static void exercise(CallFrameInfo cfi) {
        for (long pc = 0; pc < 0x2000; pc += 13) {
            try {
                cfi.rowFor(pc);
            } catch (ElfFormatException expected) {
                // a malformed entry: each lookup says so on its own
            }
        }
    }
}
