package dev.jompd.report;

import dev.jompd.core.ompd.RuntimeTasks;
import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.Diagnosis.Involved;
import dev.jompd.report.Diagnosis.Role;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.Task;
import dev.jompd.report.ThreadWait.Kind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who waits at a taskwait or at the end of a taskgroup, and for which unfinished child tasks: the children
 * the picture's task tree shows on a thread (a child is the task just inside the waiting task on some
 * thread's chain of parents: running there, or with a descendant of its own running there), each with that thread and
 * where it is. Children that no thread runs (not started, or suspended in a queue) are not in any chain: their
 * number is libomp's count of the task's incomplete children ({@code td_incomplete_child_tasks}; for a taskgroup
 * the group's {@code count}, read through {@code libomp-tasks.layout}, {@link RuntimeTasks}) less the ones
 * found, and is said to be unknown (with why) when that count cannot be read or believed.
 */
final class TaskwaitFindings {
    private TaskwaitFindings() {}

    static List<Finding> of(OpenMpPicture picture, Map<Long, ThreadWait> waits, Naming naming) {
        List<Finding> findings = new ArrayList<>();
        for (ThreadWait wait : waits.values()) {
            OpenMpThread thread = wait.thread();
            List<Task> chain = picture.chain(thread);
            // the taskwaits the thread is at: its own wait, and those it runs other tasks at (outermost first)
            List<Point> points = new ArrayList<>();
            for (ThreadWait.Scheduling layer : wait.under()) {
                if (layer.kind() == Kind.TASKWAIT || layer.kind() == Kind.TASKGROUP) {
                    points.add(new Point(layer.kind(), layer.at().flatMap(ThreadWait.Place::task)
                            .map(picture.tasks()::get), layer.at(), layer.evidence(), Optional.of(layer)));
                }
            }
            if ((wait.kind() == Kind.TASKWAIT || wait.kind() == Kind.TASKGROUP) && !chain.isEmpty()) {
                points.add(new Point(wait.kind(), Optional.of(chain.getFirst()), wait.at(), wait.evidence(), Optional.empty()));
            }
            for (Point point : points) {
                findings.add(finding(picture, waits, wait, point, naming));
            }
        }
        return findings;
    }

    /**
     * A taskwait (or the end of a taskgroup) a thread is at: the construct, the task that waits, its place, how
     * known, and when the thread runs another task meanwhile, the wait it runs it at.
     */
    private record Point(Kind kind, Optional<Task> waiting, Optional<ThreadWait.Place> at, String evidence,
                         Optional<ThreadWait.Scheduling> running) {}

    private static Finding finding(OpenMpPicture picture, Map<Long, ThreadWait> waits, ThreadWait wait, Point point,
                                   Naming naming) {
        OpenMpThread thread = wait.thread();
        String construct = point.kind() == Kind.TASKWAIT ? "a taskwait" : "the end of a taskgroup";
        String place = point.at().map(ThreadWait.Place::line).orElse("its place is not known");
        String meanwhile = point.running().map(layer -> "; meanwhile the thread runs "
                + layer.task().map(ThreadWait.Place::inWords).orElse("another task") + " there").orElse("");
        FindingKind kind = point.kind() == Kind.TASKWAIT ? FindingKind.TASKWAIT : FindingKind.TASKGROUP;
        Role role = point.kind() == Kind.TASKWAIT ? Role.WAITS_AT_TASKWAIT : Role.WAITS_AT_TASKGROUP_END;
        if (point.waiting().isEmpty()) {
            // the task whose code called the taskwait: its frames tell it only where libomp keeps task frames
            String why = "which task waits, and for which children, is not known: libomp keeps task frames only with "
                    + "OMP_DEBUG=enabled";
            return new Finding(kind, naming.thread(thread) + ": a task waits at " + construct + " (" + place + "); "
                    + why + meanwhile, List.of(naming.thread(thread) + ": " + construct + " (" + point.evidence() + ")"),
                    point.at().map(ThreadWait.Place::describe), List.of(Involved.of(wait, role, point.at())));
        }
        Task waiting = point.waiting().get();
        List<String> evidence = new ArrayList<>();
        List<Involved> involved = new ArrayList<>();
        evidence.add(naming.thread(thread) + ": " + name(waiting) + " at " + construct + " (" + point.evidence() + ")");
        involved.add(Involved.of(wait, role, point.at()));
        Map<String, List<String>> children = new LinkedHashMap<>();
        Map<String, Task> childTasks = new LinkedHashMap<>();
        boolean descendantsRun = false;
        for (OpenMpThread other : picture.threads()) {
            List<Task> otherChain = picture.chain(other);
            for (int i = 0; i + 1 < otherChain.size(); i++) {
                if (!otherChain.get(i + 1).id().equals(waiting.id())) {
                    continue;
                }
                Task child = otherChain.get(i);
                ThreadWait runner = waits.get(other.gtid());
                // a chain follows the tasks' parents: the child is an ancestor of what the thread runs, not
                // necessarily suspended there (the thread may have taken a descendant from another's queue)
                String how = i == 0 ? "runs on " + naming.thread(other) + ", " + runner.where()
                        : "has its descendant " + otherChain.getFirst().id() + " running on " + naming.thread(other)
                          + ", " + runner.where();
                List<String> hows = children.computeIfAbsent(name(child), k -> new ArrayList<>());
                hows.add(i == 0 ? 0 : hows.size(), how); // where the child itself runs first, then its descendants
                childTasks.put(child.id(), child);
                descendantsRun |= i > 0;
                evidence.add(naming.thread(other) + ": its task chain " + String.join(" -> ", otherChain.stream()
                        .map(Task::id).toList()) + " reaches " + waiting.id() + " through child " + child.id());
                involved.add(Involved.of(runner, Role.RUNS_CHILD_TASK, child.id(), runner.innermost()));
                break;
            }
        }
        String unfinished = children.isEmpty()
                ? "no thread runs any of them"
                : String.join("; ", children.entrySet().stream().map(e -> e.getKey() + " " + String.join(
                        " and ", e.getValue())).toList());
        String counted = point.kind() == Kind.TASKWAIT
                ? childCount(picture.counts(waiting).children(), childTasks.size(), evidence)
                : taskgroupCount(picture, picture.counts(waiting).taskgroup(), childTasks.values(), descendantsRun, evidence);
        String summary = naming.thread(thread) + ": " + name(waiting) + " waits at " + construct + " (" + place
                + ") for " + counted.replace("%s", unfinished) + meanwhile;
        return new Finding(kind, summary, evidence,
                point.at().map(ThreadWait.Place::describe), involved);
    }

    /** What a thread runs for a task counts as started: the rest of the count no thread runs. */
    private static final String NOT_RUNNING = " more that no thread runs (not started; or, if untied or detached, suspended)";

    /**
     * The taskwait's sentence after "for": how many children libomp counts as incomplete, those found on
     * threads ({@code %s}), and how many more no thread runs — the counter believed only when it is at least
     * the children found.
     */
    private static String childCount(RuntimeTasks.Count count, int found, List<String> evidence) {
        if (count instanceof RuntimeTasks.Count.Known known && known.count() >= found) {
            evidence.add("libomp: " + known.evidence() + " (libomp-tasks.layout)");
            long rest = known.count() - found;
            if (known.count() == 0) {
                return "no unfinished child task (libomp counts none: the taskwait is ending)";
            }
            if (found == 0) {
                return known.count() + " unfinished child task" + (known.count() == 1 ? "" : "s")
                       + ", which no thread runs (not started; or, if untied or detached, suspended)";
            }
            return known.count() + " unfinished child task" + (known.count() == 1 ? "" : "s") + ": %s"
                    + (rest > 0 ? "; " + rest + NOT_RUNNING : found > 0 ? "; no other" : "");
        }
        String why = count instanceof RuntimeTasks.Count.Known known
                ? "libomp's count of incomplete child tasks (" + known.evidence() + ") is below the " + found
                  + " children found on threads"
                : ((RuntimeTasks.Count.Unknown) count).why();
        evidence.add("libomp's count of incomplete child tasks is not known: " + why);
        return "its unfinished child tasks: %s; how many more have not started is not known (" + why + ")";
    }

    /**
     * The end of a taskgroup: libomp counts the group's unfinished tasks (children made inside it and their
     * descendants). The ones found on threads are the children whose taskgroups include this one; when a
     * descendant of a child runs, whether it is of this group or of a nested one cannot be told from the
     * chains, nor how many of the group no thread runs.
     */
    private static String taskgroupCount(OpenMpPicture picture, RuntimeTasks.Count count, java.util.Collection<Task> children,
                                         boolean descendantsRun, List<String> evidence) {
        if (count instanceof RuntimeTasks.Count.Known known) {
            evidence.add("libomp: " + known.evidence() + " (libomp-tasks.layout)");
            String tasks = known.count() + " unfinished task" + (known.count() == 1 ? "" : "s") + " of the taskgroup";
            long members = 0;
            for (Task child : children) {
                Optional<List<Long>> groups = picture.taskgroups(child);
                if (groups.isEmpty()) {
                    return tasks + ": %s; how many of them no thread runs is not known (the taskgroups of child "
                           + child.id() + " could not be read)";
                }
                members += groups.get().contains(known.taskgroup()) ? 1 : 0;
            }
            if (descendantsRun) {
                return tasks + ": %s; how many of them no thread runs is not known (descendants of its children run, "
                       + "and may belong to this taskgroup or to a nested one)";
            }
            if (known.count() < members) {
                evidence.add("libomp's taskgroup count " + known.count() + " is below the " + members
                        + " of its tasks found on threads: not believed");
            } else {
                long rest = known.count() - members;
                if (members == 0) {
                    return known.count() == 0 ? "no unfinished task of the taskgroup (libomp counts none: it is ending)"
                            : tasks + ", which no thread runs (not started; or, if untied or detached, suspended)";
                }
                return tasks + ": %s" + (rest > 0 ? "; " + rest + NOT_RUNNING : members > 0 ? "; no other" : "");
            }
        } else {
            evidence.add("libomp's count of the taskgroup's tasks is not known: " + ((RuntimeTasks.Count.Unknown) count).why());
        }
        return "the unfinished tasks of the taskgroup: %s; how many more have not started is not known";
    }

    /** "explicit task t3 blocked_child (taskwait_blocked.c:36)": without its status (the sentence says it). */
    private static String name(Task task) {
        return task.kind().words() + " " + task.id() + task.function().map(f -> " " + f.describe()).orElse("");
    }
}
