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
 * symbol. The one walk of {@code struct r_debug}'s list for every backend: the core-file and live backends
 * order their modules by it, gdb's and the OMPD callbacks' backends take their modules from it
 * ({@link #entries}). A module's own symbols: {@link ModuleFiles}.
 */
public final class LinkMap {
    private static final int MAX_DYNAMIC_ENTRIES = 4096;
    private static final int MAX_LINK_MAP_ENTRIES = 4096;
    private static final long DT_NULL = 0;
    private static final long DT_DEBUG = 21;

    private LinkMap() {}

    /** Reads one 8-byte word of the target (throws MemoryReadException when it cannot); {@code AddressSpace::readU64}. */
    @FunctionalInterface
    public interface WordReader {
        long readLong(long address);
    }

    /**
     * One entry of the link map, glibc's public ABI ({@code <link.h>}):
     * {@code struct link_map { ElfW(Addr) l_addr; char *l_name; ElfW(Dyn) *l_ld; struct link_map *l_next, *l_prev; }}.
     * The first entry is the executable's (an empty name).
     *
     * @param loadBias       {@code l_addr}
     * @param namePointer    {@code l_name}, the module's path as a C string (0 or an empty string: the executable)
     * @param dynamicSection {@code l_ld}, the module's dynamic section in the target
     */
    public record Entry(long loadBias, long namePointer, long dynamicSection) {}

    /**
     * The link map's entries in load order, from {@code struct r_debug} at {@code rDebug}
     * ({@code { int r_version; struct link_map *r_map; ... }}). Bounded and with a visited set, so a corrupt list
     * cannot loop; a word that cannot be read ends the walk with the entries read so far.
     */
    public static List<Entry> entries(WordReader memory, long rDebug) {
        List<Entry> entries = new ArrayList<>();
        try {
            long linkMap = memory.readLong(rDebug + 8);
            Set<Long> visited = new HashSet<>();
            while (linkMap != 0 && visited.add(linkMap) && visited.size() <= MAX_LINK_MAP_ENTRIES) {
                entries.add(new Entry(memory.readLong(linkMap), memory.readLong(linkMap + 8), memory.readLong(linkMap + 16)));
                linkMap = memory.readLong(linkMap + 24);
            }
        } catch (MemoryReadException e) {
            // a damaged link map: the entries before the damage
        }
        return entries;
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

        /** The module as the address space lists it. */
        LoadedModule toLoadedModule();
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
                for (Entry entry : entries(memory, debugStructure.getAsLong())) {
                    for (M module : found) {
                        if (!placed.contains(module) && module.contains(entry.dynamicSection())) {
                            ordered.add(module);
                            placed.add(module);
                        }
                    }
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
