package dev.jompd.report;

import dev.jompd.core.unwind.NativeFrame;
import dev.jompd.core.unwind.UnwindMethod;
import dev.jompd.report.ThreadWait.Kind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** What a run of libomp's frames waits in, read off the functions it passes through (innermost first). */
class ThreadWaitTest {
    private static List<NativeFrame> run(String functions) {
        return Arrays.stream(functions.split(" ")).map(name -> new NativeFrame(0x1000, Optional.empty(),
                Optional.of(name), Optional.of(name), Optional.of("libomp.so"), Optional.empty(), false,
                UnwindMethod.CALL_FRAME_INFO, OptionalLong.empty())).toList();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            // a worker idle in the pool; the same barrier running a task it took is no idleness
            "'__kmp_suspend_64 __kmp_fork_barrier __kmp_launch_thread', IDLE",
            "'__kmp_invoke_task __kmp_fork_barrier __kmp_launch_thread', BARRIER_UNTOLD",
            // the implicit barrier at a region's end: a worker in join_barrier
            "'__kmp_wait_4 __kmp_join_barrier __kmp_launch_thread', IMPLICIT_BARRIER",
            "'__kmp_suspend_64 __kmp_barrier __kmpc_barrier', BARRIER_UNTOLD",
            "'__kmp_execute_tasks_64 __kmpc_end_taskgroup', TASKGROUP",
            "'__kmp_execute_tasks_64 __kmpc_omp_taskwait', TASKWAIT",
            "'__kmp_wait<unsigned int> __kmp_dispatch_deo<unsigned int> __kmpc_ordered', ORDERED",
            "'__kmp_acquire_queuing_lock __kmpc_critical', CRITICAL",
            "'__kmp_acquire_queuing_lock __kmpc_set_lock', LOCK",
            "'__kmpc_set_nest_lock', LOCK",
            "'__kmp_invoke_microtask __kmp_fork_call __kmpc_fork_call', NONE",
            "'', NONE",
    })
    void aRunOfRuntimeFramesSaysWhatItWaitsIn(String functions, Kind expected) {
        assertThat(ThreadWait.runtimeRun(run(functions))).isEqualTo(expected);
    }
}
