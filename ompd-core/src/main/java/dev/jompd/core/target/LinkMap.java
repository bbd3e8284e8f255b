package dev.jompd.core.target;


import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The dynamic linker's bookkeeping in the target: the order modules were loaded in (the link map reached
 * through the executable's {@code DT_DEBUG} entry), and the first module in that order defining a
 * symbol. Shared by the core-file and live backends. A module's own symbols: {@link ModuleFiles}.
 */
public final class LinkMap {
    private static final int MAX_DYNAMIC_ENTRIES = 4096;
    private static final int MAX_LINK_MAP_ENTRIES = 4096;
    private static final long DT_NULL = 0;
    private static final long DT_DEBUG = 21;

    private LinkMap() {}

    /** Reads one 8-byte word of the target (throws MemoryReadException when it cannot). */
    public interface WordReader {
        long readLong(long address);
    }

    /** A mapped module as the link map sees it. */
    public interface Module {
        /** The run-time address of the module's dynamic section, when known. */
        OptionalLong dynamicSectionAddress();

        /** Whether the address lies in one of the module's mappings. */
        boolean contains(long address);

        /** The module's file name, such as {@code libomp.so}. */
        String fileName();

        /** A symbol of this module, relocated. */
        Optional<TargetSymbol> lookupSymbol(String name);
    }

    /** The first module (in load order) that defines {@code name}: the executable first. */
    public static Optional<TargetSymbol> findSymbol(List<? extends Module> modules, String name) {
        for (Module module : modules) {
            Optional<TargetSymbol> symbol = module.lookupSymbol(name);
            if (symbol.isPresent()) {
                return symbol;
            }
        }
        return Optional.empty();
    }

    /** The first module whose file name contains {@code moduleNameFragment} and defines {@code name}. */
    public static Optional<TargetSymbol> findSymbol(List<? extends Module> modules, String name, String moduleNameFragment) {
        for (Module module : modules) {
            if (module.fileName().contains(moduleNameFragment)) {
                Optional<TargetSymbol> symbol = module.lookupSymbol(name);
                if (symbol.isPresent()) {
                    return symbol;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The executable first, then the libraries in the order the dynamic linker loaded them, then modules
     * the link map does not list (in the order given). Without a readable link map the libraries keep
     * the order given. The walk is bounded and keeps a visited set: a corrupt link map cannot loop.
     */
    public static <M extends Module> List<M> inLoadOrder(Optional<M> executable, List<M> found, WordReader memory) {
        List<M> ordered = new ArrayList<>();
        // modules placed already, by identity (a rank's sixty modules against as many link map entries)
        Set<M> placed = Collections.newSetFromMap(new IdentityHashMap<>());
        executable.ifPresent(module -> {
            ordered.add(module);
            placed.add(module);
        });
        try {
            OptionalLong dynamicSection = executable.isPresent()
                    ? executable.get().dynamicSectionAddress() : OptionalLong.empty();
            OptionalLong debugStructure = dynamicSection.isPresent()
                    ? findDynamicEntry(memory, dynamicSection.getAsLong(), DT_DEBUG) : OptionalLong.empty();
            if (debugStructure.isPresent() && debugStructure.getAsLong() != 0) {
                // struct r_debug { int r_version; struct link_map *r_map; ... }
                long linkMap = memory.readLong(debugStructure.getAsLong() + 8);
                Set<Long> visited = new HashSet<>();
                // struct link_map { l_addr; char *l_name; ElfW(Dyn) *l_ld; link_map *l_next, *l_prev; }
                while (linkMap != 0 && visited.add(linkMap) && visited.size() <= MAX_LINK_MAP_ENTRIES) {
                    long moduleDynamicSection = memory.readLong(linkMap + 16);
                    for (M module : found) {
                        if (!placed.contains(module) && module.contains(moduleDynamicSection)) {
                            ordered.add(module);
                            placed.add(module);
                        }
                    }
                    linkMap = memory.readLong(linkMap + 24);
                }
            }
        } catch (MemoryReadException e) {
            // A damaged or missing link map: the remaining modules follow in the order given.
        }
        for (M module : found) {
            if (placed.add(module)) {
                ordered.add(module);
            }
        }
        return ordered;
    }

    private static OptionalLong findDynamicEntry(WordReader memory, long dynamicSection, long tag) {
        for (int index = 0; index < MAX_DYNAMIC_ENTRIES; index++) {
            long entryTag = memory.readLong(dynamicSection + 16L * index);
            if (entryTag == DT_NULL) {
                break;
            }
            if (entryTag == tag) {
                return OptionalLong.of(memory.readLong(dynamicSection + 16L * index + 8));
            }
        }
        return OptionalLong.empty();
    }
}
