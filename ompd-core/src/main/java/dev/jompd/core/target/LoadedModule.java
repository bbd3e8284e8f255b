package dev.jompd.core.target;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A file mapped into the target: the executable or a shared library.
 *
 * @param path     the path the target mapped it from
 * @param loadBias what to add to the file's virtual addresses to get run-time addresses
 * @param buildId  the GNU build-id recorded in the target's memory, when known (hex)
 * @param diskFile the file the backend reads for it when that is not {@code path} (a core's explicit
 *                 executable, or a library found on the solib search path)
 */
public record LoadedModule(Path path, long loadBias, Optional<String> buildId, Optional<Path> diskFile) {

    public LoadedModule(Path path, long loadBias, Optional<String> buildId) {
        this(path, loadBias, buildId, Optional.empty());
    }

    /** The file to read the module's contents from: {@link #diskFile} when known, else {@link #path}. */
    public Path file() {
        return diskFile.orElse(path);
    }
}
