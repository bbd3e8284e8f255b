package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.util.Map;

/**
 * Where libomp counts the tasks a taskwait or the end of a taskgroup waits for (kmp.h:
 * {@code kmp_taskdata_t.td_incomplete_child_tasks}, {@code td_taskgroup}, {@code kmp_taskgroup_t.count}).
 * No OMPD breadcrumb describes them, so they are data — the resource {@code libomp-tasks.layout}, the same
 * for every supported libomp ({@link SupportedRuntimes}), each checked against that version's DWARF by TaskLayoutIT — and every
 * value read through them is checked by its content ({@link RuntimeTasks}).
 */
public record TaskLayout(Map<String, Member> members, int cancelMax, long proxyTaskFlag) {
    private static final String RESOURCE = "libomp-tasks.layout";

    /** The layout shipped in this jar. */
    public static TaskLayout shipped() {
        return Shipped.LAYOUT;
    }

    private static final class Shipped {
        static final TaskLayout LAYOUT = parse(LayoutData.shipped(RESOURCE));
    }

    /** Parses the layout file's text (java.util.Properties). */
    public static TaskLayout parse(String text) {
        LayoutData data = LayoutData.parse(text);
        return new TaskLayout(data.members(), Integer.parseInt(data.value("cancel.max")),
                Long.decode(data.value("flag.proxy_task")));
    }

    /** A member, by {@code type.field} as kmp.h names it. */
    public Member member(String type, String field) {
        Member member = members.get(type + "." + field);
        if (member == null) {
            throw new IllegalArgumentException("task layout has no " + type + "." + field);
        }
        return member;
    }
}
