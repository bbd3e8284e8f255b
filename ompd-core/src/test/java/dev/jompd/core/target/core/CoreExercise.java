package dev.jompd.core.target.core;

import dev.jompd.core.elf.ElfTestExercise;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetThread;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Touches everything the core backend offers on one file: the ELF reader's view, then threads,
 * modules, symbols and reads at every address the core mentions. The backend's documented exceptions
 * (TargetException and its subclasses ElfFormatException, MemoryReadException,
 * BuildIdMismatchException) are the expected outcome for damaged input and are swallowed step by step;
 * anything else escapes and fails the caller.
 */
final class CoreExercise {
    private static final List<String> SYMBOLS = List.of("thread_values", "fixture_greeting", "printf", "main_arena", "answer", "x");

    private CoreExercise() {}

    static void exercise(Path core) {
        ElfTestExercise.exerciseElf(core);
        CoreFileAddressSpace space;
        try {
            space = CoreFileAddressSpace.builder(core).withDebugFileDirectories(List.of()).open();
        } catch (TargetException e) {
            return;
        }
        try (space) {
            List<Long> addresses = new ArrayList<>();
            for (TargetThread thread : space.threads()) {
                thread.threadPointer().ifPresent(addresses::add);
                thread.register("rsp").ifPresent(addresses::add);
                thread.register("rip").ifPresent(addresses::add);
            }
            quietly(() -> space.modules().stream().map(LoadedModule::loadBias).forEach(addresses::add));
            for (String symbol : SYMBOLS) {
                quietly(() -> space.lookupSymbol(symbol).ifPresent(found -> addresses.add(found.address())));
                quietly(() -> space.lookupSymbol(symbol, "lib"));
            }
            space.programName();
            space.processId();
            quietly(space::executable);
            byte[] buffer = new byte[64];
            for (long address : addresses) {
                quietly(() -> space.read(address, buffer, 0, buffer.length));
                quietly(() -> space.read(address - 4, buffer, 0, 8));
            }
            quietly(() -> space.read(0, buffer, 0, 8));
            quietly(() -> space.read(-1, buffer, 0, 8));
        }
    }

    private static void quietly(Runnable step) {
        try {
            step.run();
        } catch (TargetException e) {
            // documented outcome for damaged input
        }
    }
}
