package dev.jompd.gdb;

import dev.jompd.gdb.FrameMarker.Mark;
import dev.jompd.gdb.FrameMarker.Owner;
import dev.jompd.gdb.FrameMarker.TaskFrames;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class FrameMarkerTest {
    // A primary thread two levels deep, stack growing down from 0x7000:
    //   0x6000 user code of the inner implicit task (exit frame 0x6100: __kmp_invoke_microtask)
    //   0x6100..0x6200 runtime, entered by the outer implicit task at 0x6200 (__kmpc_fork_call)
    //   0x6300 user code of the outer implicit task (exit 0x6400), runtime from the initial task (enter 0x6500)
    //   0x6600 main: the initial task (no exit frame)
    private static final List<TaskFrames> CHAIN = List.of(
            new TaskFrames(0x6100, 0), new TaskFrames(0x6400, 0x6200), new TaskFrames(0, 0x6500));

    @Test
    void framesBelongToTheTaskWhoseFramesEncloseThem() {
        long[] frames = {0x6000, 0x6050, 0x6100, 0x6180, 0x6200, 0x6300, 0x6400, 0x6500, 0x6600};
        assertThat(FrameMarker.mark(CHAIN, frames)).containsExactly(
                new Mark(Owner.TASK, 0), new Mark(Owner.TASK, 0),
                new Mark(Owner.RUNTIME_FOR_TASK, 1), new Mark(Owner.RUNTIME_FOR_TASK, 1), new Mark(Owner.RUNTIME_FOR_TASK, 1),
                new Mark(Owner.TASK, 1),
                new Mark(Owner.RUNTIME_FOR_TASK, 2), new Mark(Owner.RUNTIME_FOR_TASK, 2),
                new Mark(Owner.TASK, 2));
    }

    @Test
    void aTaskWaitingInTheRuntimeOwnsTheRuntimeFramesBelowItsEnterFrame() {
        List<TaskFrames> chain = List.of(new TaskFrames(0x6100, 0x6020), new TaskFrames(0, 0x6500));
        assertThat(FrameMarker.mark(chain, new long[] {0x6000, 0x6020, 0x6050}))
                .containsExactly(new Mark(Owner.RUNTIME_FOR_TASK, 0), new Mark(Owner.RUNTIME_FOR_TASK, 0), new Mark(Owner.TASK, 0));
    }

    @Test
    void tasksOnAnotherThreadsStackAreLeftOut() {
        // A worker: its implicit task runs on its own stack, the parent task on the primary thread's.
        long worker = 0x7f00_0000_3000L;
        long primary = 0x7fff_0000_6000L;
        List<TaskFrames> chain = List.of(new TaskFrames(worker + 0x100, 0), new TaskFrames(primary + 0x400, primary + 0x200),
                new TaskFrames(0, primary + 0x500));
        long[] frames = {worker, worker + 0x100, worker + 0x200, worker + 0x300};
        assertThat(FrameMarker.tasksOnStack(chain, frames)).isEqualTo(1);
        assertThat(FrameMarker.mark(chain, frames)).containsExactly(
                new Mark(Owner.TASK, 0), new Mark(Owner.RUNTIME, -1), new Mark(Owner.RUNTIME, -1), new Mark(Owner.RUNTIME, -1));
    }

    @Test
    void framesWithoutAnAddressShareTheMarkBeforeThem() {
        assertThat(FrameMarker.mark(CHAIN, new long[] {0x6000, 0, 0x6300, 0}))
                .containsExactly(new Mark(Owner.TASK, 0), new Mark(Owner.TASK, 0), new Mark(Owner.TASK, 1), new Mark(Owner.TASK, 1));
    }

    @Test
    void noTasksOrNoAddressesMarkEverythingAsRuntime() {
        assertThat(FrameMarker.mark(List.of(), new long[] {0x6000})).containsExactly(new Mark(Owner.RUNTIME, -1));
        assertThat(FrameMarker.mark(CHAIN, new long[] {0, 0})).containsOnly(new Mark(Owner.RUNTIME, -1));
    }

    @Test
    void addressesCompareUnsigned() {
        long high = 0xffff_ff00_0000_6000L;
        List<TaskFrames> chain = List.of(new TaskFrames(high + 0x100, 0), new TaskFrames(0, high + 0x200));
        assertThat(FrameMarker.mark(chain, new long[] {high, high + 0x180, high + 0x300})).containsExactly(
                new Mark(Owner.TASK, 0), new Mark(Owner.RUNTIME_FOR_TASK, 1), new Mark(Owner.TASK, 1));
    }
}
