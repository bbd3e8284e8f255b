package dev.jompd.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Compiles fixture programs against an OMPD-enabled libomp, once per (sources, runtime, flags): the
 * executables are kept in the cache directory under a hash of everything that went into them.
 */
public final class FixtureBuilder {
    private static final String RESOURCE_DIRECTORY = "fixtures";
    private static final List<String> C_FLAGS = List.of("-fopenmp", "-g", "-O0", "-fno-omit-frame-pointer");
    private static final Map<String, Path> BUILT = new ConcurrentHashMap<>();

    /** How the fixture's own code is compiled (the runtime is what it is). */
    public enum Optimization {
        /** The default: -O0 with frame pointers, as FIXTURES.md gives the commands. */
        NONE(List.of("-O0", "-fno-omit-frame-pointer")),
        /** -O2 (frame pointers omitted, calls inlined): what unwinders must cope with in production. */
        O2(List.of("-O2")),
        /** -O2 with DWARF 4 debug information (the line program and unit formats before DWARF 5). */
        O2_DWARF4(List.of("-O2", "-gdwarf-4")),
        /**
         * -O0 with frame pointers and no debug information (no -g): the program's frames are named by its symbol
         * tables alone, as in a program built for release or stripped of .debug_*. The runtime keeps its own.
         */
        NO_DEBUG_INFO(List.of("-O0", "-fno-omit-frame-pointer"));

        private final List<String> flags;

        Optimization(List<String> flags) {
            this.flags = flags;
        }
    }

    private FixtureBuilder() {}

    /** The executable of {@code fixture} built against libomp {@code runtimeVersion}. */
    public static Path executable(Fixture fixture, int runtimeVersion) {
        return executable(fixture, runtimeVersion, Optimization.NONE);
    }

    /** The executable of {@code fixture} built against libomp {@code runtimeVersion} with {@code optimization}. */
    public static Path executable(Fixture fixture, int runtimeVersion, Optimization optimization) {
        String key = fixture + "@" + runtimeVersion + (optimization == Optimization.NONE ? "" : "@" + optimization);
        return BUILT.computeIfAbsent(key, k -> build(fixture, runtimeVersion, optimization));
    }

    public static Path executable(Fixture fixture) {
        return executable(fixture, Runtimes.DEFAULT_VERSION);
    }

    private static synchronized Path build(Fixture fixture, int runtimeVersion, Optimization optimization) {
        Path runtime = Runtimes.prefix(runtimeVersion);
        Map<String, byte[]> sources = fixtureSources();
        if (!sources.containsKey(fixture.source())) {
            throw new IllegalStateException("no fixture source " + fixture.source() + " among " + sources.keySet());
        }
        List<List<String>> commands = compileCommands(fixture, runtime, optimization);
        Path directory = Runtimes.cacheDirectory().resolve("fixtures")
                .resolve("llvm-" + runtimeVersion).resolve(hash(sources, commands));
        Path executable = directory.resolve(fixture.programName());
        if (Files.isExecutable(executable)) {
            return executable;
        }
        try {
            Files.createDirectories(directory);
            for (var source : sources.entrySet()) {
                Files.write(directory.resolve(source.getKey()), source.getValue());
            }
            Path scratch = Files.createTempDirectory(directory, "build-");
            for (List<String> command : commands) {
                List<String> resolved = command.stream()
                        .map(argument -> argument.replace("@SRC@", directory.toString())
                                .replace("@OUT@", scratch.toString()))
                        .toList();
                Commands.Result result = Commands.run(resolved, Map.of(), scratch, Duration.ofMinutes(3));
                if (result.exitCode() != 0) {
                    throw new IllegalStateException("compiling fixture " + fixture + " failed: "
                            + String.join(" ", resolved) + "\n" + result.output());
                }
            }
            // Publish atomically, so a concurrent or interrupted build never leaves half an executable.
            Files.move(scratch.resolve(fixture.programName()), executable, StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            return executable;
        } catch (IOException e) {
            throw new UncheckedIOException("building fixture " + fixture, e);
        }
    }

    /** The exact commands that build a fixture; @SRC@ is the source directory, @OUT@ the output one. */
    static List<List<String>> compileCommands(Fixture fixture, Path runtime) {
        return compileCommands(fixture, runtime, Optimization.NONE);
    }

    static List<List<String>> compileCommands(Fixture fixture, Path runtime, Optimization optimization) {
        if (optimization == Optimization.NO_DEBUG_INFO) {
            return compileCommands(fixture, runtime).stream()
                    .map(command -> command.stream().filter(argument -> !argument.equals("-g")).toList()).toList();
        }
        if (optimization != Optimization.NONE) {
            List<String> replaced = Optimization.NONE.flags;
            return compileCommands(fixture, runtime).stream().map(command -> {
                List<String> changed = new ArrayList<>(command.stream().filter(a -> !replaced.contains(a)).toList());
                if (changed.contains("-g")) {
                    changed.addAll(changed.indexOf("-g") + 1, optimization.flags);
                }
                return List.copyOf(changed);
            }).toList();
        }
        String include = "-I" + runtime.resolve("include");
        String libraryPath = "-L" + runtime.resolve("lib");
        String rpath = "-Wl,-rpath," + runtime.resolve("lib");
        String out = "@OUT@/" + fixture.programName();
        List<List<String>> commands = new ArrayList<>();
        if (fixture.toolchain() == Fixture.Toolchain.GCC && fixture.isFortran()) {
            // As users build: gfortran -fopenmp links GCC's libgomp (jompd run puts libomp in its place).
            commands.add(List.of("gcc", "-fopenmp", "-g", "-O0", "-fno-omit-frame-pointer", "-c",
                    "@SRC@/fixture.c", "-o", "@OUT@/fixture.o"));
            commands.add(List.of("gfortran", "-fopenmp", "-g", "-O0", "-fno-omit-frame-pointer", "-J", "@OUT@",
                    "-c", "@SRC@/" + fixture.source(), "-o", out + ".o"));
            commands.add(List.of("gfortran", "-fopenmp", "-g", "-o", out, out + ".o", "@OUT@/fixture.o", "-lpthread"));
        } else if (fixture.toolchain() == Fixture.Toolchain.GCC) {
            List<String> command = new ArrayList<>(List.of("gcc"));
            command.addAll(C_FLAGS);
            command.addAll(List.of("-o", out, "@SRC@/" + fixture.source(), "@SRC@/fixture.c", "-lpthread"));
            commands.add(command);
        } else if (fixture.isCxx()) {
            List<String> command = new ArrayList<>(List.of("clang++-19"));
            command.addAll(C_FLAGS);
            command.addAll(List.of(include, libraryPath, rpath, "-o", out, "@SRC@/" + fixture.source(),
                    "-x", "c", "@SRC@/fixture.c", "-lpthread"));
            commands.add(command);
        } else if (fixture.isFortran()) {
            // gfortran's -fopenmp would link libgomp; compile with it, then link libomp (which carries
            // the GOMP_* entry points) explicitly.
            commands.add(List.of("clang-19", "-fopenmp", "-g", "-O0", "-fno-omit-frame-pointer", include, "-c",
                    "@SRC@/fixture.c", "-o", "@OUT@/fixture.o"));
            commands.add(List.of("gfortran", "-fopenmp", "-g", "-O0", "-fno-omit-frame-pointer", "-J", "@OUT@",
                    "-c", "@SRC@/" + fixture.source(), "-o", out + ".o"));
            commands.add(List.of("gfortran", "-g", "-o", out, out + ".o", "@OUT@/fixture.o", libraryPath, rpath,
                    "-lomp", "-lpthread"));
        } else if (fixture.isOffload()) {
            // libomptarget works only with the libomp it was built with: Debian's, in its own directory.
            String debian = Offload.RUNTIME_DIRECTORY.toString();
            List<String> command = new ArrayList<>(List.of("clang-19"));
            command.addAll(C_FLAGS);
            command.addAll(List.of("-fopenmp-targets=x86_64-pc-linux-gnu", "-L" + debian, "-Wl,-rpath," + debian,
                    "-o", out, "@SRC@/" + fixture.source(), "@SRC@/fixture.c", "-lpthread"));
            commands.add(command);
        } else {
            List<String> command = new ArrayList<>(List.of("clang-19"));
            command.addAll(C_FLAGS);
            command.addAll(List.of(include, libraryPath, rpath, "-o", out, "@SRC@/" + fixture.source(),
                    "@SRC@/fixture.c", "-lpthread"));
            commands.add(command);
        }
        return commands;
    }

    /** Every file of the fixture sources directory, by name (the kit ships them as resources). */
    static Map<String, byte[]> fixtureSources() {
        URL marker = FixtureBuilder.class.getClassLoader().getResource(RESOURCE_DIRECTORY + "/fixture.h");
        if (marker == null) {
            throw new IllegalStateException("fixture sources not on the class path (resource fixtures/fixture.h)");
        }
        try {
            URI uri = marker.toURI();
            if ("jar".equals(uri.getScheme())) {
                try (FileSystem jar = FileSystems.newFileSystem(uri, Map.of())) {
                    return readDirectory(jar.getPath(RESOURCE_DIRECTORY));
                }
            }
            return readDirectory(Path.of(uri).getParent());
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException("cannot read fixture sources", e);
        }
    }

    private static Map<String, byte[]> readDirectory(Path directory) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path entry : entries.filter(Files::isRegularFile).toList()) {
                try (InputStream in = Files.newInputStream(entry)) {
                    files.put(entry.getFileName().toString(), in.readAllBytes());
                }
            }
        }
        return files;
    }

    static String hash(Map<String, byte[]> sources, List<List<String>> commands) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            sources.forEach((name, content) -> {
                digest.update(name.getBytes());
                digest.update(content);
            });
            digest.update(commands.toString().getBytes());
            return HexFormat.of().formatHex(digest.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
