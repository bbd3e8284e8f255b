package dev.jompd.core.target;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The file on disk is not the one the target had mapped: the build-id the target's memory holds for a
 * module differs from the build-id of the file found for it (a core made with another build; a library
 * replaced on disk after the process loaded it). Symbols or bytes taken from that file would be wrong, so
 * the backend refuses to use it.
 */
public class BuildIdMismatchException extends TargetException {
    private final String moduleName;
    private final Path file;
    private final String targetBuildId;
    private final Optional<String> fileBuildId;

    private BuildIdMismatchException(String message, String moduleName, Path file, String targetBuildId,
                                     Optional<String> fileBuildId) {
        super(message);
        this.moduleName = moduleName;
        this.file = file;
        this.targetBuildId = targetBuildId;
        this.fileBuildId = fileBuildId;
    }

    /** A file of another build than the one in a core. */
    public static BuildIdMismatchException ofCore(String moduleName, Path file, String coreBuildId, Optional<String> fileBuildId) {
        return new BuildIdMismatchException("core was made with a different %s: the core's copy has build-id %s, but %s has %s"
                .formatted(moduleName, coreBuildId, file, describe(fileBuildId)), moduleName, file, coreBuildId, fileBuildId);
    }

    /** A file the live process mapped checked at each of {@code candidates} (a path and its build-id), none of them the one it runs. */
    public static BuildIdMismatchException ofProcess(String moduleName, String memoryBuildId, List<Candidate> candidates) {
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("no mismatching file");
        }
        List<String> found = candidates.stream().map(c -> c.file() + " has " + describe(c.buildId())).toList();
        return new BuildIdMismatchException(("the process mapped a %s with build-id %s, but %s (the file was replaced after the "
                + "process loaded it; reading /proc/PID/map_files needs CAP_SYS_ADMIN)")
                .formatted(moduleName, memoryBuildId, String.join(", ", found)),
                moduleName, candidates.getFirst().file(), memoryBuildId, candidates.getFirst().buildId());
    }

    /** A file looked at for a module, and its build-id. */
    public record Candidate(Path file, Optional<String> buildId) {}

    private static String describe(Optional<String> buildId) {
        return buildId.map(id -> "build-id " + id).orElse("no build-id");
    }

    /** The module's file name, such as {@code libomp.so}. */
    public String moduleName() { return moduleName; }

    /** The file on disk that does not match (the first one looked at). */
    public Path file() { return file; }

    /** The build-id recorded in the target's memory (hex). */
    public String targetBuildId() { return targetBuildId; }

    /** The build-id of the file on disk (hex), if it has one. */
    public Optional<String> fileBuildId() { return fileBuildId; }
}
