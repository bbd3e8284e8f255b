package dev.jompd.report;

import dev.jompd.report.OpenMpPicture.NotStarted;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.Task;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The tasks created and not started as text, for every door that prints tasks ({@code jompd inspect}, gdb's
 * {@code ompd tree} and {@code ompd tasks}): per thread deque and per predecessor a task waits for, the tasks of
 * one construct and one creator counted on one line, so that thousands of them stay a few lines.
 */
public final class NotStartedTasks {
    /** Ids listed on a line before the rest is counted only. */
    static final int IDS_SHOWN = 8;

    private NotStartedTasks() {}

    /** All of them, with a heading line; nothing when there are none. */
    public static List<String> lines(OpenMpPicture picture, String indent) {
        return lines(picture, indent, task -> true);
    }

    /**
     * Those of one thread: in its deque, created by a task of its chain, or waiting for one of its chain's tasks.
     */
    public static List<String> lines(OpenMpPicture picture, OpenMpThread thread, String indent) {
        List<String> chain = thread.taskIds();
        return lines(picture, indent, task -> task.queueGtid().isPresent() && task.queueGtid().getAsLong() == thread.gtid()
                || task.creatorId().filter(chain::contains).isPresent()
                || task.predecessorId().filter(chain::contains).isPresent());
    }

    private static List<String> lines(OpenMpPicture picture, String indent, Predicate<NotStarted> which) {
        List<NotStarted> tasks = picture.notStarted().stream().filter(which).toList();
        long notListed = picture.notStartedNotListed();
        if (tasks.isEmpty() && notListed == 0) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        out.add(indent + "tasks created and not started: " + tasks.size()
                + (notListed > 0 ? " listed, " + notListed + " more counted (jompd lists at most "
                + dev.jompd.core.ompd.RuntimeTaskQueues.MAX_TASKS + ")" : ""));
        // where they wait, in order: each deque, then each predecessor
        Map<String, List<NotStarted>> byPlace = new LinkedHashMap<>();
        for (NotStarted task : tasks) {
            byPlace.computeIfAbsent(place(picture, task), k -> new ArrayList<>()).add(task);
        }
        byPlace.forEach((place, here) -> {
            String count = here.getFirst().queued()
                    ? queuedCount(picture, here.getFirst().queueGtid().getAsLong(), here.size()) : Integer.toString(here.size());
            out.add(indent + "  " + place + ": " + count);
            Map<List<Object>, List<NotStarted>> alike = new LinkedHashMap<>();
            for (NotStarted task : here) {
                Task shown = picture.tasks().get(task.taskId());
                alike.computeIfAbsent(List.of(shown.function().map(f -> f.describe()).orElse("(code unknown)"),
                        creator(task), task.unmet()), k -> new ArrayList<>()).add(task);
            }
            alike.forEach((key, group) -> {
                StringBuilder line = new StringBuilder(indent).append("    ").append(group.size()).append("× ")
                        .append(picture.tasks().get(group.getFirst().taskId()).kind().words()).append(' ')
                        .append(ids(group.stream().map(NotStarted::taskId).toList()))
                        .append("  ").append(key.get(0)).append(", created by ").append(key.get(1));
                if (!group.getFirst().queued() && group.getFirst().unmet() >= 0) {
                    line.append(", ").append(group.getFirst().unmet()).append(group.getFirst().unmet() == 1
                            ? " dependence unmet" : " dependences unmet");
                }
                out.add(line.toString());
            });
        });
        return out;
    }

    private static String place(OpenMpPicture picture, NotStarted task) {
        if (task.queued()) {
            // the deque's thread by its number in the team whose task team holds it (which may be an enclosing team)
            return "ready in the deque of thread " + task.queueThreadNum() + " (gtid " + task.queueGtid().getAsLong() + ")";
        }
        return "waiting for their dependences on " + task.predecessorId().map(id -> picture.tasks().get(id).kind().words() + " " + id)
                .orElse("the task at " + Text.hex(task.predecessor()));
    }

    /** The count of a deque: the tasks listed, and libomp's own count when it holds more than were listed. */
    private static String queuedCount(OpenMpPicture picture, long gtid, int listed) {
        long held = picture.queuedByGtid().getOrDefault(gtid, (long) listed);
        return held == listed ? Integer.toString(listed) : listed + " listed of " + held + " it holds";
    }

    private static String creator(NotStarted task) {
        return task.creatorId().orElse(task.creator() == 0 ? "an unreadable task" : "the task at " + Text.hex(task.creator()));
    }

    /** {@code t4..t9}, or the first ids and how many more. */
    static String ids(List<String> ids) {
        List<Integer> numbers = ids.stream().map(id -> Integer.parseInt(id.substring(1))).toList();
        boolean consecutive = true;
        for (int i = 1; i < numbers.size(); i++) {
            consecutive &= numbers.get(i) == numbers.get(i - 1) + 1;
        }
        if (ids.size() == 1) {
            return ids.getFirst();
        }
        if (consecutive) {
            return ids.getFirst() + (ids.size() == 2 ? "," : "..") + ids.getLast();
        }
        String shown = String.join(",", ids.subList(0, Math.min(IDS_SHOWN, ids.size())));
        return ids.size() > IDS_SHOWN ? shown + " and " + (ids.size() - IDS_SHOWN) + " more" : shown;
    }

}
