package dev.jompd.core.target.live;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.BuildIdMismatchException;
import dev.jompd.core.target.LinkMap;
import dev.jompd.core.target.ModuleFileCache;
import dev.jompd.core.target.ModuleFiles;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.debug.DebugFileSearch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A module (executable or shared library) of the live process: where it is mapped, its load bias and
 * the build-id its in-memory headers carry, and, opened on the first symbol lookup, its ELF file and
 * separate debug file. Symbols come from the file's .symtab, then the debug file's .symtab, then the
 * file's .dynsym (the core backend's order).
 *
 * <p>The file is the first of these whose build-id matches the one in memory: the path the process
 * mapped; the same path inside the process's mount namespace ({@code /proc/PID/root/...}, for
 * containers); the mapped inode itself ({@code /proc/PID/map_files/...}, which also reaches deleted or
 * replaced files but needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE).
 */
final class LiveModule implements LinkMap.Module, AutoCloseable {
    private static final String DELETED_SUFFIX = " (deleted)";

    private final String targetPath;
    /** Asked of every module at each symbol look-up by module name. */
    private final String fileName;
    private final List<ProcFs.Mapping> mappings;
    private final long loadBias;
    private final Optional<String> memoryBuildId;
    private final OptionalLong dynamicSectionAddress;
    private final int pid;
    private final DebugFileSearch debugFileSearch;
    /** Files shared with other processes' modules (their owner closes them), when the caller gave a cache. */
    private final Optional<ModuleFileCache> shared;

    private boolean opened;
    private Optional<ElfFile> file = Optional.empty();
    private Optional<ElfFile> debugFile = Optional.empty();
    private BuildIdMismatchException mismatch;
    private final List<ElfFile> toClose = new ArrayList<>();

    LiveModule(int pid, String targetPath, List<ProcFs.Mapping> mappings, long loadBias, Optional<String> memoryBuildId,
               OptionalLong dynamicSectionAddress, DebugFileSearch debugFileSearch, Optional<ModuleFileCache> shared) {
        this.targetPath = targetPath;
        this.fileName = fileNameOf(targetPath);
        this.mappings = List.copyOf(mappings);
        this.loadBias = loadBias;
        this.memoryBuildId = memoryBuildId;
        this.dynamicSectionAddress = dynamicSectionAddress;
        this.debugFileSearch = debugFileSearch;
        this.shared = shared;
        this.pid = pid;
    }

    /** How many places {@link #fileCandidate} knows. */
    private static final int FILE_CANDIDATES = 3;

    /**
     * Where the module's file may be, in order: the path the process mapped; the same path inside its mount namespace;
     * the mapped inode itself. Made one at a time, when the ones before did not serve (a job's ranks open every module
     * of every rank, almost always at the first place).
     */
    private Optional<Path> fileCandidate(int which) {
        boolean deleted = targetPath.endsWith(DELETED_SUFFIX);
        String path = deleted ? targetPath.substring(0, targetPath.length() - DELETED_SUFFIX.length()) : targetPath;
        boolean plainPath = !deleted && path.startsWith("/") && path.indexOf('\0') < 0;
        if (which == 0) {
            return plainPath ? Optional.of(Path.of(path)) : Optional.empty();
        }
        if (which == 1) {
            return plainPath ? Optional.of(ProcFs.processDirectory(pid).resolve("root").resolve(path.substring(1))) : Optional.empty();
        }
        for (ProcFs.Mapping mapping : mappings) {
            if (mapping.offset() == 0) {
                return Optional.of(ProcFs.processDirectory(pid).resolve("map_files")
                        .resolve(Long.toHexString(mapping.start()) + "-" + Long.toHexString(mapping.end())));
            }
        }
        return Optional.empty();
    }

    String targetPath() { return targetPath; }

    /** The module's file name, as symbols and messages name modules ("libomp.so"). */
    @Override
    public String fileName() {
        return fileName;
    }

    private static String fileNameOf(String targetPath) {
        String path = targetPath.endsWith(DELETED_SUFFIX)
                ? targetPath.substring(0, targetPath.length() - DELETED_SUFFIX.length()) : targetPath;
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    long loadBias() { return loadBias; }

    @Override
    public OptionalLong dynamicSectionAddress() { return dynamicSectionAddress; }

    @Override
    public boolean contains(long address) {
        for (ProcFs.Mapping mapping : mappings) {
            if (mapping.contains(address)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public LoadedModule toLoadedModule() {
        return new LoadedModule(Path.of(targetPath), loadBias, memoryBuildId);
    }

    /**
     * The defined symbol called {@code name}, with the load bias applied.
     *
     * @throws BuildIdMismatchException when no file matching the mapped module can be found, but one
     *                                   with another build-id can (the file was replaced after the
     *                                   process loaded it)
     */
    @Override
    public synchronized Optional<TargetSymbol> lookupSymbol(String name) {
        open();
        if (mismatch != null) {
            throw mismatch;
        }
        return ModuleFiles.lookup(file, debugFile, name, loadBias, fileName());
    }

    private void open() {
        if (opened) {
            return;
        }
        opened = true;
        List<BuildIdMismatchException.Candidate> mismatches = new ArrayList<>();
        for (int which = 0; which < FILE_CANDIDATES; which++) {
            Optional<Path> place = fileCandidate(which);
            if (place.isEmpty()) {
                continue;
            }
            Path candidate = place.get();
            Optional<ElfFile> elf = openElf(candidate);
            if (elf.isEmpty()) {
                continue;
            }
            Optional<String> fileBuildId = ModuleFiles.buildIdOf(elf.get());
            if (memoryBuildId.isEmpty() || memoryBuildId.equals(fileBuildId)) {
                file = elf;
                closeLater(elf.get());
                break;
            }
            closeNow(elf.get());
            mismatches.add(new BuildIdMismatchException.Candidate(candidate, fileBuildId));
        }
        if (file.isEmpty() && !mismatches.isEmpty()) {
            mismatch = BuildIdMismatchException.ofProcess(fileName(), memoryBuildId.orElse("?"), mismatches);
            return;
        }
        Optional<String> buildId = memoryBuildId.or(() -> file.flatMap(ModuleFiles::buildIdOf));
        debugFile = findDebugFile(buildId);
    }

    private Optional<ElfFile> openElf(Path path) {
        if (shared.isPresent()) {
            return shared.get().open(path); // opens nothing that is not a readable regular ELF file
        }
        if (!Files.isReadable(path)) {
            return Optional.empty();
        }
        try {
            return Optional.of(ElfFile.open(path));
        } catch (IOException | ElfFormatException | SecurityException e) {
            return Optional.empty();
        }
    }

    private Optional<ElfFile> findDebugFile(Optional<String> buildId) {
        if (shared.isPresent() && file.isPresent()) {
            // once per module file and build-id for every process that maps it (a search may read many files)
            return shared.get().derived(file.get(), "debug file " + buildId.orElse("-"),
                    () -> ModuleFiles.findDebugFile(debugFileSearch, file, buildId, this::openElf, this::closeNow));
        }
        Optional<ElfFile> debug = ModuleFiles.findDebugFile(debugFileSearch, file, buildId, this::openElf, this::closeNow);
        debug.ifPresent(this::closeLater);
        return debug;
    }

    private void closeLater(ElfFile elf) {
        if (shared.isEmpty()) {
            toClose.add(elf);
        }
    }

    private void closeNow(ElfFile elf) {
        if (shared.isEmpty()) {
            elf.close();
        }
    }

    @Override
    public synchronized void close() {
        toClose.forEach(ElfFile::close);
        toClose.clear();
        file = Optional.empty();
        debugFile = Optional.empty();
    }

    @Override
    public String toString() {
        return "%s (bias 0x%x%s)".formatted(targetPath, loadBias, memoryBuildId.map(id -> ", build-id " + id).orElse(""));
    }
}
