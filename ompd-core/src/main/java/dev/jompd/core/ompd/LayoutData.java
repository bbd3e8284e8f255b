package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The shape every layout data file of libomp's undescribed structs shares ({@code libomp-locks.layout},
 * {@code libomp-tasks.layout}): java.util.Properties text with {@code versions} (the libomp versions it was
 * checked against) and {@code field.TYPE.MEMBER = OFFSET SIZE} lines, shipped as a resource of this package.
 */
final class LayoutData {
    private static final String FIELD = "field.";

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
        Map<String, Member> members = new LinkedHashMap<>();
        for (String key : keys()) {
            if (key.startsWith(FIELD)) {
                String[] parts = value(key).split("\\s+");
                members.put(key.substring(FIELD.length()), new Member(Long.parseLong(parts[0]), Integer.parseInt(parts[1])));
            }
        }
        return Map.copyOf(members);
    }
}
