package dev.jompd.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Locates (and, on first use, builds) an OMPD-enabled libomp in the cache directory through the
 * repository's {@code scripts/build-runtime.sh}.
 */
public final class Runtimes {
    /** The LLVM version tests run against unless they ask for another: the default of the supported-runtimes list. */
    public static final int DEFAULT_VERSION = SupportedRuntimes.defaultMajor();

    private static final Map<Integer, Path> PREFIXES = new ConcurrentHashMap<>();

    private Runtimes() {}

    /** The cache directory runtimes and fixtures live in ({@code $JOMPD_CACHE} or ~/.cache/jompd). */
    public static Path cacheDirectory() {
        String configured = System.getenv("JOMPD_CACHE");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("jompd");
    }

    /** The install prefix of libomp {@code version}, building it when it is not there yet. */
    public static Path prefix(int version) {
        return PREFIXES.computeIfAbsent(version, Runtimes::locateOrBuild);
    }

    public static Path prefix() {
        return prefix(DEFAULT_VERSION);
    }

    /** The directory holding libomp.so and libompd.so. */
    public static Path libraryDirectory(int version) {
        return prefix(version).resolve("lib");
    }

    /** LLVM's reference gdb plugin directory ({@code share/gdb/python}); absent in LLVM 14. */
    /**
     * A directory where {@code libgomp.so.1} and {@code libomp.so.5} link to the OMPD-enabled libomp
     * {@code version}: on {@code LD_LIBRARY_PATH} it runs a gcc-built fixture on libomp, as {@code jompd run}
     * does (the tests of jompd run itself use its own directory, from ompd-core's OpenMpLaunch).
     */
    public static synchronized Path gompAliasDirectory(int version) {
        Path directory = cacheDirectory().resolve("fixtures").resolve("gomp-aliases-llvm-" + version);
        Path libomp = libraryDirectory(version).resolve("libomp.so");
        try {
            Files.createDirectories(directory);
            for (String alias : List.of("libgomp.so.1", "libomp.so.5")) {
                Path link = directory.resolve(alias);
                if (!Files.isSymbolicLink(link)) {
                    Files.deleteIfExists(link);
                    Files.createSymbolicLink(link, libomp);
                }
            }
            return directory;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot make " + directory, e);
        }
    }

    public static Path referenceGdbPluginDirectory(int version) {
        return prefix(version).resolve("share/gdb/python");
    }

    private static synchronized Path locateOrBuild(int version) {
        Path prefix = cacheDirectory().resolve("llvm-" + version);
        if (Files.isRegularFile(prefix.resolve(".jompd-complete"))) {
            return prefix;
        }
        Path script = repositoryRoot().resolve("scripts/build-runtime.sh");
        try {
            Commands.Result result = Commands.run(List.of("bash", script.toString(), Integer.toString(version)),
                    Map.of("JOMPD_CACHE", cacheDirectory().toString()), null, java.time.Duration.ofMinutes(15));
            if (result.exitCode() != 0 || !Files.isRegularFile(prefix.resolve(".jompd-complete"))) {
                throw new IllegalStateException("building libomp " + version + " failed:\n" + result.output());
            }
            return prefix;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + script, e);
        }
    }

    /** The repository's root: the nearest directory above the working directory holding scripts/. */
    public static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("scripts/build-runtime.sh"))) {
                return dir;
            }
        }
        throw new IllegalStateException("cannot find the jompd repository (scripts/build-runtime.sh) above "
                + Path.of("").toAbsolutePath());
    }
}
