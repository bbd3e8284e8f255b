package dev.jompd.core.launch;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.ompd.SupportedRuntimes;
import dev.jompd.core.target.TargetException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * How jompd starts a program on its own OMPD-enabled libomp. libomp implements GCC's GOMP ABI, so a
 * gcc/gfortran-built program runs on it unchanged when the dynamic linker finds libomp under the name
 * {@code libgomp.so.1}; a clang-built one finds it as {@code libomp.so.5}. {@code OMP_DEBUG=enabled}
 * makes libomp keep the state OMPD reads.
 */
public final class OpenMpLaunch {
    /** The LLVM version of the runtime jompd builds and runs programs on: the default of the supported-runtimes list. */
    public static final int RUNTIME_VERSION = SupportedRuntimes.defaultRuntime().major();
    /** The names programs load an OpenMP runtime by, each offered as a link to jompd's libomp. */
    public static final List<String> RUNTIME_ALIASES = List.of("libomp.so.5", "libgomp.so.1", "libomp.so");
    /** Set by scripts/build-runtime.sh when an install is complete. */
    static final String COMPLETE_STAMP = ".jompd-complete";

    private OpenMpLaunch() {}

    /** The cache directory scripts/common.sh uses: {@code $JOMPD_CACHE}, else {@code $XDG_CACHE_HOME/jompd}, else {@code ~/.cache/jompd}. */
    public static Path cacheDirectory(Map<String, String> environment) {
        String explicit = environment.get("JOMPD_CACHE");
        if (explicit != null && !explicit.isEmpty()) {
            return Path.of(explicit);
        }
        String xdg = environment.get("XDG_CACHE_HOME");
        String home = environment.getOrDefault("HOME", System.getProperty("user.home"));
        return (xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(home, ".cache")).resolve("jompd");
    }

    /**
     * The cache directory resolved, made (0700) when missing, when it is this user's alone ({@link OwnedPaths}):
     * jompd's libomp and the links programs load it by live there, and under {@code sudo -E} (the user's HOME) or
     * with a shared {@code XDG_CACHE_HOME} another user could write them.
     *
     * @throws IllegalArgumentException saying whose it is, and what to do instead
     */
    public static Path privateCache(Map<String, String> environment) {
        Path cache = cacheDirectory(environment);
        OwnedPaths.Verdict verdict = OwnedPaths.privateDirectory(cache);
        return verdict.path().orElseThrow(() -> new IllegalArgumentException("jompd does not use the cache directory "
                + cache + ": " + verdict.why() + " (set JOMPD_CACHE to a directory of yours alone)"));
    }

    /**
     * jompd's libomp: {@code $JOMPD_RUNTIME} (the library itself, its directory, or an install prefix
     * with {@code lib/}), else the complete install scripts/build-runtime.sh made in the cache.
     *
     * @throws IllegalArgumentException when {@code $JOMPD_RUNTIME} is set but holds no libomp.so, or the cache is
     *                                  not this user's alone ({@link #privateCache})
     */
    public static Optional<Path> findRuntime(Map<String, String> environment) {
        String explicit = environment.get("JOMPD_RUNTIME");
        if (explicit != null && !explicit.isEmpty()) {
            Path given = Path.of(explicit);
            for (Path candidate : List.of(given, given.resolve("libomp.so"), given.resolve("lib/libomp.so"))) {
                if (Files.isRegularFile(candidate)) {
                    return Optional.of(candidate.toAbsolutePath());
                }
            }
            throw new IllegalArgumentException("JOMPD_RUNTIME=" + explicit + " holds no libomp.so (give the library, "
                    + "its directory or the install prefix scripts/build-runtime.sh made)");
        }
        Path cache = cacheDirectory(environment);
        if (!Files.exists(cache)) {
            return Optional.empty();
        }
        Path prefix = privateCache(environment).resolve("llvm-" + RUNTIME_VERSION);
        Path library = prefix.resolve("lib/libomp.so");
        return Files.isRegularFile(prefix.resolve(COMPLETE_STAMP)) && Files.isRegularFile(library)
                ? Optional.of(library.toAbsolutePath()) : Optional.empty();
    }

    /**
     * Builds the runtime with {@code buildScript} (scripts/build-runtime.sh, shipped in the distribution),
     * its progress going to {@code log}, and answers the library.
     *
     * @throws IllegalStateException when the build fails (its output says why)
     */
    public static Path buildRuntime(Path buildScript, Map<String, String> environment, Consumer<String> log) {
        ProcessBuilder builder = new ProcessBuilder("bash", buildScript.toString(), Integer.toString(RUNTIME_VERSION))
                .redirectErrorStream(true);
        builder.environment().putAll(environment);
        try {
            Process process = builder.start();
            try (var lines = process.inputReader(StandardCharsets.UTF_8)) {
                lines.lines().forEach(log);
            }
            int exit = process.waitFor();
            if (exit != 0) {
                throw new IllegalStateException(buildScript + " failed (exit " + exit + ")");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + buildScript + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building the runtime", e);
        }
        return findRuntime(Map.of("JOMPD_CACHE", cacheDirectory(environment).toString()))
                .orElseThrow(() -> new IllegalStateException(buildScript + " finished but installed no libomp.so"));
    }

    /**
     * A directory in the cache where each of {@link #RUNTIME_ALIASES} links to {@code libomp}: made once
     * per library (named by a hash of its real path), atomically, so concurrent runs share it.
     *
     * @throws IllegalArgumentException when the cache is not this user's alone ({@link #privateCache})
     */
    public static Path aliasDirectory(Path libomp, Map<String, String> environment) {
        Path cache = privateCache(environment);
        try {
            Path real = libomp.toRealPath();
            Path directory = cache.resolve("run").resolve(hash(real.toString()));
            if (RUNTIME_ALIASES.stream().allMatch(alias -> real.equals(realPath(directory.resolve(alias))))) {
                return directory;
            }
            Files.createDirectories(directory.getParent());
            Path scratch = Files.createTempDirectory(directory.getParent(), "aliases-");
            for (String alias : RUNTIME_ALIASES) {
                Files.createSymbolicLink(scratch.resolve(alias), real);
            }
            try {
                Files.move(scratch, directory, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException | java.nio.file.DirectoryNotEmptyException raced) {
                // Another run made it meanwhile (or a stale one is there): replace link by link.
                for (String alias : RUNTIME_ALIASES) {
                    Files.createDirectories(directory);
                    Files.move(scratch.resolve(alias), directory.resolve(alias), StandardCopyOption.REPLACE_EXISTING,
                            StandardCopyOption.ATOMIC_MOVE);
                }
                Files.deleteIfExists(scratch);
            }
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the runtime's alias directory for " + libomp, e);
        }
    }

    /**
     * The environment a program runs with on jompd's libomp: {@code aliasDirectory} first on
     * {@code LD_LIBRARY_PATH} and {@code OMP_DEBUG=enabled}; everything else as in {@code base}.
     */
    public static Map<String, String> environment(Map<String, String> base, Path aliasDirectory) {
        Map<String, String> environment = new LinkedHashMap<>(base);
        String existing = base.get("LD_LIBRARY_PATH");
        environment.put("LD_LIBRARY_PATH", aliasDirectory + (existing == null || existing.isEmpty() ? "" : ":" + existing));
        environment.put("OMP_DEBUG", "enabled");
        return environment;
    }

    /** Just what {@link #environment} adds or changes, for showing it ({@code set environment} in gdb). */
    public static Map<String, String> environmentChanges(Map<String, String> base, Path aliasDirectory) {
        Map<String, String> all = environment(base, aliasDirectory);
        Map<String, String> changes = new LinkedHashMap<>();
        all.forEach((name, value) -> {
            if (!value.equals(base.get(name))) {
                changes.put(name, value);
            }
        });
        return changes;
    }

    /** Which OpenMP runtime a launched program runs on: a debugger's choice, or decided from the program. */
    public enum RuntimeChoice {
        /** jompd's libomp when the program needs GCC's libgomp (which has no debugging interface), else its own. */
        AUTO,
        /** Always jompd's OMPD-enabled libomp. */
        JOMPD,
        /** The runtime the program is linked against, unchanged. */
        PROGRAM
    }

    /**
     * What a debugger's launch does about the OpenMP runtime: the environment to start the program with
     * and a sentence for the user saying which runtime it runs on and why. Never builds the runtime (a
     * debugger session should not wait a minute on a compiler): when it is missing, the sentence says how
     * to get it and the program runs on its own runtime.
     *
     * @param environment the program's environment as the debugger would start it
     */
    public static Launch decide(Path program, RuntimeChoice choice, Map<String, String> environment) {
        boolean needsGomp = usesGompAbi(program);
        if (choice == RuntimeChoice.PROGRAM || (choice == RuntimeChoice.AUTO && !needsGomp)) {
            // A program built for LLVM's libomp needs nothing: nothing to say either.
            return new Launch(environment, false, choice == RuntimeChoice.PROGRAM
                    ? "the program runs on its own OpenMP runtime (openmpRuntime: \"program\")" : "");
        }
        String why = choice == RuntimeChoice.JOMPD ? "openmpRuntime: \"jompd\""
                : "it was built for GCC's libgomp, which has no OpenMP debugging interface";
        Optional<Path> libomp;
        try {
            libomp = findRuntime(environment);
        } catch (IllegalArgumentException e) {
            return new Launch(environment, false, e.getMessage() + "; the program runs on its own OpenMP runtime");
        }
        if (libomp.isEmpty()) {
            return new Launch(environment, false, "jompd's OMPD-enabled libomp is not built yet (run `jompd run` once, "
                    + "or scripts/build-runtime.sh " + RUNTIME_VERSION + "): the program runs on its own OpenMP runtime, "
                    + "which jompd " + (needsGomp ? "cannot read (GCC's libgomp)" : "reads if it keeps its OMPD symbols"));
        }
        Set<String> missing = missingGompEntryPoints(program, libomp.get());
        if (!missing.isEmpty()) {
            return new Launch(environment, false, "the program needs " + String.join(", ", missing) + " from GCC's "
                    + "libgomp, which jompd's libomp lacks: it runs on its own OpenMP runtime, which jompd cannot read");
        }
        Path aliases;
        try {
            aliases = aliasDirectory(libomp.get(), environment);
        } catch (IllegalArgumentException e) {
            return new Launch(environment, false, e.getMessage() + "; the program runs on its own OpenMP runtime");
        }
        return new Launch(environment(environment, aliases), true, "the program runs on jompd's OMPD-enabled libomp "
                + libomp.get() + " (as libomp.so.5 and libgomp.so.1, OMP_DEBUG=enabled): " + why);
    }

    /**
     * A launch's environment and what to tell the user about the runtime.
     *
     * @param onJompdsLibomp whether the environment puts jompd's libomp in place of the program's runtime
     * @param message        for the user; empty when there is nothing to say (a program built for libomp)
     */
    public record Launch(Map<String, String> environment, boolean onJompdsLibomp, String message) {}

    /** Whether {@code program} calls GCC's OpenMP entry points ({@code GOMP_*}): built by gcc or gfortran with -fopenmp. */
    public static boolean usesGompAbi(Path program) {
        return !undefinedGompSymbols(program).isEmpty();
    }

    /**
     * What {@code program} needs from GCC's OpenMP runtime that {@code libomp} does not offer, each as
     * {@code symbol@VERSION} (or the bare symbol for an unversioned {@code GOMP_*} call): the dynamic
     * linker would refuse to start it ({@code version `OMP_5.1' not found}) or stop it at the first call
     * ({@code undefined symbol: GOMP_…}). LLVM 19's libomp defines GCC's GOMP versions up to 5.0.1 and
     * OMP versions up to 5.0: a gcc 12 program that calls an OpenMP 5.0.1/5.1 API function
     * ({@code omp_get_max_teams@OMP_5.1}) or a GOMP 5.1 entry point ({@code GOMP_warning}) cannot run on it.
     */
    public static Set<String> missingGompEntryPoints(Path program, Path libomp) {
        Set<String> missing = new TreeSet<>();
        Set<String> exported = new TreeSet<>();
        Set<String> versions;
        try (ElfFile elf = ElfFile.open(libomp)) {
            for (ElfSymbol symbol : elf.dynamicSymbolTable().all()) {
                if (symbol.isDefined()) {
                    exported.add(symbol.name());
                }
            }
            versions = SymbolVersions.definitions(elf);
        } catch (IOException | TargetException e) {
            throw new IllegalStateException("cannot read " + libomp + ": " + e.getMessage(), e);
        }
        try (ElfFile elf = ElfFile.open(program)) {
            Set<String> versioned = new TreeSet<>();
            for (SymbolVersions.Need need : SymbolVersions.needs(elf)) {
                if (need.library().startsWith("libgomp.so")) {
                    versioned.add(need.symbol());
                    if (!versions.contains(need.version()) || !exported.contains(need.symbol())) {
                        missing.add(need.symbol() + "@" + need.version());
                    }
                }
            }
            for (String symbol : undefinedGompSymbols(program)) {
                if (!versioned.contains(symbol) && !exported.contains(symbol)) {
                    missing.add(symbol);
                }
            }
        } catch (IOException | TargetException notElf) {
            return missing; // a script or a non-ELF program: nothing to check up front
        }
        return missing;
    }

    private static Set<String> undefinedGompSymbols(Path program) {
        Set<String> symbols = new TreeSet<>();
        try (ElfFile elf = ElfFile.open(program)) {
            for (ElfSymbol symbol : elf.dynamicSymbolTable().all()) {
                if (!symbol.isDefined() && symbol.name().startsWith("GOMP_")) {
                    symbols.add(symbol.name());
                }
            }
        } catch (IOException | TargetException notElf) {
            return symbols; // a script or a non-ELF program: nothing to check up front
        }
        return symbols;
    }

    /** {@code program} as the shell would find it: a path, else the first executable match on {@code PATH}. */
    public static Optional<Path> resolveProgram(String program, Map<String, String> environment) {
        if (program.contains("/")) {
            Path path = Path.of(program);
            return Files.isRegularFile(path) ? Optional.of(path) : Optional.empty();
        }
        for (String directory : environment.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin").split(":")) {
            Path candidate = Path.of(directory.isEmpty() ? "." : directory, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Path realPath(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException missing) {
            return null;
        }
    }

    private static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return "libomp-" + HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
