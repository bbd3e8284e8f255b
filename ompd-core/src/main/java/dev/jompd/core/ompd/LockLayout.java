package dev.jompd.core.ompd;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How libomp lays out its user locks and critical sections (kmp_lock.h): lock tags, the indirect lock
 * table, and each lock kind's members. No OMPD breadcrumb describes them, so they are data — the resource
 * {@code libomp-locks.layout}, the same for every supported libomp ({@link SupportedRuntimes}), each checked against that
 * version's DWARF by LockLayoutIT — and every read through them is checked by the lock's own content
 * ({@link RuntimeLocks}).
 */
public record LockLayout(int shift, Map<LockKind, Integer> directTags,
                         Map<LockKind, Integer> indirectTags, int chunk, int criticalSectionFlag,
                         Map<String, Member> members, long indirectLockSize, Member nextWaiting,
                         String nextWaitingAnchor) {
    /** A struct member: offset and size in bytes. */
    public record Member(long offset, int size) {}

    private static final String RESOURCE = "libomp-locks.layout";

    /** The layout shipped in this jar. */
    public static LockLayout shipped() {
        return Shipped.LAYOUT;
    }

    private static final class Shipped {
        static final LockLayout LAYOUT = parse(LayoutData.shipped(RESOURCE));
    }

    /** Parses the layout file's text (java.util.Properties). */
    public static LockLayout parse(String text) {
        LayoutData data = LayoutData.parse(text);
        Map<LockKind, Integer> direct = new LinkedHashMap<>();
        Map<LockKind, Integer> indirect = new LinkedHashMap<>();
        Member nextWaiting = null;
        String anchor = null;
        for (String key : data.keys()) {
            if (key.startsWith("direct.")) {
                direct.put(kind(key.substring("direct.".length())), Integer.parseInt(data.value(key)));
            } else if (key.startsWith("indirect.")) {
                indirect.put(kind(key.substring("indirect.".length())), Integer.parseInt(data.value(key)));
            } else if (key.equals("after.kmp_base_info_t.th_next_waiting")) {
                String[] parts = data.value(key).split("\\s+");
                anchor = parts[0];
                nextWaiting = new Member(Long.parseLong(parts[1]), Integer.parseInt(parts[2]));
            }
        }
        if (nextWaiting == null) {
            throw new IllegalArgumentException("lock layout without th_next_waiting");
        }
        return new LockLayout(Integer.parseInt(data.value("lock.shift")), Map.copyOf(direct),
                Map.copyOf(indirect), Integer.parseInt(data.value("table.chunk")),
                Integer.parseInt(data.value("flag.critical_section")), data.members(),
                Long.parseLong(data.value("size.kmp_indirect_lock_t")), nextWaiting, anchor);
    }

    private static LockKind kind(String name) {
        return LockKind.named(name).orElseThrow(() -> new IllegalArgumentException("lock layout names lock kind \""
                + name + "\", which LockKind does not know how to decode: add it there"));
    }

    /** A member, by {@code type.field} as kmp_lock.h names it. */
    public Member member(String type, String field) {
        Member member = members.get(type + "." + field);
        if (member == null) {
            throw new IllegalArgumentException("lock layout has no " + type + "." + field);
        }
        return member;
    }

    /** The direct lock kind a tag names ({@code tas}), if any. */
    public Optional<LockKind> directKind(int tag) {
        return directTags.entrySet().stream().filter(e -> e.getValue() == tag).map(Map.Entry::getKey).findFirst();
    }

    /** The indirect lock kind a tag names ({@code nested_queuing}), if any. */
    public Optional<LockKind> indirectKind(int tag) {
        return indirectTags.entrySet().stream().filter(e -> e.getValue() == tag).map(Map.Entry::getKey).findFirst();
    }
}
