package dev.jompd.core.ompd;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * How libomp lays out its user locks and critical sections (kmp_lock.h): lock tags, the indirect lock
 * table, and each lock kind's members. No OMPD breadcrumb describes them, so they are data — the resource
 * {@code libomp-locks.layout}, the same for every libomp version it lists, each checked against that
 * version's DWARF by LockLayoutIT — and every read through them is checked by the lock's own content
 * ({@link RuntimeLocks}).
 */
public record LockLayout(List<String> versions, int shift, Map<String, Integer> directTags,
                         Map<String, Integer> indirectTags, int chunk, int criticalSectionFlag,
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
        static final LockLayout LAYOUT = load();

        private static LockLayout load() {
            try (InputStream in = LockLayout.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException(RESOURCE + " missing from the jar");
                }
                return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Parses the layout file's text (java.util.Properties). */
    public static LockLayout parse(String text) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Integer> direct = new LinkedHashMap<>();
        Map<String, Integer> indirect = new LinkedHashMap<>();
        Map<String, Member> members = new LinkedHashMap<>();
        Member nextWaiting = null;
        String anchor = null;
        for (String key : properties.stringPropertyNames().stream().sorted().toList()) {
            String value = properties.getProperty(key).strip();
            if (key.startsWith("direct.")) {
                direct.put(key.substring("direct.".length()), Integer.parseInt(value));
            } else if (key.startsWith("indirect.")) {
                indirect.put(key.substring("indirect.".length()), Integer.parseInt(value));
            } else if (key.startsWith("field.")) {
                String[] parts = value.split("\\s+");
                members.put(key.substring("field.".length()), new Member(Long.parseLong(parts[0]), Integer.parseInt(parts[1])));
            } else if (key.equals("after.kmp_base_info_t.th_next_waiting")) {
                String[] parts = value.split("\\s+");
                anchor = parts[0];
                nextWaiting = new Member(Long.parseLong(parts[1]), Integer.parseInt(parts[2]));
            }
        }
        if (nextWaiting == null) {
            throw new IllegalArgumentException("lock layout without th_next_waiting");
        }
        return new LockLayout(Arrays.asList(properties.getProperty("versions", "").strip().split("\\s+")),
                Integer.parseInt(properties.getProperty("lock.shift")), Map.copyOf(direct), Map.copyOf(indirect),
                Integer.parseInt(properties.getProperty("table.chunk")),
                Integer.parseInt(properties.getProperty("flag.critical_section")), Map.copyOf(members),
                Long.parseLong(properties.getProperty("size.kmp_indirect_lock_t")), nextWaiting, anchor);
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
    public Optional<String> directKind(int tag) {
        return directTags.entrySet().stream().filter(e -> e.getValue() == tag).map(Map.Entry::getKey).findFirst();
    }

    /** The indirect lock kind a tag names ({@code nested_queuing}), if any. */
    public Optional<String> indirectKind(int tag) {
        return indirectTags.entrySet().stream().filter(e -> e.getValue() == tag).map(Map.Entry::getKey).findFirst();
    }
}
