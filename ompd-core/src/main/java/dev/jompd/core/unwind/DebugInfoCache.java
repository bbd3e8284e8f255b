package dev.jompd.core.unwind;

import dev.jompd.core.target.LoadedModule;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Parsed debug data per module file, kept across stops while the file is the same (same path, size,
 * modification time and build-id): call frame indexes, line tables and scopes are parsed once per
 * file, not once per stop. Thread-safe. Closing it unmaps every file it opened.
 */
public final class DebugInfoCache implements AutoCloseable {
    private final List<Path> debugDirectories;
    private final Map<Key, ModuleDebugInfo> modules = new ConcurrentHashMap<>();

    private record Key(Path path, long size, long modified, Optional<String> buildId) {
        // equals and hashCode written out, here and in the other records used as keys on a cold start's
        // path: a record's generated ones are bootstrapped at first use (method handles spun at run time,
        // which the ahead-of-time cache does not hold)
        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && size == key.size && modified == key.modified && path.equals(key.path)
                    && buildId.equals(key.buildId);
        }

        @Override
        public int hashCode() {
            return (path.hashCode() * 31 + Long.hashCode(size)) * 31 + Long.hashCode(modified);
        }
    }

    /** @param debugDirectories where separate debug files live ({@code DIR/.build-id/xx/yyyy.debug}) */
    public DebugInfoCache(List<Path> debugDirectories) {
        this.debugDirectories = List.copyOf(debugDirectories);
    }

    /** Debug files where gdb looks by default: /usr/lib/debug. */
    public DebugInfoCache() {
        this(List.of(Path.of("/usr/lib/debug")));
    }

    /** The module's debug data; a module whose file is gone yields an empty one. */
    public ModuleDebugInfo of(LoadedModule module) {
        Key key;
        try {
            BasicFileAttributes attributes = Files.readAttributes(module.file(), BasicFileAttributes.class);
            key = new Key(module.file(), attributes.size(), attributes.lastModifiedTime().toMillis(), module.buildId());
        } catch (IOException | SecurityException e) {
            key = new Key(module.file(), -1, -1, module.buildId());
        }
        return modules.computeIfAbsent(key, k -> new ModuleDebugInfo(k.path(), k.buildId(), debugDirectories));
    }

    @Override
    public void close() {
        modules.values().forEach(ModuleDebugInfo::close);
        modules.clear();
    }
}
