package dev.jompd.gdb;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.elf.ElfSymbolTable;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Symbols of a process's modules, read from their files on disk as {@code CoreFileAddressSpace} does:
 * the file's .symtab, then its separate debug file (by build-id), then its .dynsym. Each file is
 * opened (memory-mapped) on its first lookup.
 */
final class ModuleSymbols implements AutoCloseable {
    private static final List<Path> DEBUG_FILE_DIRECTORIES = List.of(Path.of("/usr/lib/debug"));

    /** A module: where its file is and what to add to its addresses. */
    static final class Module {
        final Path file;
        final long loadBias;
        /** The build-id of the file gdb reads this module from, when gdb knows it: a local file must match. */
        private final Optional<String> expectedBuildId;
        private boolean opened;
        private final List<ElfSymbolTable> tables = new ArrayList<>(3);
        private final List<ElfFile> elfFiles = new ArrayList<>(2);
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

        synchronized List<ElfSymbolTable> tables() {
            if (!opened) {
                opened = true;
                try {
                    ElfFile elf = ElfFile.open(file);
                    elfFiles.add(elf);
                    if (expectedBuildId.isPresent() && !expectedBuildId.equals(elf.buildId())) {
                        // another build than the process runs: its symbols would point anywhere
                        problem = file + " has build-id " + elf.buildId().orElse("none") + ", the process's "
                                + fileName() + " " + expectedBuildId.get();
                        return tables;
                    }
                    tables.add(elf.symbolTable());
                    elf.buildId().flatMap(ModuleSymbols::debugFile).ifPresent(debug -> {
                        elfFiles.add(debug);
                        tables.add(debug.symbolTable());
                    });
                    tables.add(elf.dynamicSymbolTable());
                } catch (IOException | TargetException e) {
                    problem = e.getMessage(); // a module we cannot read names nothing
                }
            }
            return tables;
        }

        Optional<TargetSymbol> lookup(String name) {
            for (ElfSymbolTable table : tables()) {
                Optional<ElfSymbol> symbol = table.lookup(name);
                if (symbol.isPresent()) {
                    ElfSymbol found = symbol.get();
                    // A TLS symbol's value is an offset in the module's TLS block, an absolute one a number.
                    long address = found.isThreadLocal() || found.isAbsolute() ? found.value() : loadBias + found.value();
                    return Optional.of(new TargetSymbol(found.name(), address, found.size(), fileName(), found.isThreadLocal()));
                }
            }
            return Optional.empty();
        }

        LoadedModule toLoadedModule() {
            return new LoadedModule(file, loadBias, Optional.empty());
        }

        synchronized void close() {
            elfFiles.forEach(ElfFile::close);
            elfFiles.clear();
            tables.clear();
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

    private static Optional<ElfFile> debugFile(String buildId) {
        if (buildId.length() < 3) {
            return Optional.empty();
        }
        for (Path directory : DEBUG_FILE_DIRECTORIES) {
            Path candidate = directory.resolve(".build-id").resolve(buildId.substring(0, 2))
                    .resolve(buildId.substring(2) + ".debug");
            if (Files.isRegularFile(candidate)) {
                try {
                    ElfFile debug = ElfFile.open(candidate);
                    if (debug.buildId().equals(Optional.of(buildId))) {
                        return Optional.of(debug);
                    }
                    debug.close();
                } catch (IOException | TargetException e) {
                    // an unreadable debug file: the module's own tables remain
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        modules.forEach(Module::close);
    }
}
