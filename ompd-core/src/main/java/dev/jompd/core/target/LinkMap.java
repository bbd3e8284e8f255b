package dev.jompd.core.target;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.elf.ElfSymbolTable;
import dev.jompd.core.target.debug.DebugFileSearch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What every backend needs from the dynamic linker's bookkeeping in the target: the order modules were
 * loaded in (the link map reached through the executable's {@code DT_DEBUG} entry), and symbols
 * relocated to run-time addresses, from the modules' files and their separate debug files. Shared by the
 * core-file and live backends and the gdb bridge.
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
        return findSymbol(modules.stream().filter(module -> module.fileName().contains(moduleNameFragment)).toList(), name);
    }

    /**
     * The executable first, then the libraries in the order the dynamic linker loaded them, then modules
     * the link map does not list (in the order given). Without a readable link map the libraries keep
     * the order given. The walk is bounded and keeps a visited set: a corrupt link map cannot loop.
     */
    public static <M extends Module> List<M> inLoadOrder(Optional<M> executable, List<M> found, WordReader memory) {
        List<M> ordered = new ArrayList<>();
        executable.ifPresent(ordered::add);
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
                        if (!ordered.contains(module) && module.contains(moduleDynamicSection)) {
                            ordered.add(module);
                        }
                    }
                    linkMap = memory.readLong(linkMap + 24);
                }
            }
        } catch (MemoryReadException e) {
            // A damaged or missing link map: the remaining modules follow in the order given.
        }
        for (M module : found) {
            if (!ordered.contains(module)) {
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

    /**
     * A module's separate debug file, where gdb finds them ({@link DebugFileSearch}): .build-id
     * directories, the module's .gnu_debuglink, debuginfod. {@code open} opens a candidate, empty when it
     * cannot; a candidate of another build goes to {@code rejected} (to close it, if the caller owns it).
     */
    public static Optional<ElfFile> findDebugFile(DebugFileSearch search, Optional<ElfFile> moduleFile, Optional<String> buildId,
                                                  Function<Path, Optional<ElfFile>> open, Consumer<ElfFile> rejected) {
        return search.find(moduleFile, buildId, open, rejected);
    }

    /** {@link #findDebugFile(DebugFileSearch, Optional, Optional, Function, Consumer)} in .build-id directories only. */
    public static Optional<ElfFile> findDebugFile(String buildId, List<Path> directories,
                                                  Function<Path, Optional<ElfFile>> open, Consumer<ElfFile> rejected) {
        return DebugFileSearch.directoriesOnly(directories).find(Optional.empty(), Optional.of(buildId), open, rejected);
    }

    /** The file's build-id; none when its notes are damaged. */
    public static Optional<String> buildIdOf(ElfFile elf) {
        try {
            return elf.buildId();
        } catch (ElfFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * A symbol of a module loaded at {@code loadBias}, looked up where a debugger looks: the file's
     * {@code .symtab}, then the separate debug file's, then the file's {@code .dynsym}.
     */
    public static Optional<TargetSymbol> lookup(Optional<ElfFile> file, Optional<ElfFile> debugFile, String name,
                                                long loadBias, String module) {
        List<ElfSymbolTable> tables = new ArrayList<>(3);
        file.ifPresent(elf -> tables.add(elf.symbolTable()));
        debugFile.ifPresent(elf -> tables.add(elf.symbolTable()));
        file.ifPresent(elf -> tables.add(elf.dynamicSymbolTable()));
        for (ElfSymbolTable table : tables) {
            Optional<ElfSymbol> symbol = table.lookup(name);
            if (symbol.isPresent()) {
                return Optional.of(relocate(symbol.get(), loadBias, module));
            }
        }
        return Optional.empty();
    }

    /**
     * A symbol of a module loaded at {@code loadBias}. A TLS symbol's value is its offset in the
     * module's TLS block and an absolute one a plain number: neither moves with the module.
     */
    public static TargetSymbol relocate(ElfSymbol symbol, long loadBias, String module) {
        long address = symbol.isThreadLocal() || symbol.isAbsolute() ? symbol.value() : loadBias + symbol.value();
        return new TargetSymbol(symbol.name(), address, symbol.size(), module, symbol.isThreadLocal());
    }
}
