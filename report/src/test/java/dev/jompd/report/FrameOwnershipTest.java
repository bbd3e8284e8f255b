package dev.jompd.report;

import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.ompd.ToolData;
import dev.jompd.report.FrameOwnership.Mark;
import dev.jompd.report.FrameOwnership.Owner;
import dev.jompd.report.OpenMpPicture.Task;
import dev.jompd.report.OpenMpPicture.TaskKind;
import dev.jompd.report.OpenMpPicture.TaskStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class FrameOwnershipTest {
    // A primary thread two levels deep, stack growing down from 0x7000 (frame addresses as OMPT records
    // them; the frames' CFAs lie 16 bytes above):
    //   0x6000 user code of the inner implicit task (exit frame 0x6100: __kmp_invoke_microtask)
    //   0x6100..0x6200 runtime, entered by the outer implicit task at 0x6200 (__kmpc_fork_call)
    //   0x6300 user code of the outer implicit task (exit 0x6400), runtime from the initial task (enter 0x6500)
    //   0x6600 main: the initial task (no exit frame)
    private static final List<Task> CHAIN = List.of(task(0, 0x6100, 0), task(1, 0x6400, 0x6200), task(2, 0, 0x6500));

    private static Task task(int index, long exit, long enter) {
        return new Task("t" + index, 0x1000L * (index + 1), 0, TaskKind.IMPLICIT, TaskStatus.EXECUTING, Optional.empty(),
                Optional.empty(), Optional.of(new TaskHandle.TaskFrames(exit, 0, enter, 0)),
                Optional.of(new ToolData(0, 0)), Optional.empty(), Map.of());
    }

    private static long[] cfas(long... frameAddresses) {
        return Arrays.stream(frameAddresses).map(a -> a == 0 ? 0 : a + FrameOwnership.CFA_TO_FRAME_ADDRESS).toArray();
    }

    private static Mark mark(Owner owner, List<Task> chain, int index) {
        return new Mark(owner, index < 0 ? Optional.empty() : Optional.of(chain.get(index)));
    }

    @Test
    void framesBelongToTheTaskWhoseFramesEncloseThem() {
        long[] frames = cfas(0x6000, 0x6050, 0x6100, 0x6180, 0x6200, 0x6300, 0x6400, 0x6500, 0x6600);
        assertThat(FrameOwnership.mark(CHAIN, frames)).containsExactly(
                mark(Owner.TASK, CHAIN, 0), mark(Owner.TASK, CHAIN, 0),
                mark(Owner.RUNTIME_FOR_TASK, CHAIN, 1), mark(Owner.RUNTIME_FOR_TASK, CHAIN, 1),
                mark(Owner.RUNTIME_FOR_TASK, CHAIN, 1), mark(Owner.TASK, CHAIN, 1),
                mark(Owner.RUNTIME_FOR_TASK, CHAIN, 2), mark(Owner.RUNTIME_FOR_TASK, CHAIN, 2),
                mark(Owner.TASK, CHAIN, 2));
    }

    /**
     * The program's initial task alone in serial code (before its first region, or back in main after one): no
     * runtime frame called its code and it has called none, so OMPT records no frame for it, and every frame
     * is its own. An implicit task without frames (a worker's, of an ended region, idle in the pool) owns none.
     */
    @Test
    void theInitialTaskAloneWithoutFramesOwnsEveryFrame() {
        Task initial = new Task("t0", 0x1000, 0, TaskKind.INITIAL, TaskStatus.EXECUTING, Optional.empty(), Optional.empty(),
                Optional.of(new TaskHandle.TaskFrames(0, 0, 0, 0)), Optional.of(new ToolData(0, 0)), Optional.empty(), Map.of());
        long[] frames = cfas(0x6000, 0x6100, 0x6600);
        assertThat(FrameOwnership.mark(List.of(initial), frames)).containsExactly(mark(Owner.TASK, List.of(initial), 0),
                mark(Owner.TASK, List.of(initial), 0), mark(Owner.TASK, List.of(initial), 0));
        List<Task> worker = List.of(task(0, 0, 0), initial);
        assertThat(FrameOwnership.mark(worker, frames)).containsOnly(Mark.RUNTIME);
    }

    @Test
    void oneFrameWithTheInnermostOneGetsTheSameAnswerAsTheWholeStack() {
        long[] frames = cfas(0x6000, 0x6050, 0x6100, 0x6180, 0x6200, 0x6300, 0x6400, 0x6500, 0x6600);
        List<Mark> whole = FrameOwnership.mark(CHAIN, frames);
        for (int i = 1; i < frames.length; i++) {
            assertThat(FrameOwnership.taskOf(CHAIN, frames[i], frames[0])).as("frame %d", i).isEqualTo(whole.get(i).task());
        }
    }

    @Test
    void aTaskWaitingInTheRuntimeOwnsTheRuntimeFramesBelowItsEnterFrame() {
        List<Task> chain = List.of(task(0, 0x6100, 0x6020), task(1, 0, 0x6500));
        assertThat(FrameOwnership.mark(chain, cfas(0x6000, 0x6020, 0x6050))).containsExactly(
                mark(Owner.RUNTIME_FOR_TASK, chain, 0), mark(Owner.RUNTIME_FOR_TASK, chain, 0), mark(Owner.TASK, chain, 0));
    }

    @Test
    void tasksOnAnotherThreadsStackAreLeftOut() {
        // A worker: its implicit task runs on its own stack, the parent task on the primary thread's.
        long worker = 0x7f00_0000_3000L;
        long primary = 0x7fff_0000_6000L;
        List<Task> chain = List.of(task(0, worker + 0x100, 0), task(1, primary + 0x400, primary + 0x200),
                task(2, 0, primary + 0x500));
        assertThat(FrameOwnership.mark(chain, cfas(worker, worker + 0x100, worker + 0x200, worker + 0x300))).containsExactly(
                mark(Owner.TASK, chain, 0), mark(Owner.RUNTIME, chain, -1), mark(Owner.RUNTIME, chain, -1),
                mark(Owner.RUNTIME, chain, -1));
    }

    @Test
    void framesWithoutAnAddressShareTheMarkBeforeThem() {
        assertThat(FrameOwnership.mark(CHAIN, cfas(0x6000, 0, 0x6300, 0))).containsExactly(
                mark(Owner.TASK, CHAIN, 0), mark(Owner.TASK, CHAIN, 0), mark(Owner.TASK, CHAIN, 1), mark(Owner.TASK, CHAIN, 1));
    }

    @Test
    void noTasksOrNoAddressesMarkEverythingAsRuntime() {
        assertThat(FrameOwnership.mark(List.of(), cfas(0x6000))).containsExactly(mark(Owner.RUNTIME, CHAIN, -1));
        assertThat(FrameOwnership.mark(CHAIN, new long[] {0, 0})).containsOnly(mark(Owner.RUNTIME, CHAIN, -1));
    }

    @Test
    void addressesCompareUnsigned() {
        long high = 0xffff_ff00_0000_6000L;
        List<Task> chain = List.of(task(0, high + 0x100, 0), task(1, 0, high + 0x200));
        assertThat(FrameOwnership.mark(chain, cfas(high, high + 0x180, high + 0x300))).containsExactly(
                mark(Owner.TASK, chain, 0), mark(Owner.RUNTIME_FOR_TASK, chain, 1), mark(Owner.TASK, chain, 1));
    }
}
