package dev.jompd.core.target.debug;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.SectionHeader;
import dev.jompd.core.target.TargetException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.zip.CRC32;

/**
 * The one search for a module's separate debug file, used by the core, live and gdb-read modules, in
 * gdb's order: {@code DIR/.build-id/xx/yyyy.debug} in each global debug directory; then the file named
 * by the module's {@code .gnu_debuglink} beside the module, in its {@code .debug/} subdirectory, and
 * under each global debug directory plus the module's directory (its CRC must match); then, for the
 * OpenMP runtime, debuginfod.
 * A candidate of another build (build-id or CRC) is never used.
 */
public final class DebugFileSearch {
    /** Where each build-id's debug file came from, for reports ("debug file PATH", "debuginfod URL"). */
    private static final Map<String, DebugFileOrigin> ORIGINS = new ConcurrentHashMap<>();

    /**
     * debuginfod is asked for the OpenMP runtime only: jompd needs no other module's debug info, and each
     * query may cost a download (libc's is tens of MB) or a timeout on an offline node.
     */
    private static final java.util.regex.Pattern OPENMP_RUNTIME = java.util.regex.Pattern.compile("lib(i?omp|gomp)[-.0-9]*\\.so.*");

    private final List<Path> directories;
    private final Optional<DebuginfodClient> debuginfod;

    public DebugFileSearch(List<Path> directories, Optional<DebuginfodClient> debuginfod) {
        this.directories = List.copyOf(directories);
        this.debuginfod = debuginfod;
    }

    /** gdb's defaults: /usr/lib/debug, and debuginfod as the environment configures it. */
    public static DebugFileSearch standard() {
        return new DebugFileSearch(List.of(Path.of("/usr/lib/debug")), Optional.of(DebuginfodClient.fromEnvironment()));
    }

    /** Only .build-id directories and debuglinks under {@code directories}: no network. */
    public static DebugFileSearch directoriesOnly(List<Path> directories) {
        return new DebugFileSearch(directories, Optional.empty());
    }

    public List<Path> directories() {
        return directories;
    }

    public DebugFileSearch withDirectories(List<Path> replaced) {
        return new DebugFileSearch(replaced, debuginfod);
    }

    public DebugFileSearch withDebuginfod(Optional<DebuginfodClient> client) {
        return new DebugFileSearch(directories, client);
    }

    /** Where the debug file of {@code buildId} was found, when one was. */
    public static Optional<DebugFileOrigin> originOf(String buildId) {
        return Optional.ofNullable(ORIGINS.get(buildId));
    }

    /**
     * The debug file of a module. {@code open} opens a candidate (empty when it cannot); a candidate of
     * another build goes to {@code rejected} (to close it, if the caller owns it).
     *
     * @param moduleFile the module's own file, for its {@code .gnu_debuglink}; empty when not on disk
     * @param buildId    the module's build-id, from the target's memory or its file
     */
    public Optional<ElfFile> find(Optional<ElfFile> moduleFile, Optional<String> buildId,
                                  Function<Path, Optional<ElfFile>> open, Consumer<ElfFile> rejected) {
        if (buildId.isPresent() && buildId.get().length() >= 3) {
            String id = buildId.get();
            for (Path directory : directories) {
                Path candidate = directory.resolve(".build-id").resolve(id.substring(0, 2)).resolve(id.substring(2) + ".debug");
                Optional<ElfFile> found = accept(open.apply(candidate), buildId, rejected);
                if (found.isPresent()) {
                    return remember(id, found, DebugFileOrigin.Kind.BUILD_ID_DIRECTORY, Optional.empty());
                }
            }
        }
        Optional<DebugLink> link = moduleFile.flatMap(DebugFileSearch::debugLink);
        if (link.isPresent() && moduleFile.get().path() != null) {
            for (Path candidate : debugLinkCandidates(moduleFile.get().path(), link.get().name())) {
                if (!Files.isRegularFile(candidate) || !crcMatches(candidate, link.get().crc())) {
                    continue;
                }
                Optional<ElfFile> found = accept(open.apply(candidate), buildId, rejected);
                if (found.isPresent()) {
                    return remember(buildId.orElse(candidate.toString()), found, DebugFileOrigin.Kind.DEBUGLINK, Optional.empty());
                }
            }
        }
        String moduleName = moduleFile.map(f -> String.valueOf(f.path().getFileName())).orElse("build-id " + buildId.orElse("?"));
        if (buildId.isPresent() && debuginfod.isPresent() && OPENMP_RUNTIME.matcher(moduleName).matches()) {
            Optional<DebugFileOrigin> origin = debuginfod.get().debugInfo(buildId.get(), moduleName);
            if (origin.isPresent()) {
                Optional<ElfFile> found = accept(open.apply(origin.get().file()), buildId, rejected);
                if (found.isPresent()) {
                    ORIGINS.put(buildId.get(), origin.get());
                    return found;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<ElfFile> remember(String key, Optional<ElfFile> found, DebugFileOrigin.Kind kind, Optional<java.net.URI> server) {
        ORIGINS.put(key, new DebugFileOrigin(kind, found.get().path(), server));
        return found;
    }

    /** The candidate, when it is of the module's build (or neither says which build it is). */
    private static Optional<ElfFile> accept(Optional<ElfFile> candidate, Optional<String> buildId, Consumer<ElfFile> rejected) {
        if (candidate.isEmpty()) {
            return candidate;
        }
        Optional<String> candidateId;
        try {
            candidateId = candidate.get().buildId();
        } catch (TargetException damaged) {
            candidateId = Optional.empty();
        }
        boolean sameBuild = buildId.isEmpty() ? true : candidateId.equals(buildId);
        if (sameBuild) {
            return candidate;
        }
        rejected.accept(candidate.get());
        return Optional.empty();
    }

    /** gdb's debuglink places: DIR/NAME, DIR/.debug/NAME, GLOBAL/DIR/NAME for each global directory. */
    List<Path> debugLinkCandidates(Path module, String name) {
        Path real = realPath(module);
        Path directory = real.getParent();
        List<Path> candidates = new ArrayList<>();
        if (directory == null || name.contains("/")) {
            return candidates;
        }
        candidates.add(directory.resolve(name));
        candidates.add(directory.resolve(".debug").resolve(name));
        for (Path global : directories) {
            candidates.add(Path.of(global.toString(), directory.toString(), name));
        }
        // The module itself is never its own debug file.
        candidates.removeIf(candidate -> candidate.normalize().equals(module.normalize()) || candidate.normalize().equals(directory.resolve(real.getFileName())));
        return candidates;
    }

    private static Path realPath(Path file) {
        try {
            return file.toRealPath();
        } catch (IOException e) {
            return file.toAbsolutePath();
        }
    }

    /** A module's {@code .gnu_debuglink}: the debug file's name and the CRC-32 of its contents. */
    record DebugLink(String name, int crc) {}

    static Optional<DebugLink> debugLink(ElfFile module) {
        try {
            Optional<SectionHeader> section = module.section(".gnu_debuglink");
            if (section.isEmpty() || !section.get().hasFileBytes()) {
                return Optional.empty();
            }
            ByteView view = module.sectionBytes(section.get());
            byte[] bytes = view.toByteArray();
            int nul = 0;
            while (nul < bytes.length && bytes[nul] != 0) {
                nul++;
            }
            int crcOffset = (nul + 4) & ~3;
            if (nul == 0 || crcOffset + 4 > bytes.length) {
                return Optional.empty();
            }
            int crc = ByteBuffer.wrap(bytes, crcOffset, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            return Optional.of(new DebugLink(new String(bytes, 0, nul, StandardCharsets.UTF_8), crc));
        } catch (TargetException damaged) {
            return Optional.empty();
        }
    }

    private static boolean crcMatches(Path file, int expected) {
        CRC32 crc = new CRC32();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int read; (read = in.read(buffer)) > 0; ) {
                crc.update(buffer, 0, read);
            }
        } catch (IOException e) {
            return false;
        }
        return (int) crc.getValue() == expected;
    }
}
