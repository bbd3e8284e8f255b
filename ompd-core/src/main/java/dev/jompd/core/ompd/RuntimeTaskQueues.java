package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;
import dev.jompd.core.target.TargetException;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tasks libomp has created and not started: those ready in a thread's deque (kmp_tasking.cpp
 * {@code __kmp_push_task} puts a deferred task at the tail of the creating thread's deque in its team's task team;
 * the owner takes from the tail, thieves from the head), and those whose dependences are unmet, which sit in no
 * deque but in the successor lists of their predecessors' dependence nodes (kmp_taskdeps.cpp
 * {@code __kmp_track_dependence}; {@code __kmp_release_deps} pushes a successor when its count of unmet
 * predecessors reaches 0). Layouts come from {@link TaskQueueLayout}; nothing here has a breadcrumb, so every value
 * is believed only when its content fits, every walk is bounded, and whatever does not fit becomes a problem
 * line, never a task.
 */
public final class RuntimeTaskQueues {
    /** More deferred tasks than this are counted, not listed (each listed task costs its reading and ~1 KB of JSON). */
    public static final int MAX_TASKS = 1_000;
    /** Tasks beyond the listed ones are still checked and walked for their successors up to this many. */
    static final int MAX_COUNTED = 100_000;
    /** A deque larger than this, or a team of more threads, is no libomp deque or team. */
    static final long MAX_DEQUE_SIZE = 1L << 24;
    static final long MAX_TEAM = 1L << 16;

    /** A thread as the task team names it: its {@code kmp_info_t}, gtid and number in its team. */
    public record Thread(long info, long gtid, long threadNum) {}

    /** Why a task has not started. */
    public sealed interface Wait {
        /**
         * Ready, in the deque of thread {@code gtid} (number {@code threadNum} of the team whose task team holds the
         * deque) at {@code position}
         * counted from the head (the oldest, which a thief would take first; the owner takes from the tail).
         */
        record Queued(long gtid, long threadNum, int position) implements Wait {}

        /** Its dependences are unmet: listed as a successor of {@code predecessor}, {@code unmet} predecessors left. */
        record Dependences(long predecessor, long unmet) implements Wait {}
    }

    /** A task that has not started ({@code taskdata}: its kmp_taskdata_t). */
    public record Deferred(long taskdata, Wait reason) {}

    /**
     * What was found: the tasks (at most {@link #MAX_TASKS}), per deque how many it holds (by the deque owner's gtid),
     * how many were found beyond the cap, and what could not be read.
     */
    public record Found(List<Deferred> tasks, Map<Long, Long> queuedByGtid, long notListed, List<String> problems) {}

    private RuntimeTaskQueues() {}

    /**
     * Reads every deque of the task teams the {@code threads} point to, then the dependence successors of the
     * {@code runningTasks} (the tasks of the threads' chains and stacks) and of every task found, transitively.
     */
    public static Found read(AddressSpaceHandle space, List<Thread> threads, Collection<Long> runningTasks) {
        TaskQueueLayout layout = TaskQueueLayout.shipped();
        List<String> problems = new ArrayList<>();
        Map<Long, Deferred> found = new LinkedHashMap<>();
        Set<Long> counted = new HashSet<>(); // found beyond MAX_TASKS: counted in notListed, walked for successors
        Map<Long, Long> queuedByGtid = new LinkedHashMap<>();
        long[] notListed = {0};
        Map<Long, Thread> byInfo = new HashMap<>();
        threads.forEach(thread -> byInfo.put(thread.info(), thread));

        Set<Long> taskTeams = new LinkedHashSet<>();
        for (Thread thread : threads) {
            try {
                // libomp: __kmp_threads[gtid]->th.th_task_team (no breadcrumb: placed against th_current_task)
                long base = thread.info() + space.layout().offset("kmp_info_t", "th");
                long taskTeam = space.memory().readPointer(base + space.layout().offset("kmp_base_info_t", "th_current_task")
                        - layout.taskTeamBefore());
                if (taskTeam != 0) {
                    taskTeams.add(taskTeam);
                }
            } catch (OmpdException | TargetException e) {
                problems.add("task deques: th_task_team of gtid " + thread.gtid() + " cannot be read: " + OmpdException.words(e));
            }
        }
        if (!taskTeams.isEmpty()) {
            readDeques(space, layout, taskTeams, byInfo, found, counted, queuedByGtid, notListed, problems);
        }
        readDependences(space, layout, runningTasks, found, counted, notListed, problems);
        return new Found(List.copyOf(found.values()), Map.copyOf(queuedByGtid), notListed[0], List.copyOf(problems));
    }

    /** One task team as a group reads it: its threads' slots, or why the group does not fit it. */
    private record TeamReading(long threadsData, long nproc, List<Thread> slots, String misfit) {}

    private static TeamReading readTeam(AddressSpaceHandle space, TaskQueueLayout layout, TaskQueueLayout.Group group,
                                        long taskTeam, Map<Long, Thread> byInfo) {
        String hex = "0x" + Long.toHexString(taskTeam);
        try {
            long threadsData = space.memory().readPointer(taskTeam
                    + group.member("kmp_base_task_team_t", "tt_threads_data").offset());
            long nproc = space.memory().readSigned(taskTeam + group.member("kmp_base_task_team_t", "tt_nproc").offset(),
                    group.member("kmp_base_task_team_t", "tt_nproc").size());
            if (nproc < 1 || nproc > MAX_TEAM || nproc > byInfo.size()) {
                return new TeamReading(threadsData, nproc, List.of(), "the task team at " + hex + " would have "
                        + nproc + " threads, of " + byInfo.size() + " known");
            }
            if (threadsData == 0) {
                return new TeamReading(0, nproc, List.of(), null); // no deques yet: none pushed to in this team
            }
            Member thr = layout.member("kmp_thread_data_t", "td.td_thr");
            List<Thread> slots = new ArrayList<>();
            Set<Long> seen = new HashSet<>();
            for (int k = 0; k < nproc; k++) {
                long info = space.memory().readPointer(threadsData + k * layout.threadDataSize() + thr.offset());
                Thread thread = byInfo.get(info);
                if (thread == null || !seen.add(info)) {
                    return new TeamReading(threadsData, nproc, List.of(), "slot " + k + " of the task team at " + hex
                            + " names 0x" + Long.toHexString(info) + ", " + (thread == null ? "no thread of __kmp_threads"
                            : "a thread another slot names"));
                }
                slots.add(thread);
            }
            return new TeamReading(threadsData, nproc, List.copyOf(slots), null);
        } catch (OmpdException | TargetException e) {
            return new TeamReading(-1, -1, List.of(), "the task team at " + hex + " cannot be read: " + OmpdException.words(e));
        }
    }

    private static void readDeques(AddressSpaceHandle space, TaskQueueLayout layout, Set<Long> taskTeams,
                                   Map<Long, Thread> byInfo, Map<Long, Deferred> found, Set<Long> counted,
                                   Map<Long, Long> queuedByGtid, long[] notListed, List<String> problems) {
        // The group whose reading of some task team names the team's own threads. When none does, a group that
        // reads every task team as a team of plausible size without deques says there are none (libomp allocates
        // them at a team's first deferred task)
        List<TaskQueueLayout.Group> confirmed = new ArrayList<>();
        boolean someGroupReadsNoDeques = false;
        List<String> misfits = new ArrayList<>();
        for (TaskQueueLayout.Group group : layout.groups()) {
            boolean confirms = false;
            boolean noDeques = true;
            for (long taskTeam : taskTeams) {
                TeamReading reading = readTeam(space, layout, group, taskTeam, byInfo);
                noDeques &= reading.misfit() == null && reading.threadsData() == 0;
                confirms |= reading.misfit() == null && reading.threadsData() != 0;
                if (reading.misfit() != null) {
                    misfits.add(group.name() + ": " + reading.misfit());
                }
            }
            if (confirms) {
                confirmed.add(group);
            }
            someGroupReadsNoDeques |= noDeques;
        }
        if (confirmed.isEmpty()) {
            if (!someGroupReadsNoDeques) {
                problems.add("task deques: the task teams fit no checked layout of kmp_base_task_team_t, so tasks "
                        + "waiting in deques are not shown (" + String.join("; ", misfits) + ")");
            }
            return; // else no task team has deques yet: libomp allocates them at a team's first deferred task
        }
        if (confirmed.size() > 1) {
            problems.add("task deques: the task teams fit more than one layout of kmp_base_task_team_t ("
                    + String.join(", ", confirmed.stream().map(TaskQueueLayout.Group::name).toList())
                    + "), so tasks waiting in deques are not shown");
            return;
        }
        TaskQueueLayout.Group group = confirmed.getFirst();
        for (long taskTeam : taskTeams) {
            TeamReading reading = readTeam(space, layout, group, taskTeam, byInfo);
            if (reading.misfit() != null) {
                problems.add("task deques: " + reading.misfit() + " (layout " + group.name() + "): its tasks are not shown");
                continue;
            }
            for (int k = 0; k < reading.slots().size(); k++) {
                readDeque(space, layout, reading.threadsData() + k * layout.threadDataSize(), reading.slots().get(k), k,
                        found, counted, queuedByGtid, notListed, problems);
            }
        }
    }

    /** The deque of {@code owner}, thread number {@code threadNum} of the task team's team (its innermost team or another). */
    private static void readDeque(AddressSpaceHandle space, TaskQueueLayout layout, long threadData, Thread owner,
                                  int threadNum, Map<Long, Deferred> found, Set<Long> counted, Map<Long, Long> queuedByGtid,
                                  long[] notListed,
                                  List<String> problems) {
        String who = "task deque of gtid " + owner.gtid();
        try {
            long deque = space.memory().readPointer(threadData + layout.member("kmp_thread_data_t", "td.td_deque").offset());
            long size = s32(space, threadData, layout.member("kmp_thread_data_t", "td.td_deque_size"));
            long head = s32(space, threadData, layout.member("kmp_thread_data_t", "td.td_deque_head"));
            long tail = s32(space, threadData, layout.member("kmp_thread_data_t", "td.td_deque_tail"));
            long ntasks = s32(space, threadData, layout.member("kmp_thread_data_t", "td.td_deque_ntasks"));
            if (deque == 0) {
                if (ntasks != 0) {
                    problems.add(who + ": no deque allocated but " + ntasks + " tasks counted: not libomp's deque");
                }
                return;
            }
            // libomp: the deque is a ring of td_deque_size (a power of two) entries; tasks from head to tail
            boolean fits = size > 0 && size <= MAX_DEQUE_SIZE && Long.bitCount(size) == 1 && head >= 0 && head < size
                    && tail >= 0 && tail < size && ntasks >= 0 && ntasks <= size && ((head + ntasks) & (size - 1)) == tail;
            if (!fits) {
                problems.add(who + ": size " + size + ", head " + head + ", tail " + tail + ", " + ntasks
                        + " tasks do not agree: not libomp's deque, its tasks are not shown");
                return;
            }
            if (ntasks == 0) {
                return;
            }
            queuedByGtid.merge(owner.gtid(), ntasks, Long::sum);
            RuntimeLayout runtime = space.layout();
            for (int i = 0; i < ntasks; i++) {
                if (found.size() + counted.size() >= MAX_COUNTED) {
                    notListed[0] += ntasks - i; // libomp's own count of the rest, not read one by one
                    break;
                }
                long slot = (head + i) & (size - 1);
                long taskdata = space.memory().readPointer(deque + slot * 8);
                String misfit = notStarted(space, runtime, taskdata);
                if (misfit != null) {
                    problems.add(who + ": entry " + slot + " (0x" + Long.toHexString(taskdata) + ") " + misfit
                            + ": not shown");
                    continue;
                }
                if (found.containsKey(taskdata) || counted.contains(taskdata)) {
                    problems.add(who + ": entry " + slot + " holds a task already found elsewhere (0x"
                            + Long.toHexString(taskdata) + ")");
                } else if (found.size() < MAX_TASKS) {
                    found.put(taskdata, new Deferred(taskdata, new Wait.Queued(owner.gtid(), threadNum, i)));
                } else {
                    counted.add(taskdata);
                    notListed[0]++;
                }
            }
        } catch (OmpdException | TargetException e) {
            problems.add(who + " cannot be read: " + OmpdException.words(e));
        }
    }

    /** Why the kmp_taskdata_t is no explicit task that has not started, or null when it is one. */
    private static String notStarted(AddressSpaceHandle space, RuntimeLayout runtime, long taskdata) {
        if (taskdata == 0) {
            return "is null";
        }
        try {
            long flags = space.memory().readUnsigned(taskdata + runtime.offset("kmp_taskdata_t", "td_flags"),
                    (int) runtime.typeSize("kmp_tasking_flags_t"));
            if ((flags & runtime.bitMask("tasktype")) == 0) {
                return "is no explicit task";
            }
            if ((flags & (runtime.bitMask("started") | runtime.bitMask("executing") | runtime.bitMask("complete")
                    | runtime.bitMask("freed"))) != 0) {
                return "has started, completed or been freed";
            }
            return null;
        } catch (OmpdException | TargetException e) {
            return "cannot be read (" + OmpdException.words(e) + ")";
        }
    }

    private static void readDependences(AddressSpaceHandle space, TaskQueueLayout layout, Collection<Long> runningTasks,
                                        Map<Long, Deferred> found, Set<Long> counted, long[] notListed,
                                        List<String> problems) {
        RuntimeLayout runtime = space.layout();
        long taskdataSize;
        try {
            taskdataSize = runtime.typeSize("kmp_taskdata_t");
        } catch (OmpdException e) {
            problems.add("tasks waiting for dependences: " + OmpdException.words(e));
            return;
        }
        Member depnode = layout.member("kmp_taskdata_t", "td_depnode");
        Member successors = layout.member("kmp_depnode_t", "dn.successors");
        Member dnTask = layout.member("kmp_depnode_t", "dn.task");
        Member unmet = layout.member("kmp_depnode_t", "dn.npredecessors");
        Member listNode = layout.member("kmp_depnode_list_t", "node");
        Member listNext = layout.member("kmp_depnode_list_t", "next");
        Deque<Long> predecessors = new ArrayDeque<>(runningTasks);
        found.keySet().forEach(predecessors::addLast);
        predecessors.addAll(counted);
        Set<Long> walked = new HashSet<>();
        Set<Long> listed = new HashSet<>();
        while (!predecessors.isEmpty()) {
            long task = predecessors.removeFirst();
            if (!walked.add(task)) {
                continue;
            }
            String hex = "0x" + Long.toHexString(task);
            try {
                long node = space.memory().readPointer(task + depnode.offset());
                if (node == 0) {
                    continue;
                }
                // the node is the task's own: libomp sets dn.task to the task's kmp_task_t (KMP_TASKDATA_TO_TASK)
                long owner = space.memory().readPointer(node + dnTask.offset());
                if (owner != task + taskdataSize) {
                    problems.add("tasks waiting for dependences: the dependence node 0x" + Long.toHexString(node)
                            + " of the task at " + hex + " names the kmp_task_t 0x" + Long.toHexString(owner)
                            + ", not the task's own: its successors are not shown");
                    continue;
                }
                long entry = space.memory().readPointer(node + successors.offset());
                while (entry != 0) {
                    if (!listed.add(entry) || listed.size() > 4 * MAX_COUNTED) {
                        problems.add("tasks waiting for dependences: the successors of the task at " + hex
                                + " loop or exceed " + 4 * MAX_COUNTED + ": the rest are not shown");
                        break;
                    }
                    long successor = space.memory().readPointer(entry + listNode.offset());
                    entry = space.memory().readPointer(entry + listNext.offset());
                    long successorTask = successor == 0 ? 0 : space.memory().readPointer(successor + dnTask.offset());
                    long successorData = successorTask - taskdataSize;
                    String misfit = successorTask == 0 ? "names no task"
                            : space.memory().readPointer(successorData + depnode.offset()) != successor
                            ? "names a task whose dependence node is another" : notStarted(space, runtime, successorData);
                    if (misfit != null) {
                        if (successorTask != 0 && misfit.startsWith("has started")) {
                            continue; // released already: it runs or ran, and is shown where it is
                        }
                        problems.add("tasks waiting for dependences: a successor 0x" + Long.toHexString(successor)
                                + " of the task at " + hex + " " + misfit + ": not shown");
                        continue;
                    }
                    if (found.containsKey(successorData) || counted.contains(successorData)) {
                        continue;
                    }
                    if (found.size() + counted.size() >= MAX_COUNTED) {
                        problems.add("tasks waiting for dependences: more than " + MAX_COUNTED + " tasks not started: "
                                + "the rest are neither listed nor counted");
                        return;
                    }
                    if (found.size() < MAX_TASKS) {
                        long left = space.memory().readSigned(successor + unmet.offset(), unmet.size());
                        found.put(successorData, new Deferred(successorData, new Wait.Dependences(task, left)));
                    } else {
                        counted.add(successorData);
                        notListed[0]++;
                    }
                    predecessors.addLast(successorData);
                }
            } catch (OmpdException | TargetException e) {
                problems.add("tasks waiting for dependences: the dependence node of the task at " + hex
                        + " cannot be read: " + OmpdException.words(e));
            }
        }
    }

    private static long s32(AddressSpaceHandle space, long base, Member member) throws TargetException {
        return space.memory().readSigned(base + member.offset(), member.size());
    }
}
