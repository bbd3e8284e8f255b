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
 * anything else escapes and fails the caller. What could be read is counted, so that a caller can check
 * that good input is read (a backend that rejected everything would otherwise pass).
 */
final class CoreExercise {
    private static final List<String> SYMBOLS = List.of("thread_values", "fixture_greeting", "printf", "main_arena", "answer", "x");

    private CoreExercise() {}

    /**
     * What the backend gave for one file.
     *
     * @param opened  whether the core opened at all
     * @param threads the threads it lists
     * @param modules the modules it lists
     * @param symbols the symbols of {@link #SYMBOLS} it found
     * @param reads   the reads at the addresses the core mentions that succeeded
     */
    record Outcome(boolean opened, int threads, int modules, int symbols, int reads) {
        static final Outcome REJECTED = new Outcome(false, 0, 0, 0, 0);
    }

    static Outcome exercise(Path core) {
        ElfTestExercise.exerciseElf(core);
        CoreFileAddressSpace space;
        try {
            space = CoreFileAddressSpace.builder(core).withDebugFileDirectories(List.of()).open();
        } catch (TargetException e) {
            return Outcome.REJECTED;
        }
        int[] modules = {0};
        int[] symbols = {0};
        int[] reads = {0};
        try (space) {
            List<Long> addresses = new ArrayList<>();
            for (TargetThread thread : space.threads()) {
                thread.threadPointer().ifPresent(addresses::add);
                thread.register("rsp").ifPresent(addresses::add);
                thread.register("rip").ifPresent(addresses::add);
            }
            quietly(() -> space.modules().stream().map(LoadedModule::loadBias).forEach(bias -> {
                addresses.add(bias);
                modules[0]++;
            }));
            for (String symbol : SYMBOLS) {
                quietly(() -> space.lookupSymbol(symbol).ifPresent(found -> {
                    addresses.add(found.address());
                    symbols[0]++;
                }));
                quietly(() -> space.lookupSymbol(symbol, "lib"));
            }
            space.programName();
            space.processId();
            quietly(space::executable);
            byte[] buffer = new byte[64];
            for (long address : addresses) {
                quietly(() -> {
                    space.read(address, buffer, 0, buffer.length);
                    reads[0]++;
                });
                quietly(() -> space.read(address - 4, buffer, 0, 8));
            }
            quietly(() -> space.read(0, buffer, 0, 8));
            quietly(() -> space.read(-1, buffer, 0, 8));
            return new Outcome(true, space.threads().size(), modules[0], symbols[0], reads[0]);
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
