package dev.jompd.core.unwind;

import dev.jompd.core.dwarf.CallFrameInfo;
import dev.jompd.core.dwarf.DebugSections;
import dev.jompd.core.dwarf.FunctionScopes;
import dev.jompd.core.dwarf.LineTable;
import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.ProgramHeader;
import dev.jompd.core.target.LinkMap;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

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
    private Optional<CallFrameInfo> ehFrame;
    private Optional<CallFrameInfo> debugFrame;
    private Optional<FunctionScopes> scopes;
    private Optional<LineTable> lines;

    ModuleDebugInfo(Path path, Optional<String> buildId, List<Path> debugDirectories) {
        this.path = path;
        Optional<ElfFile> opened = open(path);
        this.file = opened;
        Optional<String> id = buildId.or(() -> opened.flatMap(LinkMap::buildIdOf));
        this.debugFile = id.flatMap(build -> LinkMap.findDebugFile(build, debugDirectories, ModuleDebugInfo::open, ElfFile::close));
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

    /** Parts of the module's debug data that could not be read, and why. */
    public Map<String, String> problems() { return Map.copyOf(problems); }

    /** {@code .eh_frame} of the module file itself (always the loaded one). */
    public synchronized Optional<CallFrameInfo> ehFrame() {
        if (ehFrame == null) {
            ehFrame = guarded(".eh_frame", () -> file.flatMap(elf -> {
                DebugSections sections = new DebugSections(elf);
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
                    Optional<ByteView> bytes = new DebugSections(elf).section(".debug_frame");
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
                    Optional<FunctionScopes> found = FunctionScopes.of(new DebugSections(elf));
                    if (found.isPresent()) {
                        return found;
                    }
                }
                return Optional.empty();
            });
        }
        return scopes;
    }

    /** The line table: parsed with the scopes when there is {@code .debug_info}, alone otherwise. */
    public synchronized Optional<LineTable> lines() {
        if (lines == null) {
            Optional<FunctionScopes> withInfo = scopes();
            lines = withInfo.isPresent() ? withInfo.get().lines() : guarded(".debug_line", () -> {
                for (ElfFile elf : filesWithDebugData()) {
                    DebugSections sections = new DebugSections(elf);
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
