package dev.jompd.core.target.core;

import dev.jompd.core.target.TargetException;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The file on disk is not the one the target had mapped: the build-id the core's memory holds for a
 * module differs from the build-id of the file found for it. Symbols or bytes taken from that file
 * would be wrong, so the backend refuses to use it.
 */
public class BuildIdMismatchException extends TargetException {
    private final String moduleName;
    private final Path file;
    private final String coreBuildId;
    private final Optional<String> fileBuildId;

    public BuildIdMismatchException(String moduleName, Path file, String coreBuildId, Optional<String> fileBuildId) {
        super("core was made with a different %s: the core's copy has build-id %s, but %s has %s"
                .formatted(moduleName, coreBuildId, file,
                        fileBuildId.map(id -> "build-id " + id).orElse("no build-id")));
        this.moduleName = moduleName;
        this.file = file;
        this.coreBuildId = coreBuildId;
        this.fileBuildId = fileBuildId;
    }

    /** The module's file name, such as {@code libomp.so}. */
    public String moduleName() { return moduleName; }

    /** The file on disk that does not match. */
    public Path file() { return file; }

    /** The build-id recorded in the core's memory (hex). */
    public String coreBuildId() { return coreBuildId; }

    /** The build-id of the file on disk (hex), if it has one. */
    public Optional<String> fileBuildId() { return fileBuildId; }
}
