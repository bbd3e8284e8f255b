package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.SectionHeader;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The DWARF sections of one ELF file, by name, decompressed when the file stores them compressed
 * ({@code SHF_COMPRESSED} with zlib, as distributions ship their debug files). Decompressed bytes are
 * kept for the life of this object.
 *
 * <p>What is built from one file's debug data on the heap (decompressed sections, abbreviation tables,
 * unit ranges) is charged to a budget of {@link #MEMORY_BUDGET} bytes: a crafted file that would need
 * more is "unusable" (a {@link DwarfFormatException}), not an OutOfMemoryError for the whole report.
 */
public final class DebugSections {
    private static final long SHF_COMPRESSED = 0x800;
    private static final int ELFCOMPRESS_ZLIB = 1;
    /** Heap bytes one file's debug data may cost; no debug file of a real program comes near it. */
    static final long MEMORY_BUDGET = 1L << 30;
    /** zlib's deflate expands at most 1032 times (RFC 1951: a 258-byte match in 2 bits), plus its 2+4 bytes. */
    private static final long MAX_DEFLATE_RATIO = 1032;
    /** Inflated into a buffer that grows as bytes come, so a size the header only claims costs nothing. */
    private static final int FIRST_OUTPUT_SIZE = 1 << 16;

    private final ElfFile file;
    private final Map<String, Optional<ByteView>> sections = new ConcurrentHashMap<>();
    private final AtomicLong charged = new AtomicLong();

    public DebugSections(ElfFile file) {
        this.file = file;
    }

    public ElfFile file() { return file; }

    /** The section's bytes, when the file has it with contents (absent, NOBITS or undecodable: empty). */
    public Optional<ByteView> section(String name) {
        return sections.computeIfAbsent(name, this::load);
    }

    /** The section's virtual address in the file (0 for non-allocated sections). */
    public long address(String name) {
        return file.section(name).map(SectionHeader::address).orElse(0L);
    }

    /**
     * Charges {@code bytes} of heap, about to be allocated for {@code what}, to this file's budget.
     *
     * @throws DwarfFormatException when the file's debug data would need more than {@link #MEMORY_BUDGET}
     */
    void charge(long bytes, String what) {
        long total = charged.addAndGet(bytes);
        if (bytes < 0 || total > MEMORY_BUDGET) {
            throw new DwarfFormatException(file.path().toString(), "debug data unusable: %s would take it past the %d MiB one file's debug data may use"
                    .formatted(what, MEMORY_BUDGET >> 20));
        }
    }

    private Optional<ByteView> load(String name) {
        Optional<SectionHeader> header;
        try {
            header = file.section(name);
        } catch (ElfFormatException e) {
            return Optional.empty();
        }
        if (header.isEmpty() || !header.get().hasFileBytes() || header.get().size() == 0) {
            return Optional.empty();
        }
        ByteView raw = file.sectionBytes(header.get());
        if ((header.get().flags() & SHF_COMPRESSED) == 0) {
            return Optional.of(raw);
        }
        return decompress(raw, name);
    }

    private Optional<ByteView> decompress(ByteView raw, String name) {
        // Elf64_Chdr { Elf64_Word ch_type; Elf64_Word ch_reserved; Elf64_Xword ch_size; Elf64_Xword ch_addralign; }
        if (raw.size() < 24 || raw.s32(0) != ELFCOMPRESS_ZLIB) {
            return Optional.empty(); // zstd or unknown: this section is unavailable, not an error
        }
        long size = raw.u64(8);
        long compressed = raw.size() - 24;
        if (size < 0 || size > compressed * MAX_DEFLATE_RATIO + 6) {
            throw new DwarfFormatException(raw.source(), "compressed section %s claims %d bytes, more than its %d compressed bytes can hold"
                    .formatted(name, size, compressed));
        }
        byte[] input = new byte[(int) compressed];
        raw.copyTo(24, input, 0, input.length);
        int initial = (int) Math.min(size, FIRST_OUTPUT_SIZE);
        charge(initial, "compressed section " + name);
        byte[] output = new byte[initial];
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(input);
            long produced = 0;
            while (produced < size && !inflater.finished()) {
                if (produced == output.length) {
                    int grown = (int) Math.min(size, (long) output.length * 2);
                    charge(grown - output.length, "compressed section " + name); // the old array is dropped
                    output = Arrays.copyOf(output, grown);
                }
                int n = inflater.inflate(output, (int) produced, output.length - (int) produced);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                produced += n;
            }
            if (produced != size) {
                throw new DwarfFormatException(raw.source(), "compressed section %s holds %d of %d bytes"
                        .formatted(name, produced, size));
            }
        } catch (DataFormatException e) {
            throw new DwarfFormatException(raw.source(), "compressed section %s: %s".formatted(name, e.getMessage()));
        } finally {
            inflater.end();
        }
        return Optional.of(ByteView.of(output, raw.source() + "(" + name + ")"));
    }
}
