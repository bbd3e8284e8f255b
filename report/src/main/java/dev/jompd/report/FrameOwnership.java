package dev.jompd.report;

import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.target.X86_64;
import dev.jompd.report.OpenMpPicture.Task;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which OpenMP task each frame of a thread's stack runs for — the one rule of every door (gdb's
 * {@code ompd bt}, the DAP server's per-frame OpenMP scopes), from the tasks' OMPT frames (OpenMP 5.1
 * §4.4.4.28 {@code ompt_frame_t}): a task's {@code exit_frame} is the frame address of the runtime frame
 * that called the task's code, its {@code enter_frame} the frame address of the runtime frame its code
 * called into (0 while it runs user code). With the stack growing down, frames at or below a task's enter
 * frame are the runtime working for that task, those below its exit frame (and above the enter frame) are
 * the task's own code, and those above belong to the next task out.
 *
 * <p>Frames are given by their canonical frame address (CFA: the stack pointer before the call, what
 * gdb's {@code $cfa} and the DAP's caller {@code $sp} are); OMPT records frame addresses
 * ({@code __builtin_frame_address(0)}, the frame pointer), which on x86-64 lie 16 bytes below the CFA
 * (return address and saved frame pointer between them).
 */
public final class FrameOwnership {
    /** What a frame belongs to. */
    public enum Owner { TASK, RUNTIME_FOR_TASK, RUNTIME }

    /** A frame's owner and, for the first two kinds, its task. */
    public record Mark(Owner owner, Optional<Task> task) {
        static final Mark RUNTIME = new Mark(Owner.RUNTIME, Optional.empty());
    }

    /** x86-64: the frame address OMPT records is the CFA less the return address and the saved rbp. */
    static final long CFA_TO_FRAME_ADDRESS = X86_64.CFA_TO_FRAME_ADDRESS;

    /**
     * How far above the outermost frame given a task's frame may lie and still be on this stack: a chain
     * leaves the thread's stack at the first task that runs on another thread (an implicit task's parent
     * on the primary thread), whose frames lie on another stack.
     */
    static final long STACK_SLACK = 1 << 16;

    private FrameOwnership() {}

    /** Marks each frame of {@code chain}'s thread, innermost first; a CFA of 0 shares the previous mark. */
    public static List<Mark> mark(List<Task> chain, long[] cfas) {
        long[] addresses = new long[cfas.length];
        for (int i = 0; i < cfas.length; i++) {
            addresses[i] = cfas[i] == 0 ? 0 : cfas[i] - CFA_TO_FRAME_ADDRESS;
        }
        int tasks = tasksOnStack(chain, addresses);
        List<Mark> marks = new ArrayList<>(addresses.length);
        Mark previous = tasks > 0 ? new Mark(Owner.TASK, Optional.of(chain.getFirst())) : Mark.RUNTIME;
        for (long address : addresses) {
            Mark mark = address == 0 ? previous : markOne(chain, tasks, address);
            marks.add(mark);
            previous = mark;
        }
        return marks;
    }

    /**
     * The task one frame belongs to, when the thread's stack is known only by that frame's CFA and its
     * innermost frame's: the same rule as {@link #mark} over those two. Runtime frames count for the task
     * they work for; a frame of no task on this stack goes to the thread's current task.
     */
    public static Optional<Task> taskOf(List<Task> chain, long cfa, long innermostCfa) {
        if (chain.isEmpty()) {
            return Optional.empty();
        }
        Mark mark = mark(chain, new long[] {innermostCfa, cfa}).getLast();
        return mark.task().or(() -> Optional.of(chain.getFirst()));
    }

    private static int tasksOnStack(List<Task> chain, long[] frameAddresses) {
        long low = -1;
        long high = 0;
        for (long address : frameAddresses) {
            if (address != 0) {
                low = Long.compareUnsigned(address, low) < 0 ? address : low;
                high = Long.compareUnsigned(address, high) > 0 ? address : high;
            }
        }
        if (high == 0) {
            return 0;
        }
        long limit = high + STACK_SLACK;
        int count = 0;
        for (Task task : chain) {
            long exit = task.frames().map(TaskHandle.TaskFrames::exitFrame).orElse(0L);
            long enter = task.frames().map(TaskHandle.TaskFrames::enterFrame).orElse(0L);
            boolean exitOn = exit != 0 && within(exit, low, limit);
            boolean enterOn = enter != 0 && within(enter, low, limit);
            boolean noFrames = exit == 0 && enter == 0;
            // The program's initial task alone, in serial code (before the first region or after one): no
            // runtime frame called its code (no exit frame) and it has called none (no enter frame), so
            // every frame is its own.
            boolean initialInSerialCode = noFrames && chain.size() == 1 && task.kind() == OpenMpPicture.TaskKind.INITIAL
                    && task.frames().isPresent();
            if (!(exitOn || enterOn || (noFrames && count > 0) || initialInSerialCode)) {
                break;
            }
            count++;
        }
        return count;
    }

    private static boolean within(long address, long low, long limit) {
        return Long.compareUnsigned(address, low) >= 0 && Long.compareUnsigned(address, limit) <= 0;
    }

    private static Mark markOne(List<Task> chain, int tasks, long address) {
        for (int i = 0; i < tasks; i++) {
            Task task = chain.get(i);
            long exit = task.frames().map(TaskHandle.TaskFrames::exitFrame).orElse(0L);
            long enter = task.frames().map(TaskHandle.TaskFrames::enterFrame).orElse(0L);
            if (enter != 0 && Long.compareUnsigned(address, enter) <= 0) {
                return new Mark(Owner.RUNTIME_FOR_TASK, Optional.of(task));
            }
            if (exit == 0 || Long.compareUnsigned(address, exit) < 0) {
                return new Mark(Owner.TASK, Optional.of(task));
            }
        }
        return Mark.RUNTIME;
    }
}
