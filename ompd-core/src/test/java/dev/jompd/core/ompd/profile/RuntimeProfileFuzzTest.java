package dev.jompd.core.ompd.profile;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.charset.StandardCharsets;

/**
 * Arbitrary text as a runtime profile file: {@link RuntimeProfile#parse} may reject it only with
 * IllegalArgumentException (saying which line), never an index error. Seeds in RuntimeProfileFuzzTestInputs/:
 * the shipped profile of libomp 19.1.7 and a small hand-written one. JAZZER_FUZZ=1 fuzzes for maxDuration.
 */
public class RuntimeProfileFuzzTest {
    @FuzzTest(maxDuration = "5s")
    void profileFilesRejectArbitraryTextOnlyWithIllegalArgumentException(byte[] data) {
        profileFiles(data);
    }

    /** The property, for {@link dev.jompd.core.ParsersFuzzTest} too. */
    public static void profileFiles(byte[] data) {
        try {
            RuntimeProfile profile = RuntimeProfile.parse(new String(data, StandardCharsets.UTF_8));
            profile.majorVersion();
            profile.format();
        } catch (IllegalArgumentException expected) {
            // the documented rejection (NumberFormatException is one)
        }
    }
}
