package dev.jompd.core.unwind;

import dev.jompd.core.target.LoadedModule;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The executable segments of one stop's modules, sorted by run-time address. */
final class ModuleMap {
    record Mapping(long start, long end, LoadedModule module, ModuleDebugInfo info) {}

    private final Mapping[] mappings;

    ModuleMap(List<LoadedModule> modules, DebugInfoCache cache) {
        List<Mapping> found = new ArrayList<>();
        for (LoadedModule module : modules) {
            ModuleDebugInfo info = cache.of(module);
            long[] segments = info.executableSegments();
            for (int i = 0; i + 1 < segments.length; i += 2) {
                found.add(new Mapping(segments[i] + module.loadBias(), segments[i + 1] + module.loadBias(), module, info));
            }
        }
        found.sort((a, b) -> Long.compareUnsigned(a.start(), b.start())); // not Comparator.comparing: cold start
        this.mappings = found.toArray(Mapping[]::new);
    }

    Optional<Mapping> at(long address) {
        int low = 0;
        int high = mappings.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            Mapping mapping = mappings[mid];
            if (Long.compareUnsigned(address, mapping.start()) < 0) {
                high = mid - 1;
            } else if (Long.compareUnsigned(address, mapping.end()) >= 0) {
                low = mid + 1;
            } else {
                return Optional.of(mapping);
            }
        }
        return Optional.empty();
    }
}
