package dev.jompd.core.target.core;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.ElfHeader;
import dev.jompd.core.elf.InMemoryElf;
import dev.jompd.core.elf.MappedFile;
import dev.jompd.core.elf.ProgramHeader;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.BuildIdMismatchException;
import dev.jompd.core.target.FileBackedAddressSpace;
import dev.jompd.core.target.LinkMap;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.debug.DebugFileSearch;
import dev.jompd.core.target.debug.DebuginfodClient;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An x86-64 Linux core file (as the kernel or gdb's {@code gcore} writes it) seen as an address space.
 *
 * <p><b>Memory</b> is a spliced view ({@link SplicedMemory}): the core's PT_LOAD segments on top, the
 * files the target had mapped (the NT_FILE note) underneath. Bytes found in neither raise
 * {@link MemoryReadException}.
 *
 * <p><b>Threads</b> come from the NT_PRSTATUS notes, the first being the thread that dumped.
 * <b>Modules</b> are the mapped ELF files, with the load bias worked out from the ELF headers in the
 * core's memory (or, failing that, in the file); the executable is the module holding AT_ENTRY, then
 * come the libraries in the dynamic linker's load order (its link map), then any others.
 * <b>Symbols</b> come from each module's file on disk (.symtab, then a separate debug file found by
 * build-id, then .dynsym), opened on first lookup.
 *
 * <p><b>Build-ids</b>: when the core's memory holds a module's build-id and the file found on disk has
 * another, the file is not used: symbol lookups in that module throw {@link BuildIdMismatchException},
 * and reads that need the file throw {@link MemoryReadException} saying so.
 *
 * <p>The core is memory-mapped, never read whole, so opening even a large core takes milliseconds.
 * A malformed core raises {@link ElfFormatException}. Thread-safe; {@link #close()} unmaps every file.
 */
public final class CoreFileAddressSpace implements FileBackedAddressSpace {
    private static final String DELETED_SUFFIX = " (deleted)";
    /** Kernel interfaces, not files: a damaged core must not make us map /dev/mem or a PCI BAR. */
    private static final List<String> KERNEL_INTERFACE_DIRECTORIES = List.of("/proc/", "/sys/", "/dev/");

    private final Path corePath;
    private final String name;
    private final ElfFile core;
    private final CoreNotes notes;
    private final SplicedMemory memory;
    private final Optional<Path> explicitExecutable;
    private final List<Path> solibSearchPath;
    private final Map<Path, DiskFile> diskFiles = new ConcurrentHashMap<>();
    private final Map<Path, ElfFile> elfFiles = new ConcurrentHashMap<>();
    private final List<CoreModule> modules;
    private final Map<String, CoreModule> modulesByTargetPath = new LinkedHashMap<>();
    private final Optional<CoreModule> executable;

    /** A file named by the core, mapped on first use, or why it could not be. */
    private record DiskFile(Optional<MappedFile> file, String problem) {}

    /** Options for opening a core; defaults: files where the target mapped them, debug files in /usr/lib/debug. */
    public static final class Builder {
        private final Path core;
        private Optional<Path> executable = Optional.empty();
        private List<Path> solibSearchPath = List.of();
        private DebugFileSearch debugFileSearch = DebugFileSearch.standard();

        private Builder(Path core) {
            this.core = Objects.requireNonNull(core);
        }

        /** Use this file as the executable instead of the path the core records. */
        public Builder withExecutable(Path executable) {
            this.executable = Optional.of(executable);
            return this;
        }

        /**
         * Look for mapped files (shared libraries, and the executable unless given explicitly) by file
         * name in these directories first, like gdb's {@code solib-search-path}; a file not found there
         * is taken from the path the core records.
         */
        public Builder withSolibSearchPath(List<Path> directories) {
            this.solibSearchPath = List.copyOf(directories);
            return this;
        }

        /**
         * Where separate debug files live, as {@code DIR/.build-id/xx/yyyy.debug} (gdb's
         * {@code debug-file-directory}); an empty list disables them.
         */
        public Builder withDebugFileDirectories(List<Path> directories) {
            this.debugFileSearch = debugFileSearch.withDirectories(directories);
            return this;
        }

        /** Debug files from these debuginfod servers (default: as {@code DEBUGINFOD_URLS} says); empty: none. */
        public Builder withDebuginfod(Optional<DebuginfodClient> client) {
            this.debugFileSearch = debugFileSearch.withDebuginfod(client);
            return this;
        }

        /**
         * Opens the core.
         *
         * @throws TargetException    when the core cannot be read (the cause is the IOException)
         * @throws ElfFormatException when it is not a well-formed x86-64 ELF core file
         */
        public CoreFileAddressSpace open() {
            if (executable.isPresent() && !Files.isRegularFile(executable.get())) {
                // Fail now: otherwise every lookup in the executable would quietly find nothing.
                throw new TargetException("core:%s: the executable %s given for it is not a readable file"
                        .formatted(core, executable.get()));
            }
            ElfFile coreFile;
            try {
                coreFile = ElfFile.open(core);
            } catch (IOException e) {
                throw new TargetException("core:%s: cannot open the core: %s".formatted(core, e), e);
            }
            try {
                return new CoreFileAddressSpace(this, coreFile);
            } catch (RuntimeException e) {
                coreFile.close();
                throw e;
            }
        }
    }

    /** Options for opening {@code core}; finish with {@link Builder#open()}. */
    public static Builder builder(Path core) {
        return new Builder(core);
    }

    /**
     * Opens {@code core} with the default options.
     *
     * @throws TargetException    when the core cannot be read (the cause is the IOException)
     * @throws ElfFormatException when it is not a well-formed x86-64 ELF core file
     */
    public static CoreFileAddressSpace open(Path core) {
        return builder(core).open();
    }

    private CoreFileAddressSpace(Builder options, ElfFile core) {
        this.corePath = options.core;
        this.name = "core:" + options.core;
        this.core = core;
        this.explicitExecutable = options.executable;
        this.solibSearchPath = options.solibSearchPath;
        ElfHeader header = core.header();
        if (header.type() != ElfHeader.ET_CORE) {
            throw new ElfFormatException(core.bytes().source(), "not a core file (ELF type %d)".formatted(header.type()));
        }
        if (header.machine() != ElfHeader.EM_X86_64) {
            throw new ElfFormatException(core.bytes().source(),
                    "not an x86-64 core (machine %d); only x86-64 is supported".formatted(header.machine()));
        }
        this.notes = CoreNotes.parse(core.notes());

        this.memory = new SplicedMemory(name, core.bytes(), core.programHeaders(ProgramHeader.PT_LOAD),
                notes.fileMappings(), this::mappedFileBytes);

        ModuleDiscovery discovery = discoverModules(options.debugFileSearch);
        this.executable = discovery.executable();
        discovery.modules().forEach(module -> modulesByTargetPath.putIfAbsent(module.targetPath(), module));
        this.modules = List.copyOf(LinkMap.inLoadOrder(discovery.executable(), discovery.modules(), this::readU64));
    }

    // ---------------------------------------------------------------- AddressSpace

    @Override
    public String name() { return name; }

    @Override
    public String described() { return "the core file " + corePath; }

    @Override
    public void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
        memory.read(address, buffer, offset, length);
    }

    @Override
    public List<? extends LinkMap.Module> modulesInLoadOrder() {
        return modules;
    }

    @Override
    public Optional<Path> moduleFile(LoadedModule module) {
        return modules.stream().filter(m -> m.targetPath().equals(module.path().toString())).findFirst()
                .flatMap(CoreModule::diskPath).filter(Files::isRegularFile);
    }

    @Override
    public List<TargetThread> threads() { return notes.threads(); }

    @Override
    public void close() {
        elfFiles.values().forEach(ElfFile::close);
        diskFiles.values().forEach(disk -> disk.file().ifPresent(MappedFile::close));
        core.close();
    }

    // ---------------------------------------------------------------- beyond AddressSpace

    /** The core file. */
    public Path corePath() { return corePath; }

    /** The executable's module, when the core lets us tell which module it is. */
    public Optional<LoadedModule> executable() { return executable.map(CoreModule::toLoadedModule); }

    /** The program's name as the kernel recorded it (NT_PRPSINFO, at most 15 characters). */
    public Optional<String> programName() { return notes.programName(); }

    /** The process id (NT_PRPSINFO). */
    public OptionalLong processId() { return notes.processId(); }

    @Override
    public String toString() {
        return name;
    }

    // ---------------------------------------------------------------- reading

    /** The bytes of the file behind {@code mapping}, checked against the core's build-id if it is a module. */
    private ByteView mappedFileBytes(FileMapping mapping, long address, int length) {
        CoreModule module = modulesByTargetPath.get(mapping.path());
        if (module != null) {
            try {
                Optional<ElfFile> file = module.verifiedDiskFile();
                if (file.isPresent()) {
                    return file.get().bytes();
                }
            } catch (BuildIdMismatchException | ElfFormatException e) {
                throw new MemoryReadException(name, address, length, "not in the core, and " + e.getMessage());
            }
        }
        boolean isExecutable = module != null && executable.isPresent() && executable.get() == module;
        Optional<Path> path = diskPathFor(mapping.path(), isExecutable);
        if (path.isEmpty()) {
            throw new MemoryReadException(name, address, length, "not in the core, and the mapped file %s is gone".formatted(mapping.path()));
        }
        DiskFile disk = diskFile(path.get());
        return disk.file().map(MappedFile::bytes).orElseThrow(() -> new MemoryReadException(name, address, length,
                "not in the core, and the mapped file cannot be read: " + disk.problem()));
    }

    // ---------------------------------------------------------------- files on disk

    /** Where to find the file the target mapped from {@code targetPath}, honouring the options. */
    private Optional<Path> diskPathFor(String targetPath, boolean isExecutable) {
        if (isExecutable && explicitExecutable.isPresent()) {
            return explicitExecutable;
        }
        boolean deleted = targetPath.endsWith(DELETED_SUFFIX);
        String livePath = deleted ? targetPath.substring(0, targetPath.length() - DELETED_SUFFIX.length()) : targetPath;
        int slash = livePath.lastIndexOf('/');
        String fileName = livePath.substring(slash + 1);
        if (!fileName.isEmpty() && !fileName.equals(".") && !fileName.equals("..") && fileName.indexOf('\0') < 0) {
            for (Path directory : solibSearchPath) {
                Path candidate = directory.resolve(fileName);
                if (Files.isRegularFile(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        // A deleted file's path now names another file, or none: only the search path can help.
        if (deleted || livePath.isEmpty() || livePath.indexOf('\0') >= 0) {
            return Optional.empty();
        }
        return Optional.of(Path.of(livePath));
    }

    private DiskFile diskFile(Path path) {
        return diskFiles.computeIfAbsent(path, CoreFileAddressSpace::mapFile);
    }

    private static DiskFile mapFile(Path path) {
        try {
            Path realPath = path.toRealPath();
            String real = realPath.toString();
            if (KERNEL_INTERFACE_DIRECTORIES.stream().anyMatch(real::startsWith)) {
                return new DiskFile(Optional.empty(), path + " is a kernel interface, not a file");
            }
            return new DiskFile(Optional.of(MappedFile.open(realPath)), "");
        } catch (IOException | RuntimeException e) {
            return new DiskFile(Optional.empty(), path + ": " + e);
        }
    }

    /**
     * The ELF file at {@code path}, shared by every module and read that needs it; empty when the file
     * cannot be read.
     *
     * @throws ElfFormatException when the file exists but is not a well-formed ELF file
     */
    private Optional<ElfFile> elfFile(Path path) {
        Optional<MappedFile> file = diskFile(path).file();
        if (file.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(elfFiles.computeIfAbsent(path, unused -> ElfFile.of(file.get())));
    }

    // ---------------------------------------------------------------- modules

    private record ModuleDiscovery(List<CoreModule> modules, Optional<CoreModule> executable) {}

    private ModuleDiscovery discoverModules(DebugFileSearch debugFileDirectories) {
        Map<String, List<FileMapping>> mappingsByPath = new LinkedHashMap<>();
        for (FileMapping mapping : notes.fileMappings()) {
            mappingsByPath.computeIfAbsent(mapping.path(), unused -> new ArrayList<>()).add(mapping);
        }
        String executablePath = executablePath(mappingsByPath);

        List<CoreModule> found = new ArrayList<>();
        CoreModule executableModule = null;
        for (Map.Entry<String, List<FileMapping>> entry : mappingsByPath.entrySet()) {
            boolean isExecutable = entry.getKey().equals(executablePath);
            Optional<FileMapping> headerMapping = entry.getValue().stream().filter(m -> m.fileOffset() == 0).findFirst();
            if (headerMapping.isEmpty()) {
                continue; // ld.so maps every ELF file from offset 0: this is not one
            }
            Optional<Path> diskPath = diskPathFor(entry.getKey(), isExecutable);
            Optional<InMemoryElf.Layout> layout = layoutInCore(headerMapping.get().start())
                    .or(() -> diskPath.flatMap(path -> layoutOnDisk(path, headerMapping.get().start())));
            if (layout.isEmpty()) {
                continue;
            }
            CoreModule module = new CoreModule(entry.getKey(), entry.getValue(), layout.get().loadBias(),
                    layout.get().buildId(), layout.get().dynamicSectionAddress(), diskPath, this::elfFile,
                    debugFileDirectories);
            found.add(module);
            if (isExecutable) {
                executableModule = module;
            }
        }
        if (executableModule == null && explicitExecutable.isPresent()) {
            // The core names no executable we recognise (no NT_FILE note, say): place the given file
            // by the auxiliary vector.
            executableModule = explicitExecutableModule(explicitExecutable.get(), debugFileDirectories).orElse(null);
            if (executableModule != null) {
                found.addFirst(executableModule);
            }
        }
        return new ModuleDiscovery(found, Optional.ofNullable(executableModule));
    }

    /** The executable's path: the file mapped at AT_ENTRY (or AT_PHDR), else the first mapped file. */
    private String executablePath(Map<String, List<FileMapping>> mappingsByPath) {
        for (long type : new long[] {CoreNotes.AT_ENTRY, CoreNotes.AT_PHDR}) {
            OptionalLong address = notes.auxiliaryValue(type);
            if (address.isPresent()) {
                Optional<FileMapping> mapping = memory.mappingAt(address.getAsLong());
                if (mapping.isPresent()) {
                    return mapping.get().path();
                }
            }
        }
        return mappingsByPath.isEmpty() ? null : mappingsByPath.keySet().iterator().next();
    }

    /** The layout the ELF headers the core itself holds at {@code headerAddress} describe, with the build-id. */
    private Optional<InMemoryElf.Layout> layoutInCore(long headerAddress) {
        return InMemoryElf.read(memory::readCoreOnly, headerAddress, name);
    }

    private Optional<InMemoryElf.Layout> layoutOnDisk(Path path, long headerAddress) {
        try {
            Optional<MappedFile> file = diskFile(path).file();
            if (file.isEmpty() || !ElfHeader.hasElfMagic(file.get().bytes())) {
                return Optional.empty(); // a data file (locale archive, font cache), not a module
            }
            ElfFile elf = elfFile(path).orElseThrow();
            return InMemoryElf.placed(elf.header(), elf.programHeaders(), headerAddress);
        } catch (ElfFormatException e) {
            return Optional.empty(); // not an ELF file we can use as a module
        }
    }

    private Optional<CoreModule> explicitExecutableModule(Path path, DebugFileSearch debugFileDirectories) {
        Optional<ElfFile> elf = elfFile(path);
        if (elf.isEmpty()) {
            return Optional.empty();
        }
        OptionalLong phdr = notes.auxiliaryValue(CoreNotes.AT_PHDR);
        Optional<ProgramHeader> phdrSegment = elf.get().programHeaders().stream()
                .filter(ph -> ph.type() == ProgramHeader.PT_PHDR).findFirst();
        OptionalLong entry = notes.auxiliaryValue(CoreNotes.AT_ENTRY);
        long loadBias = phdr.isPresent() && phdrSegment.isPresent()
                ? phdr.getAsLong() - phdrSegment.get().virtualAddress()
                : entry.isPresent() ? entry.getAsLong() - elf.get().header().entry() : 0;
        return Optional.of(new CoreModule(path.toString(), List.of(), loadBias, Optional.empty(), OptionalLong.empty(),
                Optional.of(path), this::elfFile, debugFileDirectories));
    }

}
