package dev.jompd.gdb;

import java.util.ArrayList;
import java.util.List;

/**
 * Tells which OpenMP task each frame of a thread's backtrace runs for, from the tasks' OMPT frames
 * (OpenMP 5.1 §4.4.4.28 {@code ompt_frame_t}): a task's {@code exit_frame} is the frame address of the
 * runtime frame that called the task's code, its {@code enter_frame} the frame address of the runtime
 * frame its code called into (0 while it runs user code). With the stack growing down, frame addresses
 * at or below a task's enter frame are the runtime working for that task, those below its exit frame
 * (and above the enter frame) are the task's own code, and those above belong to the next task out.
 */
final class FrameMarker {
    /** What a frame belongs to. */
    enum Owner { TASK, RUNTIME_FOR_TASK, RUNTIME }

    /** A task of the thread's chain (innermost first): its OMPT frames; 0 means not set. */
    record TaskFrames(long exitFrame, long enterFrame) {}

    /** A frame's owner and, for the first two kinds, the index of its task in the chain. */
    record Mark(Owner owner, int task) {}

    /** How far above the outermost frame a task's frame may lie and still be on this stack. */
    static final long STACK_SLACK = 1 << 16;

    private FrameMarker() {}

    /**
     * The tasks of {@code chain} whose frames lie on the stack spanned by {@code frameAddresses}: a
     * chain leaves the thread's stack at the first task that runs on another thread (an implicit task's
     * parent on the primary thread), and the marking stops there.
     */
    static int tasksOnStack(List<TaskFrames> chain, long[] frameAddresses) {
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
        for (TaskFrames task : chain) {
            boolean exitOn = task.exitFrame() != 0 && within(task.exitFrame(), low, limit);
            boolean enterOn = task.enterFrame() != 0 && within(task.enterFrame(), low, limit);
            boolean noFrames = task.exitFrame() == 0 && task.enterFrame() == 0;
            if (!(exitOn || enterOn || (noFrames && count > 0))) {
                break;
            }
            count++;
        }
        return count;
    }

    private static boolean within(long address, long low, long limit) {
        return Long.compareUnsigned(address, low) >= 0 && Long.compareUnsigned(address, limit) <= 0;
    }

    /**
     * Marks each frame, innermost first. A frame whose address is unknown (0) shares the mark of the
     * frame before it.
     */
    static List<Mark> mark(List<TaskFrames> chain, long[] frameAddresses) {
        int tasks = tasksOnStack(chain, frameAddresses);
        List<Mark> marks = new ArrayList<>(frameAddresses.length);
        Mark previous = tasks > 0 ? new Mark(Owner.TASK, 0) : new Mark(Owner.RUNTIME, -1);
        for (long address : frameAddresses) {
            Mark mark = address == 0 ? previous : markOne(chain, tasks, address);
            marks.add(mark);
            previous = mark;
        }
        return marks;
    }

    private static Mark markOne(List<TaskFrames> chain, int tasks, long address) {
        for (int i = 0; i < tasks; i++) {
            TaskFrames task = chain.get(i);
            if (task.enterFrame() != 0 && Long.compareUnsigned(address, task.enterFrame()) <= 0) {
                return new Mark(Owner.RUNTIME_FOR_TASK, i);
            }
            if (task.exitFrame() == 0 || Long.compareUnsigned(address, task.exitFrame()) < 0) {
                return new Mark(Owner.TASK, i);
            }
        }
        return new Mark(Owner.RUNTIME, -1);
    }
}
