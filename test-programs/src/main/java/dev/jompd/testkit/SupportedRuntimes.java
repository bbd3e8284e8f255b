package dev.jompd.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * The runtimes tests run on, from jompd's one list of supported libomp versions (ompd-core's resource
 * {@code dev/jompd/core/ompd/supported-runtimes}). Every test parameterised by runtime takes its versions
 * from here, e.g. {@code @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")}.
 *
 * <p>Which of them a run tests is {@code $JOMPD_RUNTIMES}: unset or {@code ci}, the lines marked {@code ci}
 * (the oldest and the newest) and the default; {@code all}, every line (scripts/test-all-runtimes.sh); or
 * majors separated by commas or blanks ({@code 21,22}).
 */
public final class SupportedRuntimes {
    /** Where the list is, on the class path of every module that depends on ompd-core, and in the repository. */
    static final String RESOURCE = "dev/jompd/core/ompd/supported-runtimes";

    /** One line of the list (columns as its header describes them). */
    public record Runtime(int major, String upstream, String stock, List<String> roles) {
        public boolean hasStockBuild() {
            return !stock.equals("-");
        }
    }

    private SupportedRuntimes() {}

    /** Every supported runtime, oldest first. */
    public static List<Runtime> all() {
        return Holder.ALL;
    }

    /** The majors this run tests, oldest first. */
    public static Stream<Integer> tested() {
        return selected().stream().map(Runtime::major);
    }

    /** The tested majors whose Debian stock (stripped) build runs on this machine (scripts/stock-runtimes.sh). */
    public static Stream<Integer> testedWithStockBuild() {
        return selected().stream().filter(Runtime::hasStockBuild).map(Runtime::major);
    }

    /** The tested majors whose LLVM build ships the reference gdb plugin and OMPD test suite (from 16 on). */
    public static Stream<Integer> testedWithReferencePlugin() {
        return tested().filter(major -> major >= 16);
    }

    /** The runtime tests use unless they ask for another. */
    public static int defaultMajor() {
        return all().stream().filter(runtime -> runtime.roles().contains("default")).findFirst()
                .orElseThrow(() -> new IllegalStateException(RESOURCE + " marks no runtime as default")).major();
    }

    /** The exact upstream release of {@code major} ("19.1.7"). */
    public static String upstream(int major) {
        return all().stream().filter(runtime -> runtime.major() == major).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("libomp " + major + " is not in " + RESOURCE)).upstream();
    }

    static List<Runtime> selected() {
        String wanted = System.getenv().getOrDefault("JOMPD_RUNTIMES", "ci").strip();
        if (wanted.isEmpty() || wanted.equals("ci")) {
            return all().stream().filter(r -> r.roles().contains("ci") || r.roles().contains("default")).toList();
        }
        if (wanted.equals("all")) {
            return all();
        }
        List<Integer> majors = Arrays.stream(wanted.split("[,\\s]+")).map(Integer::parseInt).toList();
        for (int major : majors) {
            upstream(major);
        }
        return all().stream().filter(runtime -> majors.contains(runtime.major())).toList();
    }

    private static final class Holder {
        static final List<Runtime> ALL = parse(text());
    }

    static List<Runtime> parse(String text) {
        List<Runtime> runtimes = new ArrayList<>();
        for (String raw : text.split("\n")) {
            String line = raw.replaceFirst("#.*", "").strip();
            if (!line.isEmpty()) {
                String[] columns = line.split("\\s+");
                runtimes.add(new Runtime(Integer.parseInt(columns[0]), columns[1], columns[5],
                        List.of(columns[6].split(","))));
            }
        }
        return List.copyOf(runtimes);
    }

    private static String text() {
        try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(RESOURCE)) {
            if (in != null) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            // test-programs' own tests do not see ompd-core's class path: read the repository's file
            return Files.readString(Runtimes.repositoryRoot().resolve("ompd-core/src/main/resources").resolve(RESOURCE));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
