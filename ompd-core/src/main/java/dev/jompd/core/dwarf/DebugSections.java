package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfFormatException;
import dev.jompd.core.elf.SectionHeader;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The DWARF sections of one ELF file, by name, decompressed when the file stores them compressed
 * ({@code SHF_COMPRESSED} with zlib, as distributions ship their debug files). Decompressed bytes are
 * kept for the life of this object.
 */
public final class DebugSections {
    private static final long SHF_COMPRESSED = 0x800;
    private static final int ELFCOMPRESS_ZLIB = 1;
    /** No debug section of a real program is this big; a damaged header must not make us allocate it. */
    private static final long MAX_DECOMPRESSED_SIZE = 1L << 30;

    private final ElfFile file;
    private final Map<String, Optional<ByteView>> sections = new ConcurrentHashMap<>();

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
        if (size < 0 || size > MAX_DECOMPRESSED_SIZE) {
            throw new DwarfFormatException(raw.source(), "compressed section %s claims %d bytes".formatted(name, size));
        }
        byte[] input = new byte[(int) (raw.size() - 24)];
        raw.copyTo(24, input, 0, input.length);
        byte[] output = new byte[(int) size];
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(input);
            int produced = 0;
            while (produced < output.length && !inflater.finished()) {
                int n = inflater.inflate(output, produced, output.length - produced);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                produced += n;
            }
            if (produced != output.length) {
                throw new DwarfFormatException(raw.source(), "compressed section %s holds %d of %d bytes"
                        .formatted(name, produced, output.length));
            }
        } catch (DataFormatException e) {
            throw new DwarfFormatException(raw.source(), "compressed section %s: %s".formatted(name, e.getMessage()));
        } finally {
            inflater.end();
        }
        return Optional.of(ByteView.of(output, raw.source() + "(" + name + ")"));
    }
}
