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

    // equals and hashCode written out: a record's generated ones are bootstrapped at first use (method
    // handles made at run time, which the ahead-of-time cache does not hold: a cold start's cost)
    @Override
    public boolean equals(Object other) {
        return other instanceof LoadedModule m && loadBias == m.loadBias && path.equals(m.path)
                && buildId.equals(m.buildId) && diskFile.equals(m.diskFile);
    }

    @Override
    public int hashCode() {
        return ((path.hashCode() * 31 + Long.hashCode(loadBias)) * 31 + buildId.hashCode()) * 31 + diskFile.hashCode();
    }

    public LoadedModule(Path path, long loadBias, Optional<String> buildId) {
        this(path, loadBias, buildId, Optional.empty());
    }

    /** The file to read the module's contents from: {@link #diskFile} when known, else {@link #path}. */
    public Path file() {
        return diskFile.orElse(path);
    }
}
