package dev.jompd.core.elf;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A symbol table (.symtab or .dynsym) with its string table. Symbols are decoded on demand; the
 * by-name index is built on the first {@link #lookup}. Valid while its file is open.
 */
public final class ElfSymbolTable {
    /** Longer names are damage (the longest mangled C++ names in practice are a few KB). */
    private static final int MAX_NAME_LENGTH = 64 * 1024;

    private final String description;
    private final ByteView entries;
    private final ByteView strings;
    private final int count;
    private Map<String, Integer> indexByName;

    ElfSymbolTable(String description, ByteView entries, ByteView strings) {
        this.description = description;
        this.entries = entries;
        this.strings = strings;
        // Bounded by the file: a table cannot list more entries than its bytes hold.
        long entryCount = entries.size() / ElfSymbol.SIZE;
        if (entryCount > Integer.MAX_VALUE) {
            throw new ElfFormatException(entries.source(), description + " has too many entries: " + entryCount);
        }
        this.count = (int) entryCount;
    }

    /** A table with no symbols, for files that lack one. */
    public static ElfSymbolTable empty(String description) {
        ByteView none = ByteView.of(new byte[0], description);
        return new ElfSymbolTable(description, none, none);
    }

    /** Which table this is, such as {@code /usr/lib/libc.so.6 .dynsym}. */
    public String description() { return description; }

    /** The number of entries, including the null entry 0 when the table is not empty. */
    public int size() { return count; }

    /**
     * The entry at {@code index}.
     *
     * @throws IndexOutOfBoundsException when {@code index} is not in {@code [0, size())}
     * @throws ElfFormatException        when its name lies outside the string table
     */
    public ElfSymbol symbol(int index) {
        Objects.checkIndex(index, count);
        long base = (long) index * ElfSymbol.SIZE;
        long nameOffset = entries.u32(base);
        int info = entries.u8(base + 4);
        if (!strings.contains(nameOffset, 0)) {
            throw new ElfFormatException(strings.source(), "%s symbol %d: name offset 0x%x beyond its string table (%d bytes)"
                    .formatted(description, index, nameOffset, strings.size()));
        }
        return new ElfSymbol(strings.cString(nameOffset, MAX_NAME_LENGTH), entries.u64(base + 8),
                entries.u64(base + 16), info & 0xf, info >>> 4, entries.u16(base + 6));
    }

    /**
     * The defined symbol called {@code name}. When several have that name (static symbols of different
     * compilation units), a global one is preferred over a weak one, a weak one over a local one, and
     * otherwise the first in the table wins.
     */
    public Optional<ElfSymbol> lookup(String name) {
        Integer index = index().get(name);
        return index == null ? Optional.empty() : Optional.of(symbol(index));
    }

    private synchronized Map<String, Integer> index() {
        if (indexByName == null) {
            indexByName = buildIndex();
        }
        return indexByName;
    }

    private Map<String, Integer> buildIndex() {
        Map<String, Integer> byName = new HashMap<>();
        // Linkers merge string tails, so names may share bytes; but a damaged table could point every
        // symbol at one long unterminated run. This budget keeps decoding linear in the file's size.
        long decodeBudget = 8 * strings.size() + (1 << 20);
        for (int index = 1; index < count; index++) {
            long base = (long) index * ElfSymbol.SIZE;
            int info = entries.u8(base + 4);
            int type = info & 0xf;
            int sectionIndex = entries.u16(base + 6);
            if (sectionIndex == ElfSymbol.SHN_UNDEF || type == ElfSymbol.STT_SECTION || type == ElfSymbol.STT_FILE) {
                continue;
            }
            long nameOffset = entries.u32(base);
            if (!strings.contains(nameOffset, 1)) {
                continue; // a name we cannot read is a name nobody can look up
            }
            String name = strings.cString(nameOffset, MAX_NAME_LENGTH);
            decodeBudget -= name.length() + 1;
            if (decodeBudget < 0) {
                throw new ElfFormatException(strings.source(), description
                        + ": symbol names overlap far more than any linker writes (damaged string table)");
            }
            if (name.isEmpty()) {
                continue;
            }
            Integer previous = byName.get(name);
            if (previous == null || bindingRank(info >>> 4) < bindingRank(entries.u8((long) previous * ElfSymbol.SIZE + 4) >>> 4)) {
                byName.put(name, index);
            }
        }
        return byName;
    }

    private static int bindingRank(int binding) {
        return switch (binding) {
            case ElfSymbol.STB_GLOBAL, 10 /* STB_GNU_UNIQUE */ -> 0;
            case ElfSymbol.STB_WEAK -> 1;
            default -> 2;
        };
    }

    @Override
    public String toString() {
        return description + " (" + count + " entries)";
    }
}
