package dev.jompd.core.ompd;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The step-into rules both doors use. The wrapper case ({@code __kmp_invoke_microtask} with a GOMP wrapper)
 * needs a real process: OmpdStepIT and OpenMpStepInIT run it (StepIntoCase.GCC_PARALLEL).
 */
class RuntimeEntryPointsTest {
    @Test
    void aGnuEntryPointsRegionStartsAtItsFirstArgumentWithoutAskingTheProcess() {
        Map<String, Long> registers = Map.of("rdi", 0x401136L, "rcx", 2L, "r8", 0x7ffe0000L);
        long entry = RuntimeEntryPoints.regionEntry("GOMP_parallel", registers::get, () -> {
            throw new AssertionError("a GNU entry point needs no OMPD");
        });
        assertThat(entry).isEqualTo(0x401136L);
    }

    @Test
    void theRegistersReadAreTheX8664ArgumentRegistersOfPkfnArgcAndArgv() {
        assertThat(RuntimeEntryPoints.REGISTERS_READ).containsExactly("rdi", "rcx", "r8");
    }

    @Test
    void onlyARegionStartHasARegionEntry() {
        assertThatThrownBy(() -> RuntimeEntryPoints.regionEntry("ompd_bp_task_begin", name -> 0L, () -> null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBreakpointsAreTheRegionStartsThenTheTaskStarts() {
        assertThat(RuntimeEntryPoints.breakpoints()).startsWith("__kmp_invoke_microtask", "GOMP_parallel")
                .endsWith("ompd_bp_task_begin").doesNotHaveDuplicates();
        assertThat(RuntimeEntryPoints.breakpoints()).allSatisfy(function -> assertThat(
                RuntimeEntryPoints.isRegionStart(function) != RuntimeEntryPoints.isTaskStart(function)).isTrue());
    }

    @Test
    void theRuntimeIsKnownByItsRealFileNameAlsoThroughALibgompLink(@TempDir Path directory) throws Exception {
        Path libomp = Files.createFile(directory.resolve("libomp.so"));
        Path link = Files.createSymbolicLink(directory.resolve("libgomp.so.1"), libomp);
        Path gnu = Files.createFile(directory.resolve("libgomp.so.1.0.0"));
        assertThat(RuntimeEntryPoints.isRuntimeLibrary(libomp.toString())).isTrue();
        assertThat(RuntimeEntryPoints.isRuntimeLibrary(link.toString())).isTrue();
        assertThat(RuntimeEntryPoints.isRuntimeLibrary(gnu.toString())).isFalse();
        assertThat(RuntimeEntryPoints.isRuntimeLibrary("")).isFalse();
        assertThat(RuntimeEntryPoints.isRuntimeLibrary("/not/here/libomp.so.5")).isTrue();
    }

    private static RuntimeEntryPoints.CodeStop stop(int line, int functionEntry) {
        return stop("parallel.c", line, "parallel.c", functionEntry);
    }

    private static RuntimeEntryPoints.CodeStop stop(String file, int line, String functionFile, int functionEntry) {
        return new RuntimeEntryPoints.CodeStop(new RuntimeEntryPoints.SourceLine(file, line),
                new RuntimeEntryPoints.SourceLine(functionFile, functionEntry));
    }

    /** The moves at each stop of {@code walk}, each with the stops up to it. */
    private static List<RuntimeEntryPoints.CodeMove> moves(RuntimeEntryPoints.CodeStop... walk) {
        List<RuntimeEntryPoints.CodeMove> moves = new java.util.ArrayList<>();
        for (int stops = 1; stops <= walk.length; stops++) {
            moves.add(RuntimeEntryPoints.codeMove(List.of(walk).subList(0, stops)));
        }
        return moves;
    }

    /**
     * clang's parallel.c (its line table read by objdump): main.omp_outlined starts at the pragma (25) and
     * calls main.omp_outlined_debug__, which starts at the {@code {} (26), then sets the reduction's private
     * copy at 25, then runs the first statement (27).
     */
    @Test
    void clangsRegionFirstLineIsAfterTheBraceAndTheReductionsLines() {
        assertThat(moves(stop(25, 25), stop(26, 26), stop(25, 26), stop(27, 26))).containsExactly(
                RuntimeEntryPoints.CodeMove.STEP, RuntimeEntryPoints.CodeMove.STEP, RuntimeEntryPoints.CodeMove.STEP,
                RuntimeEntryPoints.CodeMove.ARRIVED);
    }

    /** gcc's region._omp_fn.0 in nested.c starts at the pragma (53); its first statement is at 55. */
    @Test
    void gccsRegionFirstLineIsTheFirstLineAfterThePragmas() {
        assertThat(moves(stop(53, 53), stop(55, 53)))
                .containsExactly(RuntimeEntryPoints.CodeMove.STEP, RuntimeEntryPoints.CodeMove.ARRIVED);
    }

    /**
     * clang++ with firstprivate(v, c) (a std::vector, a class whose copy constructor is above main): the
     * copies are made at the pragma's line 15 after the {@code {} 16, by functions that start in a header
     * and at line 8; they are stepped out of, and the first statement is 17.
     */
    @Test
    void theFunctionsTheDirectivesCodeCallsAreSteppedOutOf() {
        assertThat(moves(stop("fp.cpp", 15, "fp.cpp", 15), stop("fp.cpp", 16, "fp.cpp", 16),
                stop("stl_vector.h", 597, "stl_vector.h", 596), stop("fp.cpp", 15, "fp.cpp", 16),
                stop("fp.cpp", 8, "fp.cpp", 8), stop("fp.cpp", 15, "fp.cpp", 16), stop("fp.cpp", 17, "fp.cpp", 16)))
                .containsExactly(RuntimeEntryPoints.CodeMove.STEP, RuntimeEntryPoints.CodeMove.STEP,
                        RuntimeEntryPoints.CodeMove.FINISH, RuntimeEntryPoints.CodeMove.STEP,
                        RuntimeEntryPoints.CodeMove.FINISH, RuntimeEntryPoints.CodeMove.STEP,
                        RuntimeEntryPoints.CodeMove.ARRIVED);
    }

    @Test
    void aLineOfAnotherFileInTheCodesFunctionIsArrivedAt() {
        assertThat(RuntimeEntryPoints.codeMove(List.of(stop(25, 25), stop("vector.h", 25, "parallel.c", 25))))
                .isEqualTo(RuntimeEntryPoints.CodeMove.ARRIVED);
    }

    @Test
    void aStopWithoutALineOrNoStopIsSteppedOn() {
        assertThat(RuntimeEntryPoints.codeMove(List.of())).isEqualTo(RuntimeEntryPoints.CodeMove.STEP);
        assertThat(RuntimeEntryPoints.codeMove(List.of(stop(25, 25), stop(0, 25)))).isEqualTo(RuntimeEntryPoints.CodeMove.STEP);
    }
}
