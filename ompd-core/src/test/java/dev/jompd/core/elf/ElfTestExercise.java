package dev.jompd.core.elf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Touches everything the ELF reader offers on one file. For damaged input, ElfFormatException is the
 * documented outcome and is swallowed step by step; any other exception escapes and fails the caller.
 */
public final class ElfTestExercise {
    private static final int MAX_SYMBOLS_TOUCHED = 10_000;

    private ElfTestExercise() {}

    public static void exerciseElf(Path path) {
        ElfFile elf;
        try {
            elf = ElfFile.open(path);
        } catch (ElfFormatException e) {
            return;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (elf) {
            elf.header();
            elf.tlsSegment();
            for (ProgramHeader segment : elf.programHeaders()) {
                quietly(() -> elf.segmentBytes(segment).size());
            }
            quietly(() -> elf.sectionHeaders().forEach(section -> {
                if (section.hasFileBytes()) {
                    quietly(() -> elf.sectionBytes(section).size());
                }
            }));
            quietly(() -> elf.notes().forEach(note -> note.descriptor().size()));
            quietly(elf::buildId);
            quietly(() -> touchSymbols(elf.symbolTable()));
            quietly(() -> touchSymbols(elf.dynamicSymbolTable()));
        }
    }

    private static void touchSymbols(ElfSymbolTable table) {
        for (int index = 0; index < Math.min(table.size(), MAX_SYMBOLS_TOUCHED); index++) {
            final int current = index;
            quietly(() -> table.symbol(current));
        }
        quietly(() -> table.lookup("main"));
        quietly(() -> table.lookup("__kmp_threads"));
    }

    private static void quietly(Runnable step) {
        try {
            step.run();
        } catch (ElfFormatException e) {
            // the documented outcome for damaged input
        }
    }
}
