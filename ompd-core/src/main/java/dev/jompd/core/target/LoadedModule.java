package dev.jompd.core.target;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A file mapped into the target: the executable or a shared library.
 *
 * @param path     the path the target mapped it from
 * @param loadBias what to add to the file's virtual addresses to get run-time addresses
 * @param buildId  the GNU build-id recorded in the target's memory, when known (hex)
 */
public record LoadedModule(Path path, long loadBias, Optional<String> buildId) {}
