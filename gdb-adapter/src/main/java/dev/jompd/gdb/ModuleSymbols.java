package dev.jompd.gdb;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.target.ModuleFiles;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.debug.DebugFileSearch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Symbols of a process's modules, read from their files on disk as {@code CoreFileAddressSpace} does:
 * the file's .symtab, then its separate debug file (by build-id), then its .dynsym. Each file is
 * opened (memory-mapped) on its first lookup.
 */
final class ModuleSymbols implements AutoCloseable {
    private static final DebugFileSearch DEBUG_FILE_SEARCH = DebugFileSearch.standard();

    /** A module: where its file is and what to add to its addresses. */
    static final class Module {
        final Path file;
        final long loadBias;
        /** The build-id of the file gdb reads this module from, when gdb knows it: a local file must match. */
        private final Optional<String> expectedBuildId;
        private boolean opened;
        private Optional<ElfFile> elf = Optional.empty();
        private Optional<ElfFile> debugFile = Optional.empty();
        private String problem;

        Module(Path file, long loadBias) {
            this(file, loadBias, Optional.empty());
        }

        Module(Path file, long loadBias, Optional<String> expectedBuildId) {
            this.file = file;
            this.loadBias = loadBias;
            this.expectedBuildId = expectedBuildId;
        }

        String fileName() {
            return file.getFileName() == null ? file.toString() : file.getFileName().toString();
        }

        /** Opens the file (memory-mapped) and its debug file on the first lookup. */
        private void open() {
            if (opened) {
                return;
            }
            opened = true;
            try {
                ElfFile file = ElfFile.open(this.file);
                Optional<String> buildId = ModuleFiles.buildIdOf(file);
                if (expectedBuildId.isPresent() && !expectedBuildId.equals(buildId)) {
                    // another build than the process runs: its symbols would point anywhere
                    problem = this.file + " has build-id " + buildId.orElse("none") + ", the process's "
                            + fileName() + " " + expectedBuildId.get();
                    file.close();
                    return;
                }
                elf = Optional.of(file);
                debugFile = ModuleFiles.findDebugFile(DEBUG_FILE_SEARCH, elf, buildId, ModuleSymbols::openIfThere, ElfFile::close);
            } catch (IOException | TargetException e) {
                problem = e.getMessage(); // a module we cannot read names nothing
            }
        }

        synchronized Optional<TargetSymbol> lookup(String name) {
            open();
            return ModuleFiles.lookup(elf, debugFile, name, loadBias, fileName());
        }

        LoadedModule toLoadedModule() {
            return new LoadedModule(file, loadBias, Optional.empty());
        }

        synchronized void close() {
            elf.ifPresent(ElfFile::close);
            debugFile.ifPresent(ElfFile::close);
            elf = Optional.empty();
            debugFile = Optional.empty();
        }

        @Override
        public String toString() {
            return file + " (bias 0x" + Long.toHexString(loadBias) + (problem != null ? ", " + problem : "") + ")";
        }
    }

    private final List<Module> modules;

    /** @param modules the executable first, then the libraries in load order */
    ModuleSymbols(List<Module> modules) {
        this.modules = List.copyOf(modules);
    }

    Optional<TargetSymbol> lookup(String name) {
        for (Module module : modules) {
            Optional<TargetSymbol> symbol = module.lookup(name);
            if (symbol.isPresent()) {
                return symbol;
            }
        }
        return Optional.empty();
    }

    Optional<TargetSymbol> lookup(String name, String moduleNameFragment) {
        for (Module module : modules) {
            if (module.fileName().contains(moduleNameFragment)) {
                Optional<TargetSymbol> symbol = module.lookup(name);
                if (symbol.isPresent()) {
                    return symbol;
                }
            }
        }
        return Optional.empty();
    }

    List<LoadedModule> loadedModules() {
        return modules.stream().map(Module::toLoadedModule).toList();
    }

    List<Module> modules() {
        return modules;
    }

    private static Optional<ElfFile> openIfThere(Path path) {
        if (!Files.isRegularFile(path)) {
            return Optional.empty();
        }
        try {
            return Optional.of(ElfFile.open(path));
        } catch (IOException | TargetException e) {
            return Optional.empty(); // an unreadable debug file: the module's own tables remain
        }
    }

    @Override
    public void close() {
        modules.forEach(Module::close);
    }
}
