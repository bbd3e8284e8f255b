package dev.jompd.core.target;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.elf.ElfSymbolTable;
import dev.jompd.core.target.debug.DebugFileSearch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A module's files on disk as every backend reads them: its build-id, its separate debug file, and its
 * symbols relocated to run-time addresses, looked up where a debugger looks. Shared by the core-file and
 * live backends, the gdb bridge and the unwinder's debug information.
 */
public final class ModuleFiles {

    private ModuleFiles() {}

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
