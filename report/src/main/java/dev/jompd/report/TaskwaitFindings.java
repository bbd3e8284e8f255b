package dev.jompd.report;

import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.report.Diagnosis.Involved;
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
 * thread's chain: running there, or suspended with its own descendants running), each with that thread and
 * where it is. Children that no thread runs (not started, or suspended in a queue) are not in any chain, and
 * libomp's count of a task's incomplete children is not among the fields its OMPD breadcrumbs describe, so
 * their number is said to be unknown rather than guessed.
 */
final class TaskwaitFindings {
    private TaskwaitFindings() {}

    static List<Finding> of(OpenMpPicture picture, Map<Long, ThreadWait> waits) {
        List<Finding> findings = new ArrayList<>();
        for (ThreadWait wait : waits.values()) {
            if (wait.kind() != Kind.TASKWAIT && wait.kind() != Kind.TASKGROUP) {
                continue;
            }
            OpenMpThread thread = wait.thread();
            List<Task> chain = picture.chain(thread);
            if (chain.isEmpty()) {
                continue;
            }
            Task waiting = chain.getFirst();
            String construct = wait.kind() == Kind.TASKWAIT ? "a taskwait" : "the end of a taskgroup";
            String place = wait.at().map(ThreadWait.Place::describe).orElse("its place is not known");
            List<String> evidence = new ArrayList<>();
            List<Involved> involved = new ArrayList<>();
            evidence.add(Diagnosis.who(thread) + ": " + name(waiting) + " at " + construct + " (" + wait.evidence() + ")");
            involved.add(Involved.of(wait, "waits at " + construct, wait.at()));
            Map<String, List<String>> children = new LinkedHashMap<>();
            for (OpenMpThread other : picture.threads()) {
                List<Task> otherChain = picture.chain(other);
                for (int i = 0; i + 1 < otherChain.size(); i++) {
                    if (!otherChain.get(i + 1).id().equals(waiting.id())) {
                        continue;
                    }
                    Task child = otherChain.get(i);
                    ThreadWait runner = waits.get(other.gtid());
                    String how = i == 0 ? "runs on " + Diagnosis.who(other) + ", " + runner.where()
                            : "is suspended on " + Diagnosis.who(other) + ", which runs its descendant "
                              + otherChain.getFirst().id() + ", " + runner.where();
                    children.computeIfAbsent(name(child), k -> new ArrayList<>()).add(how);
                    evidence.add(Diagnosis.who(other) + ": its task chain " + String.join(" -> ", otherChain.stream()
                            .map(Task::id).toList()) + " reaches " + waiting.id() + " through child " + child.id());
                    involved.add(Involved.of(runner, "runs child task " + child.id(), runner.innermost()));
                    break;
                }
            }
            String unfinished = children.isEmpty()
                    ? "no thread runs any of its children (the ones it waits for have not started or are suspended)"
                    : String.join("; ", children.entrySet().stream().map(e -> e.getKey() + " " + String.join(
                            " and ", e.getValue())).toList());
            String summary = Diagnosis.who(thread) + ": " + name(waiting) + " waits at " + construct + " (" + place
                    + ") for its unfinished child tasks: " + unfinished + "; how many more have not started is not "
                    + "known (libomp's count of incomplete child tasks is not among its OMPD breadcrumbs)";
            findings.add(new Finding(wait.kind() == Kind.TASKWAIT ? "taskwait" : "taskgroup", summary, evidence,
                    wait.at().map(ThreadWait.Place::describe), involved));
        }
        return findings;
    }

    /** "explicit task t3 blocked_child (taskwait_blocked.c:36)": without its status (the sentence says it). */
    private static String name(Task task) {
        return task.kind().words() + " " + task.id() + task.function().map(f -> " " + f.describe()).orElse("");
    }
}
