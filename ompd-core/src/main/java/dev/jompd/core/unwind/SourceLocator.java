package dev.jompd.core.unwind;

import dev.jompd.core.dwarf.FunctionScopes;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Source positions of code addresses in one stop's modules, from their {@code .debug_line} and
 * {@code .debug_info} (separate debug files first), without any subprocess. Parsed tables live in the
 * {@link DebugInfoCache}; this object (the module map) belongs to one stop.
 */
public final class SourceLocator {
    private final ModuleMap modules;

    public SourceLocator(AddressSpace space, DebugInfoCache cache) {
        this(space.modules(), cache);
    }

    /** Over the modules a target has loaded (their files are opened through {@code cache}). */
    public SourceLocator(List<LoadedModule> modules, DebugInfoCache cache) {
        this(new ModuleMap(modules, cache));
    }

    SourceLocator(ModuleMap modules) {
        this.modules = modules;
    }

    /** The file and line of the instruction at {@code address}; empty when no line table covers it. */
    public Optional<SourceLocation> locate(long address) {
        return modules.at(address).flatMap(mapping -> lineAt(mapping.info(), address - mapping.module().loadBias()));
    }

    /**
     * The name of the function whose code holds {@code address} (not a function inlined there), as gdb
     * names it: from {@code .debug_info}, else from the symbol tables.
     */
    public Optional<String> functionAt(long address) {
        return modules.at(address).flatMap(mapping -> {
            List<ScopeFrame> scopes = scopeFrames(mapping, address);
            return FrameNames.of(scopes.getLast())
                    .or(() -> mapping.info().symbolAt(address - mapping.module().loadBias())
                            .map(Map.Entry::getKey).map(FrameNames::ofSymbol));
        });
    }

    /**
     * A function, or a call inlined into it, containing an address: its name, its C++ linkage name, and where it
     * is at. The name a frame shows is {@link FrameNames#of}'s.
     */
    record ScopeFrame(Optional<String> function, Optional<String> linkageName, Optional<SourceLocation> source,
                      boolean inlined) {}

    /**
     * The scopes at {@code lookupAddress}, innermost first: each inlined call (at the line of the
     * address for the innermost, at its call site inside it for the next), then the function.
     * Without debug information one frame with the line table's location, if any.
     */
    List<ScopeFrame> scopeFrames(ModuleMap.Mapping mapping, long lookupAddress) {
        ModuleDebugInfo info = mapping.info();
        return info.scopeFrames(lookupAddress - mapping.module().loadBias(), fileAddress -> scopeFramesAt(info, fileAddress));
    }

    private static List<ScopeFrame> scopeFramesAt(ModuleDebugInfo info, long fileAddress) {
        Optional<SourceLocation> innermost = lineAt(info, fileAddress);
        List<FunctionScopes.Scope> scopes;
        try {
            scopes = info.scopes().map(found -> found.scopesAt(fileAddress)).orElse(List.of());
        } catch (ElfFormatException e) {
            scopes = List.of(); // damaged .debug_info: the symbol tables name the function
        }
        if (scopes.isEmpty()) {
            return List.of(new ScopeFrame(Optional.empty(), Optional.empty(), innermost, false));
        }
        List<ScopeFrame> frames = new ArrayList<>(scopes.size());
        Optional<SourceLocation> location = innermost;
        for (int i = scopes.size() - 1; i >= 0; i--) {
            FunctionScopes.Scope scope = scopes.get(i);
            frames.add(new ScopeFrame(Optional.of(scope.function()), scope.linkageName(), location, scope.inlined()));
            location = scope.callFile().isPresent() && scope.callLine() > 0
                    ? Optional.of(new SourceLocation(scope.callFile().get(), scope.callLine(),
                    scope.callColumn() > 0 ? OptionalInt.of(scope.callColumn()) : OptionalInt.empty()))
                    : Optional.empty();
        }
        return frames;
    }

    private static Optional<SourceLocation> lineAt(ModuleDebugInfo info, long fileAddress) {
        try {
            return info.lineAt(fileAddress).map(row -> new SourceLocation(row.file(), row.line(),
                    row.column() > 0 ? OptionalInt.of(row.column()) : OptionalInt.empty()));
        } catch (ElfFormatException e) {
            return Optional.empty();
        }
    }
}
