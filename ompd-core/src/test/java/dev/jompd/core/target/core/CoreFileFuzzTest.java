package dev.jompd.core.target.core;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.jompd.core.elf.ElfTestExercise;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Arbitrary bytes, as an ELF file and as a core: the reader and the core backend may reject them only
 * with their documented exceptions (ElfFormatException, or another TargetException for reads and
 * lookups); CoreExercise lets anything else escape. Runs the seeds in CoreFileFuzzTestInputs/ as a
 * regression test in every build; JAZZER_FUZZ=1 fuzzes for maxDuration.
 */
public class CoreFileFuzzTest {
    private static Path scratchFile;

    /** One scratch file, rewritten per input: the code under test maps files, it does not take bytes. */
    private static synchronized Path scratch(byte[] data) throws IOException {
        if (scratchFile == null) {
            scratchFile = Files.createTempFile("jompd-fuzz", ".elf");
            scratchFile.toFile().deleteOnExit();
        }
        return Files.write(scratchFile, data);
    }

    @FuzzTest(maxDuration = "10s")
    void elfReaderRejectsArbitraryBytesOnlyWithElfFormatException(byte[] data) throws IOException {
        elfReader(data);
    }

    /** The property, for {@link dev.jompd.core.ParsersFuzzTest} too. */
    public static void elfReader(byte[] data) throws IOException {
        ElfTestExercise.exerciseElf(scratch(data));
    }

    @FuzzTest(maxDuration = "10s")
    void coreBackendRejectsArbitraryBytesOnlyWithTargetExceptions(byte[] data) throws IOException {
        coreBackend(data);
    }

    /** The property, for {@link dev.jompd.core.ParsersFuzzTest} too. */
    public static void coreBackend(byte[] data) throws IOException {
        CoreExercise.exercise(scratch(data));
    }
}
