package dev.jompd.core.ompd;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
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
}
