package dev.jompd.core.ompd;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The libomp versions jompd supports, from the one list every test, script and message reads (the resource
 * {@code supported-runtimes} beside this class; its header says what each column means). Adding a libomp
 * version is adding a line there: docs/adding-a-libomp-version.md.
 */
public final class SupportedRuntimes {
    private static final String RESOURCE = "supported-runtimes";

    /**
     * One supported libomp.
     *
     * @param major    the LLVM major version ({@code 19})
     * @param upstream the exact upstream release our build and its runtime profile are made from ({@code 19.1.7})
     * @param source   what {@code apt-get source --tar-only} fetches
     * @param suite    the Debian suite whose deb-src serves the source
     * @param build    {@code openmp} (standalone CMake build) or {@code runtimes} (LLVM_ENABLE_RUNTIMES=openmp)
     * @param stock    Debian's stripped stock libomp of this major that runs here ({@code bookworm:libomp5-19}), if any
     * @param roles    {@code default} and/or {@code ci}
     */
    public record Runtime(int major, String upstream, String source, String suite, String build,
                          Optional<String> stock, Set<String> roles) {
        public boolean isDefault() {
            return roles.contains("default");
        }
    }

    private static final class Shipped {
        static final List<Runtime> ALL = parse(text());
    }

    private SupportedRuntimes() {}

    /** Every supported runtime, oldest first. */
    public static List<Runtime> all() {
        return Shipped.ALL;
    }

    /** The runtime jompd builds and runs programs on ({@code jompd run}), and tests use unless they ask for another. */
    public static Runtime defaultRuntime() {
        return all().stream().filter(Runtime::isDefault).findFirst()
                .orElseThrow(() -> new IllegalStateException(RESOURCE + " marks no runtime as default"));
    }

    /** The supported majors as people read them in a message: "libomp 14, 15, 16, 19, 21, 22 and 23". */
    public static String described() {
        List<String> majors = all().stream().map(runtime -> Integer.toString(runtime.major())).toList();
        return "libomp " + (majors.size() == 1 ? majors.getFirst()
                : String.join(", ", majors.subList(0, majors.size() - 1)) + " and " + majors.getLast());
    }

    /** Parses the list's text: one runtime a line, blank-separated columns, {@code #} comments. */
    public static List<Runtime> parse(String text) {
        List<Runtime> runtimes = new ArrayList<>();
        for (String raw : text.split("\n")) {
            String line = raw.replaceFirst("#.*", "").strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] columns = line.split("\\s+");
            if (columns.length != 7) {
                throw new IllegalArgumentException(RESOURCE + ": 7 columns expected, not " + columns.length + ": " + raw);
            }
            if (!columns[4].equals("openmp") && !columns[4].equals("runtimes")) {
                throw new IllegalArgumentException(RESOURCE + ": build is openmp or runtimes, not " + columns[4]);
            }
            runtimes.add(new Runtime(Integer.parseInt(columns[0]), columns[1], columns[2], columns[3], columns[4],
                    columns[5].equals("-") ? Optional.empty() : Optional.of(columns[5]),
                    columns[6].equals("-") ? Set.of() : Set.of(columns[6].split(","))));
        }
        if (runtimes.stream().filter(Runtime::isDefault).count() != 1) {
            throw new IllegalArgumentException(RESOURCE + ": exactly one runtime must be the default");
        }
        return List.copyOf(runtimes);
    }

    private static String text() {
        try (InputStream in = SupportedRuntimes.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("no " + RESOURCE + " resource beside " + SupportedRuntimes.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
