package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The shape every layout data file of libomp's undescribed structs shares ({@code libomp-locks.layout},
 * {@code libomp-tasks.layout}): java.util.Properties text with {@code versions} (the libomp versions it was
 * checked against) and {@code field.TYPE.MEMBER = OFFSET SIZE} lines, shipped as a resource of this package.
 */
final class LayoutData {
    private static final String FIELD = "field.";
    private static final String GROUP = "group.";
    private static final String VERSIONS = ".versions";

    private final Properties properties;

    private LayoutData(Properties properties) {
        this.properties = properties;
    }

    /** The text of a layout file shipped beside this class. */
    static String shipped(String resource) {
        try (InputStream in = LayoutData.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static LayoutData parse(String text) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new LayoutData(properties);
    }

    /** Every key, sorted (for the prefixed groups a layout reads besides its fields). */
    List<String> keys() {
        return properties.stringPropertyNames().stream().sorted().toList();
    }

    /** A value, stripped; a missing key is a malformed file. */
    String value(String key) {
        String value = properties.getProperty(key);
        if (value == null) {
            throw new IllegalArgumentException("layout data without " + key);
        }
        return value.strip();
    }

    /** The {@code field.TYPE.MEMBER = OFFSET SIZE} lines, by {@code TYPE.MEMBER}. */
    Map<String, Member> members() {
        return membersUnder("");
    }

    private Map<String, Member> membersUnder(String prefix) {
        Map<String, Member> members = new LinkedHashMap<>();
        for (String key : keys()) {
            if (key.startsWith(prefix + FIELD)) {
                String[] parts = value(key).split("\\s+");
                members.put(key.substring((prefix + FIELD).length()),
                        new Member(Long.parseLong(parts[0]), Integer.parseInt(parts[1])));
            }
        }
        return Map.copyOf(members);
    }

    /**
     * One group of a layout whose members move between libomp versions ({@code group.NAME.*} lines): the
     * versions it was checked against, the breadcrumbed members whose offsets select it, its members, and its
     * other lines ({@code group.NAME.KEY}, by KEY).
     */
    record Group(String name, List<String> versions, Map<String, Long> where, Map<String, Member> members,
                 Map<String, String> values) {}

    /** The {@code group.NAME.*} lines, one group per {@code group.NAME.versions}, in key order; {@code what} names the file. */
    List<Group> groups(String what) {
        List<Group> groups = new ArrayList<>();
        for (String key : keys()) {
            if (!key.startsWith(GROUP) || !key.endsWith(VERSIONS)) {
                continue;
            }
            String name = key.substring(GROUP.length(), key.length() - VERSIONS.length());
            String prefix = GROUP + name + ".";
            Map<String, Long> where = new LinkedHashMap<>();
            for (String condition : value(prefix + "where").split("\\s+")) {
                int equals = condition.indexOf('=');
                if (equals < 0) {
                    throw new IllegalArgumentException(what + " group " + name + ": where condition \""
                            + condition + "\" is not TYPE.MEMBER=OFFSET");
                }
                where.put(condition.substring(0, equals), Long.parseLong(condition.substring(equals + 1)));
            }
            Map<String, Member> members = membersUnder(prefix);
            if (where.isEmpty() || members.isEmpty()) {
                throw new IllegalArgumentException(what + " group " + name + " without where or fields");
            }
            Map<String, String> values = new LinkedHashMap<>();
            for (String other : keys()) {
                if (other.startsWith(prefix) && !other.startsWith(prefix + FIELD)) {
                    values.put(other.substring(prefix.length()), value(other));
                }
            }
            groups.add(new Group(name, List.of(value(prefix + "versions").split("\\s+")), Map.copyOf(where), members,
                    Map.copyOf(values)));
        }
        if (groups.isEmpty()) {
            throw new IllegalArgumentException(what + " without groups");
        }
        return List.copyOf(groups);
    }

    /**
     * Why a group's breadcrumbed members do not sit where this runtime's breadcrumbs place them ("TYPE.MEMBER at 8,
     * not 16"), or empty when every one does: the group is this runtime's layout.
     */
    static Optional<String> misfit(Map<String, Long> where, RuntimeLayout layout) {
        for (Map.Entry<String, Long> condition : where.entrySet()) {
            String typeDotField = condition.getKey();
            int dot = typeDotField.indexOf('.');
            String type = typeDotField.substring(0, dot);
            String field = typeDotField.substring(dot + 1);
            if (!layout.hasField(type, field)) {
                return Optional.of(typeDotField + " has no breadcrumb");
            }
            long offset = layout.offset(type, field);
            if (offset != condition.getValue()) {
                return Optional.of(typeDotField + " at " + offset + ", not " + condition.getValue());
            }
        }
        return Optional.empty();
    }
}
