package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where libomp keeps the tasks it has created and not started (kmp.h: {@code kmp_base_info_t.th_task_team},
 * {@code kmp_base_task_team_t.tt_threads_data} and {@code tt_nproc}, each {@code kmp_thread_data_t}'s deque, and
 * {@code kmp_depnode_t}'s successors). No OMPD breadcrumb describes them and {@code kmp_base_task_team_t} moved
 * between versions, so they are data — the resource {@code libomp-task-queues.layout}, one group per task-team
 * layout, each checked against the DWARF of the versions it names by TaskQueueLayoutIT — and the group a process
 * uses is the one whose reading names the team's own threads ({@link RuntimeTaskQueues}), never a version
 * guessed from a file name.
 *
 * @param members         members the same in every version ({@code TYPE.MEMBER}, member paths as kmp.h nests them)
 * @param groups          the task-team layouts, in file order
 * @param taskTeamBefore  how many bytes {@code th_task_team} lies before {@code th_current_task} (which has a breadcrumb)
 * @param threadDataSize  {@code sizeof(kmp_thread_data_t)}: the stride of {@code tt_threads_data}
 */
public record TaskQueueLayout(Map<String, Member> members, List<Group> groups, long taskTeamBefore,
                              long threadDataSize) {
    private static final String RESOURCE = "libomp-task-queues.layout";
    private static final String GROUP = "group.";

    /** One layout of {@code kmp_base_task_team_t}'s members. */
    public record Group(String name, List<String> versions, Map<String, Member> members) {
        public Member member(String type, String field) {
            Member member = members.get(type + "." + field);
            if (member == null) {
                throw new IllegalArgumentException("task queue layout group " + name + " has no " + type + "." + field);
            }
            return member;
        }
    }

    /** The layout shipped in this jar. */
    public static TaskQueueLayout shipped() {
        return Shipped.LAYOUT;
    }

    private static final class Shipped {
        static final TaskQueueLayout LAYOUT = parse(LayoutData.shipped(RESOURCE));
    }

    /** Parses the layout file's text (java.util.Properties). */
    public static TaskQueueLayout parse(String text) {
        LayoutData data = LayoutData.parse(text);
        String[] before = data.value("before.kmp_base_info_t.th_task_team").split("\\s+");
        if (!before[0].equals("th_current_task") || Integer.parseInt(before[2]) != 8) {
            throw new IllegalArgumentException("task queue layout: th_task_team is placed against " + before[0]
                    + ", not th_current_task, or is no pointer");
        }
        List<Group> groups = new ArrayList<>();
        for (String key : data.keys()) {
            if (!key.startsWith(GROUP) || !key.endsWith(".versions")) {
                continue;
            }
            String name = key.substring(GROUP.length(), key.length() - ".versions".length());
            String prefix = GROUP + name + ".field.";
            Map<String, Member> members = new LinkedHashMap<>();
            for (String field : data.keys()) {
                if (field.startsWith(prefix)) {
                    String[] parts = data.value(field).split("\\s+");
                    members.put(field.substring(prefix.length()), new Member(Long.parseLong(parts[0]), Integer.parseInt(parts[1])));
                }
            }
            if (!members.containsKey("kmp_base_task_team_t.tt_threads_data") || !members.containsKey("kmp_base_task_team_t.tt_nproc")) {
                throw new IllegalArgumentException("task queue layout group " + name + " without tt_threads_data or tt_nproc");
            }
            groups.add(new Group(name, List.of(data.value(key).split("\\s+")), Map.copyOf(members)));
        }
        if (groups.isEmpty()) {
            throw new IllegalArgumentException("task queue layout without groups");
        }
        return new TaskQueueLayout(data.members(), List.copyOf(groups), Long.parseLong(before[1]),
                Long.parseLong(data.value("size.kmp_thread_data_t")));
    }

    /** A member the same in every version, by {@code type.field} as kmp.h names it. */
    public Member member(String type, String field) {
        Member member = members.get(type + "." + field);
        if (member == null) {
            throw new IllegalArgumentException("task queue layout has no " + type + "." + field);
        }
        return member;
    }
}
