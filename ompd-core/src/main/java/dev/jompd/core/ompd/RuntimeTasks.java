package dev.jompd.core.ompd;

import dev.jompd.core.target.TargetException;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How many tasks a task waits for at a taskwait or at the end of a taskgroup, as libomp counts them
 * (kmp_tasking.cpp: the taskwait spins while {@code td_incomplete_child_tasks != 0}, the end of a taskgroup
 * while {@code td_taskgroup->count != 0}). Layouts come from {@link TaskLayout}; a count is believed only when
 * its content fits — a non-negative count below {@link #MAX_TASKS} without the proxy flag, for an explicit
 * task no more incomplete children than allocated ones, a taskgroup whose cancel request is one of libomp's
 * kinds and whose chain of enclosing groups ends — otherwise the answer is {@link Count.Unknown} with why.
 */
public final class RuntimeTasks {
    /** More tasks than this in one count is no count (memory corrupt, or another layout). */
    static final long MAX_TASKS = 1 << 24;
    /** Bound of the walk over enclosing taskgroups. */
    static final int MAX_TASKGROUP_DEPTH = 1024;

    /** A count of unfinished tasks, or why it cannot be told. */
    public sealed interface Count {
        /**
         * {@code count} tasks; {@code evidence} names the words read; {@code taskgroup} the kmp_taskgroup_t counted
         * (0 for a count of children).
         */
        record Known(long count, String evidence, long taskgroup) implements Count {}

        record Unknown(String why) implements Count {}
    }

    private RuntimeTasks() {}

    /** The task's children not completed yet (what a taskwait waits for): {@code td_incomplete_child_tasks}. */
    public static Count incompleteChildren(AddressSpaceHandle space, long taskdata) {
        TaskLayout layout = TaskLayout.shipped();
        String hex = "0x" + Long.toHexString(taskdata);
        try {
            // libomp: taskdata->td_incomplete_child_tasks
            long count = s32(space, taskdata + layout.member("kmp_taskdata_t", "td_incomplete_child_tasks").offset(),
                    "kmp_taskdata_t@" + hex + ".td_incomplete_child_tasks");
            if ((count & layout.proxyTaskFlag()) != 0) {
                return new Count.Unknown("the task's td_incomplete_child_tasks 0x" + Long.toHexString(count)
                        + " carries libomp's proxy-task flag: it is being completed as a proxy task");
            }
            if (count < 0 || count > MAX_TASKS) {
                return new Count.Unknown("the task's td_incomplete_child_tasks holds " + count + ", no count of tasks");
            }
            String evidence = "td_incomplete_child_tasks " + count + " in the kmp_taskdata_t at " + hex;
            RuntimeLayout runtime = space.layout();
            long flags = space.memory().readUnsigned(taskdata + runtime.offset("kmp_taskdata_t", "td_flags"),
                    (int) runtime.typeSize("kmp_tasking_flags_t"));
            if ((flags & runtime.bitMask("tasktype")) != 0) {
                // An explicit task counts itself and every child not yet freed (a child is freed after it completes)
                long allocated = s32(space, taskdata + layout.member("kmp_taskdata_t", "td_allocated_child_tasks").offset(),
                        "kmp_taskdata_t@" + hex + ".td_allocated_child_tasks");
                if (allocated < count + 1) {
                    return new Count.Unknown("the explicit task at " + hex + " counts " + count
                            + " incomplete children but only " + allocated + " allocated ones (itself included): "
                            + "not libomp's counters");
                }
                evidence += ", td_allocated_child_tasks " + allocated;
            }
            return new Count.Known(count, evidence, 0);
        } catch (OmpdException | TargetException e) {
            return new Count.Unknown(e.getMessage());
        }
    }

    /**
     * The tasks of the task's innermost taskgroup not completed yet (what the end of that taskgroup waits for):
     * {@code td_taskgroup->count} — tasks created inside the group and their descendants, except those inside
     * a nested taskgroup.
     */
    public static Count taskgroupTasks(AddressSpaceHandle space, long taskdata) {
        TaskLayout layout = TaskLayout.shipped();
        String hex = "0x" + Long.toHexString(taskdata);
        try {
            // libomp: taskdata->td_taskgroup->count
            long group = pointer(space, taskdata + layout.member("kmp_taskdata_t", "td_taskgroup").offset(),
                    "kmp_taskdata_t@" + hex + ".td_taskgroup");
            if (group == 0) {
                return new Count.Unknown("the task at " + hex + " is in no taskgroup (td_taskgroup is null)");
            }
            String groupHex = "0x" + Long.toHexString(group);
            long count = s32(space, group + layout.member("kmp_taskgroup_t", "count").offset(),
                    "kmp_taskgroup_t@" + groupHex + ".count");
            long cancel = s32(space, group + layout.member("kmp_taskgroup_t", "cancel_request").offset(),
                    "kmp_taskgroup_t@" + groupHex + ".cancel_request");
            if (count < 0 || count > MAX_TASKS || cancel < 0 || cancel > layout.cancelMax()) {
                return new Count.Unknown("the taskgroup at " + groupHex + " holds count " + count + " and cancel request "
                        + cancel + ": not libomp's taskgroup");
            }
            // The chain of enclosing taskgroups ends (a kmp_taskgroup_t's parent is the group it is nested in)
            List<Long> chain = chain(space, group);
            return new Count.Known(count, "count " + count + " in the kmp_taskgroup_t at " + groupHex
                    + " (td_taskgroup of the kmp_taskdata_t at " + hex + ", " + (chain.size() - 1) + " enclosing)", group);
        } catch (OmpdException | TargetException e) {
            return new Count.Unknown(e.getMessage());
        }
    }

    /**
     * The taskgroups the task is in, innermost first ({@code td_taskgroup} and its parents): the group it was
     * created in, and before it those it opened itself and has not ended.
     *
     * @throws OmpdException when a group cannot be read or the chain does not end
     */
    public static List<Long> taskgroups(AddressSpaceHandle space, long taskdata) {
        try {
            long group = pointer(space, taskdata + TaskLayout.shipped().member("kmp_taskdata_t", "td_taskgroup").offset(),
                    "kmp_taskdata_t@0x" + Long.toHexString(taskdata) + ".td_taskgroup");
            return group == 0 ? List.of() : chain(space, group);
        } catch (TargetException e) {
            throw new OmpdException(OmpdRc.ERROR, e.getMessage());
        }
    }

    private static List<Long> chain(AddressSpaceHandle space, long group) {
        List<Long> chain = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        long enclosing = group;
        while (enclosing != 0 && seen.add(enclosing) && chain.size() <= MAX_TASKGROUP_DEPTH) {
            chain.add(enclosing);
            enclosing = pointer(space, enclosing + TaskLayout.shipped().member("kmp_taskgroup_t", "parent").offset(),
                    "kmp_taskgroup_t@0x" + Long.toHexString(enclosing) + ".parent");
        }
        if (enclosing != 0) {
            throw new OmpdException(OmpdRc.ERROR, "the taskgroup at 0x" + Long.toHexString(group) + " has enclosing "
                    + "groups that do not end (a cycle, or more than " + MAX_TASKGROUP_DEPTH + "): not libomp's taskgroup");
        }
        return List.copyOf(chain);
    }

    private static long s32(AddressSpaceHandle space, long address, String what) {
        try {
            return (int) space.memory().readUnsigned(address, 4);
        } catch (TargetException e) {
            throw space.readError("cannot read " + what + " at 0x" + Long.toHexString(address), e);
        }
    }

    private static long pointer(AddressSpaceHandle space, long address, String what) {
        try {
            return space.memory().readPointer(address);
        } catch (TargetException e) {
            throw space.readError("cannot read " + what + " at 0x" + Long.toHexString(address), e);
        }
    }
}
