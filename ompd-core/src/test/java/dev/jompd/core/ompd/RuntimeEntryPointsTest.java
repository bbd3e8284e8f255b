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
        return new RuntimeEntryPoints.CodeStop(new RuntimeEntryPoints.SourceLine("parallel.c", line),
                new RuntimeEntryPoints.SourceLine("parallel.c", functionEntry));
    }

    /**
     * clang's parallel.c (its line table read by objdump): main.omp_outlined starts at the pragma (25) and
     * calls main.omp_outlined_debug__, which starts at the {@code {} (26), then sets the reduction's private
     * copy at 25, then runs the first statement (27).
     */
    @Test
    void clangsRegionFirstLineIsAfterTheBraceAndTheReductionsLines() {
        List<RuntimeEntryPoints.CodeStop> walk = List.of(stop(25, 25), stop(26, 26), stop(25, 26), stop(27, 26));
        for (int stops = 1; stops < walk.size(); stops++) {
            assertThat(RuntimeEntryPoints.atFirstLineOfCode(walk.subList(0, stops))).as("after %d stops", stops).isFalse();
        }
        assertThat(RuntimeEntryPoints.atFirstLineOfCode(walk)).isTrue();
    }

    /** gcc's region._omp_fn.0 in nested.c starts at the pragma (53); its first statement is at 55. */
    @Test
    void gccsRegionFirstLineIsTheFirstLineAfterThePragmas() {
        assertThat(RuntimeEntryPoints.atFirstLineOfCode(List.of(stop(53, 53)))).isFalse();
        assertThat(RuntimeEntryPoints.atFirstLineOfCode(List.of(stop(53, 53), stop(55, 53)))).isTrue();
    }

    @Test
    void aLineOfTheSameNumberInAnotherFileIsNotTheDirectives() {
        RuntimeEntryPoints.CodeStop header = new RuntimeEntryPoints.CodeStop(
                new RuntimeEntryPoints.SourceLine("vector.h", 25), new RuntimeEntryPoints.SourceLine("parallel.c", 25));
        assertThat(RuntimeEntryPoints.atFirstLineOfCode(List.of(stop(25, 25), header))).isTrue();
    }

    @Test
    void aStopWithoutALineOrNoStopIsNoFirstLine() {
        assertThat(RuntimeEntryPoints.atFirstLineOfCode(List.of())).isFalse();
        assertThat(RuntimeEntryPoints.atFirstLineOfCode(List.of(stop(25, 25), stop(0, 25)))).isFalse();
    }
}
