package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Where libomp counts the tasks a taskwait or the end of a taskgroup waits for (kmp.h:
 * {@code kmp_taskdata_t.td_incomplete_child_tasks}, {@code td_taskgroup}, {@code kmp_taskgroup_t.count}).
 * No OMPD breadcrumb describes them, so they are data — the resource {@code libomp-tasks.layout}, the same
 * for every libomp version it lists, each checked against that version's DWARF by TaskLayoutIT — and every
 * value read through them is checked by its content ({@link RuntimeTasks}).
 */
public record TaskLayout(List<String> versions, Map<String, Member> members, int cancelMax, long proxyTaskFlag) {
    private static final String RESOURCE = "libomp-tasks.layout";

    /** The layout shipped in this jar. */
    public static TaskLayout shipped() {
        return Shipped.LAYOUT;
    }

    private static final class Shipped {
        static final TaskLayout LAYOUT = load();

        private static TaskLayout load() {
            try (InputStream in = TaskLayout.class.getResourceAsStream(RESOURCE)) {
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
    public static TaskLayout parse(String text) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Member> members = new LinkedHashMap<>();
        for (String key : properties.stringPropertyNames().stream().sorted().toList()) {
            if (key.startsWith("field.")) {
                String[] parts = properties.getProperty(key).strip().split("\\s+");
                members.put(key.substring("field.".length()), new Member(Long.parseLong(parts[0]), Integer.parseInt(parts[1])));
            }
        }
        return new TaskLayout(Arrays.asList(properties.getProperty("versions", "").strip().split("\\s+")),
                Map.copyOf(members), Integer.parseInt(properties.getProperty("cancel.max").strip()),
                Long.decode(properties.getProperty("flag.proxy_task").strip()));
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
