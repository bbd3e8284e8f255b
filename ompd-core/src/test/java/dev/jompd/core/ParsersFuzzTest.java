package dev.jompd.core;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.jompd.core.dwarf.DebugInfoFuzzTest;
import dev.jompd.core.dwarf.DwarfFuzzTest;
import dev.jompd.core.ompd.profile.RuntimeProfileFuzzTest;
import dev.jompd.core.recorder.RecorderFuzzTest;
import dev.jompd.core.target.core.CoreFileFuzzTest;

import java.io.IOException;
import java.util.Arrays;

/**
 * Every parser of ompd-core fuzzed in one JVM of the test run: the first byte picks the parser (modulo
 * {@link #PARSERS}), the rest is its input, and each keeps its own property (documented exceptions only, no
 * hang). Jazzer fuzzes one @FuzzTest per JVM, and its start costs more than the seconds of fuzzing each parser
 * gets (some 20 s on a busy machine), so one target, guided by coverage across all of them, instead of one JVM
 * each. The seeds in ParsersFuzzTestInputs/ are those of each parser's own fuzz test (whose default execution
 * replays them on their own), a mode byte before each. JAZZER_FUZZ=1 fuzzes for maxDuration.
 */
class ParsersFuzzTest {
    /**
     * In mode order: the ELF reader, the core backend, CFI/line/expression, .debug_info, runtime profiles, the
     * recorder's records.
     */
    static final int PARSERS = 6;

    @FuzzTest(maxDuration = "36s")
    void everyParserRejectsArbitraryBytesOnlyWithItsExceptions(byte[] data) throws IOException {
        if (data.length < 1) {
            return;
        }
        byte[] input = Arrays.copyOfRange(data, 1, data.length);
        switch (Byte.toUnsignedInt(data[0]) % PARSERS) {
            case 0 -> CoreFileFuzzTest.elfReader(input);
            case 1 -> CoreFileFuzzTest.coreBackend(input);
            case 2 -> DwarfFuzzTest.dwarfParsers(input);
            case 3 -> DebugInfoFuzzTest.debugInfo(input);
            case 4 -> RuntimeProfileFuzzTest.profileFiles(input);
            default -> RecorderFuzzTest.recorderReader(input);
        }
    }
}
