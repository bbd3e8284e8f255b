package dev.jompd.core.target.debug;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where a module's separate debug file came from: a {@code .build-id} directory, the module's
 * {@code .gnu_debuglink}, or a debuginfod server (then {@code file} is the cached copy).
 */
public record DebugFileOrigin(Kind kind, Path file, Optional<URI> server) {
    public enum Kind { BUILD_ID_DIRECTORY, DEBUGLINK, DEBUGINFOD }

    @Override
    public String toString() {
        return kind == Kind.DEBUGINFOD ? "debuginfod " + server.map(URI::toString).orElse("?") : "debug file " + file;
    }
}
