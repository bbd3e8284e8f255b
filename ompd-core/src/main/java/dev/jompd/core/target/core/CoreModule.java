package dev.jompd.core.target.core;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.target.BuildIdMismatchException;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.LinkMap;
import dev.jompd.core.target.ModuleFiles;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.debug.DebugFileSearch;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * A module (executable or shared library) of the core: where it was mapped, its load bias and the
 * build-id its in-memory headers carry, and, opened on first use, its file on disk and its separate
 * debug file. Symbols are searched in the file's .symtab, then the debug file's .symtab, then the
 * file's .dynsym.
 */
final class CoreModule implements LinkMap.Module {
    private final String targetPath;
    private final List<FileMapping> mappings;
    private final long loadBias;
    private final Optional<String> coreBuildId;
    private final OptionalLong dynamicSectionAddress;
    private final Optional<Path> diskPath;
    private final Function<Path, Optional<ElfFile>> elfOpener;
    private final DebugFileSearch debugFileSearch;

    private boolean filesOpened;
    private boolean debugFileSearched;
    private Optional<ElfFile> diskFile = Optional.empty();
    private Optional<ElfFile> debugFile = Optional.empty();
    private BuildIdMismatchException mismatch;

    CoreModule(String targetPath, List<FileMapping> mappings, long loadBias, Optional<String> coreBuildId,
               OptionalLong dynamicSectionAddress, Optional<Path> diskPath,
               Function<Path, Optional<ElfFile>> elfOpener, DebugFileSearch debugFileSearch) {
        this.targetPath = targetPath;
        this.mappings = List.copyOf(mappings);
        this.loadBias = loadBias;
        this.coreBuildId = coreBuildId;
        this.dynamicSectionAddress = dynamicSectionAddress;
        this.diskPath = diskPath;
        this.elfOpener = elfOpener;
        this.debugFileSearch = debugFileSearch;
    }

    String targetPath() { return targetPath; }

    /** The module's file name, as symbols and messages name modules ("libomp.so"). */
    @Override
    public String fileName() {
        int slash = targetPath.lastIndexOf('/');
        return slash < 0 ? targetPath : targetPath.substring(slash + 1);
    }

    long loadBias() { return loadBias; }

    Optional<String> coreBuildId() { return coreBuildId; }

    @Override
    public OptionalLong dynamicSectionAddress() { return dynamicSectionAddress; }

    Optional<Path> diskPath() { return diskPath; }

    @Override
    public boolean contains(long address) {
        return mappings.stream().anyMatch(mapping -> mapping.contains(address));
    }

    @Override
    public LoadedModule toLoadedModule() {
        return new LoadedModule(Path.of(targetPath), loadBias, coreBuildId, diskPath.filter(path -> !path.equals(Path.of(targetPath))));
    }

    /**
     * The module's file on disk, once checked against the build-id in the core.
     *
     * @throws BuildIdMismatchException when the core's memory holds a different build-id than the file
     */
    synchronized Optional<ElfFile> verifiedDiskFile() {
        openFiles();
        if (mismatch != null) {
            throw BuildIdMismatchException.ofCore(mismatch.moduleName(), mismatch.file(), mismatch.targetBuildId(), mismatch.fileBuildId());
        }
        return diskFile;
    }

    /**
     * The defined symbol called {@code name}, with the load bias applied.
     *
     * @throws BuildIdMismatchException when the file on disk is not the one the target mapped
     */
    @Override
    public synchronized Optional<TargetSymbol> lookupSymbol(String name) {
        Optional<ElfFile> file = verifiedDiskFile();
        if (!debugFileSearched) {
            // Only now, not when reads open the file: a broken debug file must not break reads.
            debugFile = ModuleFiles.findDebugFile(debugFileSearch, file, coreBuildId.or(() -> file.flatMap(ElfFile::buildId)),
                    elfOpener, rejected -> { });
            debugFileSearched = true;
        }
        return ModuleFiles.lookup(file, debugFile, name, loadBias, fileName());
    }

    private void openFiles() {
        if (filesOpened) {
            return;
        }
        // Marked opened only at the end: a file that fails to parse fails every lookup, not just the first.
        diskFile = diskPath.flatMap(elfOpener);
        Optional<String> fileBuildId = diskFile.flatMap(ElfFile::buildId);
        if (coreBuildId.isPresent() && diskFile.isPresent() && !coreBuildId.equals(fileBuildId)) {
            mismatch = BuildIdMismatchException.ofCore(fileName(), diskFile.get().path(), coreBuildId.get(), fileBuildId);
            diskFile = Optional.empty();
        }
        filesOpened = true;
    }

    @Override
    public String toString() {
        return "%s (bias 0x%x%s)".formatted(targetPath, loadBias, coreBuildId.map(id -> ", build-id " + id).orElse(""));
    }
}
