package dev.jompd.core.unwind;

import dev.jompd.core.dwarf.CallFrameInfo;
import dev.jompd.core.dwarf.DebugSections;
import dev.jompd.core.dwarf.FunctionScopes;
import dev.jompd.core.dwarf.LineTable;
import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.elf.ProgramHeader;
import dev.jompd.core.target.ModuleFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * What one module file (and its separate debug file) says about unwinding and source: the loadable
 * segments, call frame information, function scopes and line table. Each part is parsed on first use
 * and kept; a part that cannot be read is simply absent, and {@link #problems()} says why.
 * Shared across stops by {@link DebugInfoCache} while the file stays the same.
 */
public final class ModuleDebugInfo implements AutoCloseable {
    private final Path path;
    private final Optional<ElfFile> file;
    private final Optional<ElfFile> debugFile;
    private final long[] segments;
    private final Map<String, String> problems = new ConcurrentHashMap<>();
    private final Map<ElfFile, DebugSections> sections = new ConcurrentHashMap<>();
    private Optional<CallFrameInfo> ehFrame;
    private Optional<CallFrameInfo> debugFrame;
    private Optional<FunctionScopes> scopes;
    private Optional<LineTable> lines;
    /** Scope frames already found, by file address (what a stop's threads share). */
    private final Map<Long, List<SourceLocator.ScopeFrame>> scopeFrames = new ConcurrentHashMap<>();
    private static final int MAX_CACHED_ADDRESSES = 1 << 16;

    ModuleDebugInfo(Path path, Optional<String> buildId, List<Path> debugDirectories) {
        this.path = path;
        Optional<ElfFile> opened = open(path);
        this.file = opened;
        Optional<String> id = buildId.or(() -> opened.flatMap(ModuleFiles::buildIdOf));
        this.debugFile = id.flatMap(build -> ModuleFiles.findDebugFile(build, debugDirectories, ModuleDebugInfo::open, ElfFile::close));
        List<Long> ranges = new ArrayList<>();
        opened.ifPresent(elf -> {
            for (ProgramHeader segment : elf.programHeaders(ProgramHeader.PT_LOAD)) {
                if ((segment.flags() & ProgramHeader.PF_X) != 0) {
                    ranges.add(segment.virtualAddress());
                    ranges.add(segment.virtualAddress() + segment.memorySize());
                }
            }
        });
        this.segments = ranges.stream().mapToLong(Long::longValue).toArray();
    }

    private static Optional<ElfFile> open(Path path) {
        try {
            return Optional.of(ElfFile.open(path));
        } catch (IOException | ElfFormatException e) {
            return Optional.empty();
        }
    }

    public Path path() { return path; }

    /** Whether a separate debug file was found for the module. */
    public boolean hasDebugFile() { return debugFile.isPresent(); }

    /** The executable segments' file addresses, as [start, end) pairs. */
    long[] executableSegments() { return segments; }

    /** The scope frames of a file address, computed once. */
    List<SourceLocator.ScopeFrame> scopeFrames(long fileAddress, LongFunction<List<SourceLocator.ScopeFrame>> compute) {
        List<SourceLocator.ScopeFrame> cached = scopeFrames.get(fileAddress);
        if (cached != null) {
            return cached;
        }
        List<SourceLocator.ScopeFrame> found = List.copyOf(compute.apply(fileAddress));
        if (scopeFrames.size() >= MAX_CACHED_ADDRESSES) {
            scopeFrames.clear();
        }
        scopeFrames.put(fileAddress, found);
        return found;
    }

    /** Parts of the module's debug data that could not be read, and why. */
    public Map<String, String> problems() { return Map.copyOf(problems); }

    /** {@code .eh_frame} of the module file itself (always the loaded one). */
    public synchronized Optional<CallFrameInfo> ehFrame() {
        if (ehFrame == null) {
            ehFrame = guarded(".eh_frame", () -> file.flatMap(elf -> {
                DebugSections sections = sectionsOf(elf);
                Optional<ByteView> bytes = sections.section(".eh_frame");
                return bytes.map(view -> CallFrameInfo.ehFrame(view, sections.address(".eh_frame"),
                        sections.section(".eh_frame_hdr"), sections.address(".eh_frame_hdr")));
            }));
        }
        return ehFrame;
    }

    /** {@code .debug_frame}, from the module file or its debug file. */
    public synchronized Optional<CallFrameInfo> debugFrame() {
        if (debugFrame == null) {
            debugFrame = guarded(".debug_frame", () -> {
                for (ElfFile elf : filesWithDebugData()) {
                    Optional<ByteView> bytes = sectionsOf(elf).section(".debug_frame");
                    if (bytes.isPresent()) {
                        return Optional.of(CallFrameInfo.debugFrame(bytes.get()));
                    }
                }
                return Optional.empty();
            });
        }
        return debugFrame;
    }

    /** Function and inlined-call scopes from {@code .debug_info} (the debug file's first). */
    public synchronized Optional<FunctionScopes> scopes() {
        if (scopes == null) {
            scopes = guarded(".debug_info", () -> {
                for (ElfFile elf : filesWithDebugData()) {
                    Optional<FunctionScopes> found = FunctionScopes.of(sectionsOf(elf));
                    if (found.isPresent()) {
                        return found;
                    }
                }
                return Optional.empty();
            });
        }
        return scopes;
    }

    /**
     * The line table row of a file address: from its compilation unit's line program when the module
     * has {@code .debug_info} (only the units asked about are parsed), else from the whole
     * {@code .debug_line}.
     */
    public Optional<LineTable.Row> lineAt(long fileAddress) {
        Optional<FunctionScopes> withInfo = scopes();
        if (withInfo.isPresent()) {
            return withInfo.get().lineAt(fileAddress);
        }
        return wholeLineTable().flatMap(table -> table.lookup(fileAddress));
    }

    private synchronized Optional<LineTable> wholeLineTable() {
        if (lines == null) {
            lines = guarded(".debug_line", () -> {
                for (ElfFile elf : filesWithDebugData()) {
                    DebugSections sections = sectionsOf(elf);
                    Optional<ByteView> bytes = sections.section(".debug_line");
                    if (bytes.isPresent()) {
                        return Optional.of(LineTable.parse(bytes.get(), sections.section(".debug_line_str"),
                                sections.section(".debug_str"), Map.of()));
                    }
                }
                return Optional.empty();
            });
        }
        return lines;
    }

    /** The file address of a symbol, looked up as debuggers do (.symtab, the debug file's, .dynsym). */
    public OptionalLong addressOf(String name) {
        try {
            return ModuleFiles.lookup(file, debugFile, name, 0, path.getFileName().toString())
                    .map(symbol -> OptionalLong.of(symbol.address())).orElse(OptionalLong.empty());
        } catch (ElfFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** A function symbol covering a file address, as {@code name} and offset, from the module's own file. */
    public Optional<Map.Entry<String, Long>> symbolAt(long fileAddress) {
        SymbolTable table = symbols();
        int low = 0;
        int high = table.starts.length - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(table.starts[mid], fileAddress) <= 0) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        if (found < 0 || Long.compareUnsigned(fileAddress - table.starts[found], Math.max(table.sizes[found], 1)) >= 0) {
            return Optional.empty();
        }
        return Optional.of(Map.entry(table.names[found], fileAddress - table.starts[found]));
    }

    private record SymbolTable(long[] starts, long[] sizes, String[] names) {}

    private SymbolTable symbolTable;

    /**
     * The function symbols where gdb finds them: the file's {@code .symtab}, else the separate debug
     * file's, else {@code .dynsym} (aliases at one address: the greatest name), kept across stops.
     */
    private synchronized SymbolTable symbols() {
        if (symbolTable == null) {
            List<ElfSymbol> functions = new ArrayList<>();
            try {
                List<dev.jompd.core.elf.ElfSymbolTable> tables = new ArrayList<>();
                file.ifPresent(elf -> tables.add(elf.symbolTable()));
                debugFile.ifPresent(elf -> tables.add(elf.symbolTable())); // glibc's local symbols (__restore_rt)
                file.ifPresent(elf -> tables.add(elf.dynamicSymbolTable()));
                {
                    for (var table : tables) {
                        for (var symbol : table.all()) {
                            if (symbol.type() == ElfSymbol.STT_FUNC && symbol.value() != 0
                                    && !symbol.name().isEmpty()) {
                                functions.add(symbol);
                            }
                        }
                        if (!functions.isEmpty()) {
                            break;
                        }
                    }
                }
            } catch (ElfFormatException e) {
                problems.put("symbols", e.getMessage());
            }
            // by address, then name; a lambda of ours, not Comparator.comparingLong(…).thenComparing(…): the
            // ahead-of-time cache holds ours, not those the JDK's own default methods make (cold start)
            functions.sort((a, b) -> {
                int byValue = Long.compare(a.value(), b.value());
                return byValue != 0 ? byValue : a.name().compareTo(b.name());
            });
            symbolTable = new SymbolTable(functions.stream().mapToLong(ElfSymbol::value).toArray(),
                    functions.stream().mapToLong(ElfSymbol::size).toArray(),
                    functions.stream().map(ElfSymbol::name).toArray(String[]::new));
        }
        return symbolTable;
    }

    /** One DebugSections a file, so its memory budget covers all that is read of that file. */
    private DebugSections sectionsOf(ElfFile elf) {
        return sections.computeIfAbsent(elf, DebugSections::new);
    }

    private List<ElfFile> filesWithDebugData() {
        List<ElfFile> files = new ArrayList<>(2);
        debugFile.ifPresent(files::add);
        file.ifPresent(files::add);
        return files;
    }

    private interface Loader<T> {
        Optional<T> load();
    }

    private <T> Optional<T> guarded(String part, Loader<T> loader) {
        try {
            return loader.load();
        } catch (ElfFormatException e) {
            problems.put(part, e.getMessage());
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        file.ifPresent(ElfFile::close);
        debugFile.ifPresent(ElfFile::close);
    }
}
