package dev.jompd.core.ompd.profile;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Where the globals jompd reads sit in a stripped libomp of one upstream version: data derived from our
 * own build of that version by {@link ProfileDeriver}, shipped as a resource ({@code libomp-VERSION.profile}).
 * <ul>
 * <li>The <b>breadcrumb block</b>: the OMPD breadcrumbs ({@code ompd_access__*}, {@code ompd_sizeof__*},
 *     {@code ompd_bitfield__*}) that {@code ompd_init()} writes at start-up into one run of writable memory;
 *     each with its offset from the block's start and the value our build holds. The block is found in a
 *     target by these values, all of them, so finding it also validates it.</li>
 * <li><b>Placements</b> of the other globals: candidate anchors (an exported {@code .dynsym} symbol of the
 *     same section, or {@value #BREADCRUMB_ANCHOR} for the breadcrumbs' own translation unit) with the
 *     offset our build has from each, nearest first. A derived address is only a candidate: it is used
 *     once its content passes the global's check.</li>
 * </ul>
 * File format (java.util.Properties): {@code version=19.1.7}, {@code breadcrumb.NAME=OFFSET VALUE},
 * {@code global.NAME=ANCHOR:OFFSET,ANCHOR:OFFSET...} (offsets decimal, signed),
 * {@code signature.NAME=SECTION GLOBAL_OFFSET HEX} ({@code ..} for an open byte).
 */
public record RuntimeProfile(String version, List<Breadcrumb> breadcrumbs, Map<String, List<Placement>> globals,
                             Map<String, FileSignature> signatures) {
    /** The pseudo-anchor naming the start of the breadcrumb block. */
    public static final String BREADCRUMB_ANCHOR = "@breadcrumbs";
    /** The pseudo-anchor naming where the global's {@link FileSignature} is found in the stripped file. */
    public static final String FILE_SIGNATURE_ANCHOR = "@file";

    /** What a placement's anchor names. */
    public enum AnchorKind {
        /** The start of the breadcrumb block ({@value #BREADCRUMB_ANCHOR}), found and validated by its values. */
        BREADCRUMB_BLOCK,
        /** Where the global's {@link FileSignature} is found, once, in the stripped file ({@value #FILE_SIGNATURE_ANCHOR}). */
        FILE_SIGNATURE,
        /** Another global of this profile, itself placed and validated first. */
        PROFILED_GLOBAL,
        /** A symbol the stripped file still exports: its distance may differ in another build. */
        EXPORTED_SYMBOL;

        /**
         * Whether the anchor places by the runtime's own structure (the block, the file, a validated global),
         * so a place that passes the content check is believed without a second anchor agreeing.
         */
        public boolean structural() {
            return this != EXPORTED_SYMBOL;
        }
    }

    /** What {@code placement}'s anchor names in this profile. */
    public AnchorKind anchorKind(Placement placement) {
        return switch (placement.anchor()) {
            case BREADCRUMB_ANCHOR -> AnchorKind.BREADCRUMB_BLOCK;
            case FILE_SIGNATURE_ANCHOR -> AnchorKind.FILE_SIGNATURE;
            default -> globals.containsKey(placement.anchor()) ? AnchorKind.PROFILED_GLOBAL : AnchorKind.EXPORTED_SYMBOL;
        };
    }

    /**
     * The bytes our build's file holds around an initialised global ({@code .data}, {@code .rodata}), with
     * pointer-like words left open ({@code null}): found once, and only once, in the same section of a
     * stripped file, they place the global there.
     *
     * @param section        the section name
     * @param globalOffset   where the global starts within the pattern
     * @param pattern        the bytes, {@code -1} for a byte that may hold anything
     */
    public record FileSignature(String section, int globalOffset, int[] pattern) {
        @Override
        public boolean equals(Object other) {
            return other instanceof FileSignature that && section.equals(that.section) && globalOffset == that.globalOffset
                    && java.util.Arrays.equals(pattern, that.pattern);
        }

        @Override
        public int hashCode() {
            return section.hashCode() * 31 + globalOffset * 17 + java.util.Arrays.hashCode(pattern);
        }

        String format() {
            StringBuilder hex = new StringBuilder();
            for (int b : pattern) {
                hex.append(b < 0 ? ".." : "%02x".formatted(b));
            }
            return section + " " + globalOffset + " " + hex;
        }

        static FileSignature parse(String text) {
            String[] parts = text.strip().split("\\s+");
            if (parts.length != 3 || parts[2].length() % 2 != 0) {
                throw new IllegalArgumentException("a file signature is SECTION OFFSET HEX, not '" + text.strip() + "'");
            }
            String hex = parts[2];
            int[] pattern = new int[hex.length() / 2];
            for (int i = 0; i < pattern.length; i++) {
                String pair = hex.substring(2 * i, 2 * i + 2);
                pattern[i] = pair.equals("..") ? -1 : Integer.parseInt(pair, 16);
            }
            return new FileSignature(parts[0], Integer.parseInt(parts[1]), pattern);
        }
    }
    private static final String INDEX = "profiles.list";

    /** One breadcrumb: its name, offset from the block's start, and the value our build of the version holds. */
    public record Breadcrumb(String name, long offset, long value) {}

    /** A global's address as {@code anchor + offset}. */
    public record Placement(String anchor, long offset) {
        @Override
        public String toString() {
            return anchor + (offset < 0 ? "-0x" + Long.toHexString(-offset) : "+0x" + Long.toHexString(offset));
        }
    }

    public RuntimeProfile {
        breadcrumbs = breadcrumbs.stream().sorted(Comparator.comparingLong(Breadcrumb::offset)).toList();
        globals = Collections.unmodifiableMap(new LinkedHashMap<>(globals));
        signatures = Collections.unmodifiableMap(new LinkedHashMap<>(signatures));
    }

    /** The upstream major version ("19" of "19.1.7"). */
    public String majorVersion() {
        int dot = version.indexOf('.');
        return dot < 0 ? version : version.substring(0, dot);
    }

    /** The profiles shipped in this jar, newest version first. */
    public static List<RuntimeProfile> shipped() {
        return Shipped.PROFILES;
    }

    private static final class Shipped {
        static final List<RuntimeProfile> PROFILES = load();

        private static List<RuntimeProfile> load() {
            List<RuntimeProfile> profiles = new ArrayList<>();
            String index = resource(INDEX);
            for (String line : index.split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    profiles.add(parse(resource(line.strip())));
                }
            }
            profiles.sort(Comparator.comparing(RuntimeProfile::version, RuntimeProfile::compareVersions).reversed());
            return List.copyOf(profiles);
        }

        private static String resource(String name) {
            try (InputStream in = RuntimeProfile.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("runtime profile resource " + name + " missing from the jar");
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Parses a profile file's text. */
    public static RuntimeProfile parse(String text) {
        Properties properties = new Properties();
        try (Reader reader = new StringReader(text)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String version = properties.getProperty("version");
        if (version == null || version.isBlank()) {
            throw new IllegalArgumentException("runtime profile without version");
        }
        List<Breadcrumb> breadcrumbs = new ArrayList<>();
        Map<String, List<Placement>> globals = new LinkedHashMap<>();
        Map<String, FileSignature> signatures = new LinkedHashMap<>();
        for (String key : properties.stringPropertyNames().stream().sorted().toList()) {
            String value = properties.getProperty(key).strip();
            if (key.startsWith("breadcrumb.")) {
                String[] parts = value.split("\\s+");
                if (parts.length != 2) {
                    throw new IllegalArgumentException("runtime profile " + version + ": " + key + " is OFFSET VALUE, not '" + value + "'");
                }
                breadcrumbs.add(new Breadcrumb(key.substring("breadcrumb.".length()), Long.parseLong(parts[0]),
                        Long.parseLong(parts[1])));
            } else if (key.startsWith("signature.")) {
                signatures.put(key.substring("signature.".length()), FileSignature.parse(value));
            } else if (key.startsWith("global.")) {
                List<Placement> placements = new ArrayList<>();
                for (String candidate : value.split(",")) {
                    int colon = candidate.lastIndexOf(':');
                    if (colon < 0) {
                        throw new IllegalArgumentException("runtime profile " + version + ": " + key
                                + " lists ANCHOR:OFFSET, not '" + candidate.strip() + "'");
                    }
                    placements.add(new Placement(candidate.substring(0, colon).strip(),
                            Long.parseLong(candidate.substring(colon + 1).strip())));
                }
                globals.put(key.substring("global.".length()), List.copyOf(placements));
            }
        }
        if (breadcrumbs.isEmpty()) {
            throw new IllegalArgumentException("runtime profile " + version + " lists no breadcrumbs");
        }
        return new RuntimeProfile(version, breadcrumbs, globals, signatures);
    }

    /** The profile as its file's text (what {@link #parse} reads). */
    public String format() {
        StringBuilder text = new StringBuilder();
        text.append("# jompd runtime profile: derived by ProfileDeriver from our own build of libomp ")
                .append(version).append("; data, not code\n");
        text.append("version=").append(version).append('\n');
        for (Breadcrumb breadcrumb : breadcrumbs) {
            text.append("breadcrumb.").append(breadcrumb.name()).append('=').append(breadcrumb.offset()).append(' ')
                    .append(breadcrumb.value()).append('\n');
        }
        globals.forEach((name, placements) -> text.append("global.").append(name).append('=')
                .append(String.join(",", placements.stream().map(p -> p.anchor() + ":" + p.offset()).toList()))
                .append('\n'));
        signatures.forEach((name, signature) -> text.append("signature.").append(name).append('=')
                .append(signature.format()).append('\n'));
        return text.toString();
    }

    static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int difference = Integer.compare(i < x.length ? Integer.parseInt(x[i]) : 0, i < y.length ? Integer.parseInt(y[i]) : 0);
            if (difference != 0) {
                return difference;
            }
        }
        return 0;
    }
}
