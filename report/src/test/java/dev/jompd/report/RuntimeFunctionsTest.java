package dev.jompd.report;

import dev.jompd.report.RuntimeFunctions.Meaning;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The table's rows read as the name rules they replace (function names as libomp's DWARF gives them). */
class RuntimeFunctionsTest {

    @Test
    void functionsMeanWhatTheirRowsSay() {
        assertThat(RuntimeFunctions.is("__kmp_fork_barrier", Meaning.THREAD_POOL_IDLE)).isTrue();
        assertThat(RuntimeFunctions.is("__kmp_fork_barrier", Meaning.BARRIER_WAIT)).isTrue();
        assertThat(RuntimeFunctions.is("__kmp_join_barrier", Meaning.IMPLICIT_BARRIER)).isTrue();
        assertThat(RuntimeFunctions.is("__kmpc_omp_taskwait", Meaning.TASK_WAIT)).isTrue();
        assertThat(RuntimeFunctions.is("__kmpc_end_taskgroup", Meaning.TASKGROUP_END)).isTrue();
        assertThat(RuntimeFunctions.is("__kmpc_critical_with_hint", Meaning.CRITICAL_WAIT)).isTrue();
        assertThat(RuntimeFunctions.is("__kmp_acquire_queuing_lock", Meaning.LOCK_ACQUIRE)).isTrue();
        assertThat(RuntimeFunctions.is("omp_set_lock", Meaning.LOCK_ACQUIRE)).isTrue();
        assertThat(RuntimeFunctions.is("__kmp_release_queuing_lock", Meaning.LOCK_ACQUIRE)).isFalse();
        assertThat(RuntimeFunctions.is("__kmp_invoke_microtask", Meaning.INVOKE)).isTrue();
        assertThat(RuntimeFunctions.is("__kmpc_invoke_task_func", Meaning.INVOKE)).isFalse();
        assertThat(RuntimeFunctions.is("__kmp_invoke_task", Meaning.INVOKE_TASK)).isTrue();
        assertThat(RuntimeFunctions.is("_ZL17__kmp_invoke_taskiP8kmp_taskP12kmp_taskdata", Meaning.INVOKE_TASK)).isTrue();
        assertThat(RuntimeFunctions.is("__kmp_invoke_task_func", Meaning.INVOKE_TASK)).isFalse();
        assertThat(RuntimeFunctions.is("__kmpc_fork_call", Meaning.FORK_CALL)).isTrue();
        assertThat(RuntimeFunctions.is("__kmp_launch_thread", Meaning.THREAD_LAUNCH)).isTrue();
        assertThat(RuntimeFunctions.is("__kmpc_barrier", Meaning.ENTRY_POINT)).isTrue();
        assertThat(RuntimeFunctions.is("__kmp_barrier", Meaning.ENTRY_POINT)).isFalse();
    }

    @Test
    void systemModulesAreTheCLibrarysAndTheLinkers() {
        for (String module : new String[] {"libc.so.6", "libc-2.31.so", "ld-linux-x86-64.so.2", "libpthread.so.0",
                "libgfortran.so.5"}) {
            assertThat(RuntimeFunctions.is(module, Meaning.SYSTEM_LIBRARY)).as(module).isTrue();
        }
        assertThat(RuntimeFunctions.is("libcrypto.so.3", Meaning.SYSTEM_LIBRARY)).isFalse();
        assertThat(RuntimeFunctions.is("libomp.so", Meaning.SYSTEM_LIBRARY)).isFalse();
    }

    @Test
    void aMalformedRowIsRefused() {
        assertThatThrownBy(() -> RuntimeFunctions.parse("BARRIER_WAIT symbol barrier"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RuntimeFunctions.parse("NO_SUCH_MEANING function x"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
