package dev.jompd.report;

import dev.jompd.core.target.Symbolizer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Names code addresses for one stop's picture: symbol tables through the {@link Symbolizer}, source lines
 * from debug information. Lines are looked up once, for every address named so far, when the first line
 * is asked for: a door that shows no lines pays nothing, and one that does pays one lookup per module.
 */
public final class CodeNames {
    private final Symbolizer symbols;
    private final Map<Long, CodeLocation> named = new HashMap<>();
    private final List<Symbolizer.Location> pendingLines = new ArrayList<>();
    private final Map<Long, Symbolizer.Location> locations = new HashMap<>();
    private SourceLines lines;

    public CodeNames(Symbolizer symbols) {
        this.symbols = symbols;
    }

    /** The code at {@code address}; empty for a NULL address. */
    public synchronized Optional<CodeLocation> name(long address) {
        if (address == 0) {
            return Optional.empty();
        }
        return Optional.of(named.computeIfAbsent(address, this::locate));
    }

    private CodeLocation locate(long address) {
        Optional<Symbolizer.Location> location = symbols.locate(address);
        if (location.isEmpty()) {
            return CodeLocation.unknown(address);
        }
        pendingLines.add(location.get());
        locations.put(address, location.get());
        return new CodeLocation(address, Optional.of(location.get().toString()), location.get().toString(),
                Optional.of(location.get().module()), () -> line(address));
    }

    private synchronized Optional<String> line(long address) {
        if (lines == null || !pendingLines.isEmpty()) {
            List<Symbolizer.Location> all = new ArrayList<>(locations.values());
            lines = new SourceLines(all);
            pendingLines.clear();
        }
        return lines.of(locations.get(address));
    }
}
