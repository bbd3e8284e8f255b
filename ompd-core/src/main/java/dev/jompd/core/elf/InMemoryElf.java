package dev.jompd.core.elf;

import dev.jompd.core.target.X86_64;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A module's ELF headers as the target's memory holds them: where the dynamic linker placed the module
 * (its load bias), its dynamic section, and the build-id the target really runs. One reader for every
 * backend that has the target's memory (a core's segments, a live process); the file on disk may be
 * another build, so only these bytes say which build was loaded.
 *
 * <p>Every read is bounded: at most {@value #MAX_PROGRAM_HEADERS} program headers and
 * {@value #MAX_NOTE_BYTES} bytes per note segment. Damaged or unreadable headers give no layout, never an
 * exception: the caller then asks the file on disk, or does without the module.
 */
public final class InMemoryElf {
    /** ld.so maps a module's lowest segment page-aligned. */
    private static final long PAGE_SIZE = X86_64.PAGE_SIZE;
    static final int MAX_PROGRAM_HEADERS = 1024;
    static final long MAX_NOTE_BYTES = 64 * 1024;

    private InMemoryElf() {}

    /** The target's memory: {@code length} bytes at {@code address}, or empty when any of them cannot be read. */
    @FunctionalInterface
    public interface Memory {
        Optional<byte[]> read(long address, int length);
    }

    /**
     * Where a module lies in the target.
     *
     * @param loadBias              what to add to the file's virtual addresses to get run-time addresses
     * @param dynamicSectionAddress the run-time address of PT_DYNAMIC, when the module has one
     * @param buildId               the GNU build-id in the target's memory (hex), when it holds one
     */
    public record Layout(long loadBias, OptionalLong dynamicSectionAddress, Optional<String> buildId) {}

    /**
     * The layout the ELF headers at {@code headerAddress} in the target's memory describe, with the
     * build-id; empty when there is no ELF header there, or it or its program headers are unreadable or
     * damaged, or it is not an executable or shared object.
     *
     * @param source names the target in messages of the parsers
     */
    public static Optional<Layout> read(Memory memory, long headerAddress, String source) {
        Optional<byte[]> headerBytes = memory.read(headerAddress, ElfHeader.SIZE);
        if (headerBytes.isEmpty() || !ElfHeader.hasElfMagic(ByteView.of(headerBytes.get(), source))) {
            return Optional.empty();
        }
        try {
            ElfHeader header = ElfHeader.parse(ByteView.of(headerBytes.get(), source));
            int count = header.programHeaderCount();
            if (count == 0 || count > MAX_PROGRAM_HEADERS || header.programHeaderEntrySize() != ProgramHeader.SIZE) {
                return Optional.empty();
            }
            Optional<byte[]> table = memory.read(headerAddress + header.programHeaderOffset(), count * ProgramHeader.SIZE);
            if (table.isEmpty()) {
                return Optional.empty();
            }
            List<ProgramHeader> programHeaders = parseProgramHeaders(ByteView.of(table.get(), source), count);
            return placed(header, programHeaders, headerAddress).map(layout -> new Layout(
                    layout.loadBias(), layout.dynamicSectionAddress(), buildId(memory, programHeaders, layout.loadBias(), source)));
        } catch (ElfFormatException e) {
            return Optional.empty(); // damaged headers in memory
        }
    }

    /**
     * Layouts remembered by the bytes they were read from, for many processes that map the same files (the ranks of
     * a job): a module whose first page in memory is byte for byte the page another process's module was read from
     * has the same layout relative to where that page lies, so it is not parsed again. Only a layout read entirely
     * from that page is remembered (headers or notes beyond it are read from each process, as {@link #read} does).
     * Thread-safe.
     */
    public static final class Layouts {
        /** The last page seen per key and what it said: where the module's lowest page lies, its dynamic section, build-id. */
        private record Remembered(byte[] page, Optional<Relative> layout) {}

        /** A layout relative to the address of the module's first page. */
        private record Relative(long lowestPageVirtualAddress, OptionalLong dynamicSectionOffset, Optional<String> buildId) {}

        private final Map<String, Remembered> byKey = new ConcurrentHashMap<>();

        /**
         * What {@link #read} answers for the module whose file offset 0 is mapped at {@code headerAddress}, given that
         * mapping's first bytes {@code firstPage} (up to a page; never changed afterwards), read from {@code memory}.
         *
         * @param key names the mapped file (path and inode, say): it only chooses which remembered page to compare with
         */
        public Optional<Layout> read(String key, byte[] firstPage, Memory memory, long headerAddress, String source) {
            // no lambdas here: each would be spun at run time in every cold JVM that reads a live process
            Remembered known = byKey.get(key);
            if (known != null && Arrays.equals(known.page(), firstPage)) {
                if (known.layout().isEmpty()) {
                    return Optional.empty();
                }
                Relative relative = known.layout().get();
                long loadBias = headerAddress - relative.lowestPageVirtualAddress();
                return Optional.of(new Layout(loadBias, relative.dynamicSectionOffset().isPresent()
                        ? OptionalLong.of(loadBias + relative.dynamicSectionOffset().getAsLong()) : OptionalLong.empty(),
                        relative.buildId()));
            }
            PageFirst bytes = new PageFirst(firstPage, headerAddress, memory);
            Optional<Layout> layout = InMemoryElf.read(bytes, headerAddress, source);
            if (!bytes.beyondPage) {
                Optional<Relative> relative = Optional.empty();
                if (layout.isPresent()) {
                    Layout placed = layout.get();
                    relative = Optional.of(new Relative(headerAddress - placed.loadBias(),
                            placed.dynamicSectionAddress().isPresent()
                                    ? OptionalLong.of(placed.dynamicSectionAddress().getAsLong() - placed.loadBias())
                                    : OptionalLong.empty(),
                            placed.buildId()));
                }
                byKey.put(key, new Remembered(firstPage, relative));
            }
            return layout;
        }

        /** The first page's bytes where they suffice, else the process's memory (and then the layout is not remembered). */
        private static final class PageFirst implements Memory {
            private final byte[] page;
            private final long pageAddress;
            private final Memory memory;
            private boolean beyondPage;

            PageFirst(byte[] page, long pageAddress, Memory memory) {
                this.page = page;
                this.pageAddress = pageAddress;
                this.memory = memory;
            }

            @Override
            public Optional<byte[]> read(long address, int length) {
                long offset = address - pageAddress;
                if (offset >= 0 && offset <= page.length - length) {
                    return Optional.of(Arrays.copyOfRange(page, (int) offset, (int) offset + length));
                }
                beyondPage = true;
                return memory.read(address, length);
            }
        }
    }

    /**
     * Where the dynamic linker placed a module whose headers are these and whose file offset 0 is mapped
     * at {@code headerAddress}: the load bias is that address minus the page-aligned lowest PT_LOAD
     * address (ld.so maps the lowest segment's page at offset 0). No build-id: these headers may come
     * from the file on disk. Empty when the file is not an executable or shared object, or has no PT_LOAD.
     */
    public static Optional<Layout> placed(ElfHeader header, List<ProgramHeader> programHeaders, long headerAddress) {
        if (header.type() != ElfHeader.ET_EXEC && header.type() != ElfHeader.ET_DYN) {
            return Optional.empty();
        }
        Optional<ProgramHeader> lowestLoad = programHeaders.stream()
                .filter(ph -> ph.type() == ProgramHeader.PT_LOAD)
                .min((a, b) -> Long.compareUnsigned(a.virtualAddress(), b.virtualAddress()));
        if (lowestLoad.isEmpty()) {
            return Optional.empty();
        }
        long loadBias = headerAddress - (lowestLoad.get().virtualAddress() & -PAGE_SIZE);
        OptionalLong dynamic = programHeaders.stream()
                .filter(ph -> ph.type() == ProgramHeader.PT_DYNAMIC)
                .mapToLong(ph -> loadBias + ph.virtualAddress())
                .findFirst();
        return Optional.of(new Layout(loadBias, dynamic, Optional.empty()));
    }

    /** The build-id note as the target's memory holds it (the first page of a mapping usually has it). */
    private static Optional<String> buildId(Memory memory, List<ProgramHeader> programHeaders, long loadBias, String source) {
        for (ProgramHeader segment : programHeaders) {
            if (segment.type() != ProgramHeader.PT_NOTE || segment.fileSize() <= 0 || segment.fileSize() > MAX_NOTE_BYTES) {
                continue;
            }
            Optional<byte[]> bytes = memory.read(loadBias + segment.virtualAddress(), (int) segment.fileSize());
            if (bytes.isEmpty()) {
                continue;
            }
            try {
                Optional<String> buildId = ElfFile.buildIdOf(
                        ElfNote.parseAll(ByteView.of(bytes.get(), source), segment.alignment() == 8 ? 8 : 4));
                if (buildId.isPresent()) {
                    return buildId;
                }
            } catch (ElfFormatException e) {
                // a damaged note in memory: no build-id to check against
            }
        }
        return Optional.empty();
    }

    private static List<ProgramHeader> parseProgramHeaders(ByteView table, int count) {
        List<ProgramHeader> headers = new ArrayList<>(count);
        for (int index = 0; index < count; index++) {
            headers.add(ProgramHeader.parse(table.slice((long) index * ProgramHeader.SIZE, ProgramHeader.SIZE, "program header"), index));
        }
        return headers;
    }
}
