package dev.jompd.core.elf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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

    /**
     * Every entry but the null entry 0, in table order, decoded in one pass over heap copies of the
     * tables (see {@link #buildIndex} for why). Entries whose name lies outside the string table are left out.
     */
    public List<ElfSymbol> all() {
        byte[] table = entries.toByteArray();
        byte[] names = strings.toByteArray();
        List<ElfSymbol> symbols = new ArrayList<>(Math.max(0, count - 1));
        long decodeBudget = decodeBudget(names);
        for (int index = 1; index < count; index++) {
            int base = index * ElfSymbol.SIZE;
            int nameOffset = nameOffset(table, base, names.length);
            if (nameOffset < 0) {
                continue;
            }
            int nameEnd = nameEnd(names, nameOffset);
            decodeBudget = spend(decodeBudget, nameEnd - nameOffset + 1);
            int info = table[base + 4] & 0xff;
            symbols.add(new ElfSymbol(new String(names, nameOffset, nameEnd - nameOffset, StandardCharsets.UTF_8),
                    u64(table, base + 8), u64(table, base + 16), info & 0xf, info >>> 4, u16(table, base + 6)));
        }
        return symbols;
    }

    /** The name's offset in the string table of the entry at {@code base}, or -1 when it lies outside. */
    private static int nameOffset(byte[] table, int base, int namesLength) {
        long offset = (table[base] & 0xffL) | (table[base + 1] & 0xffL) << 8 | (table[base + 2] & 0xffL) << 16
                | (table[base + 3] & 0xffL) << 24;
        return offset < namesLength ? (int) offset : -1;
    }

    /** Where the NUL-terminated name at {@code start} ends (bounded by the table and {@link #MAX_NAME_LENGTH}). */
    private static int nameEnd(byte[] names, int start) {
        int limit = (int) Math.min(names.length, start + (long) MAX_NAME_LENGTH);
        int end = start;
        while (end < limit && names[end] != 0) {
            end++;
        }
        return end;
    }

    /**
     * Linkers merge string tails, so names may share bytes; but a damaged table could point every symbol
     * at one long unterminated run. This budget keeps decoding linear in the file's size.
     */
    private static long decodeBudget(byte[] names) {
        return 8L * names.length + (1 << 20);
    }

    private long spend(long budget, int bytes) {
        if (budget < bytes) {
            throw new ElfFormatException(strings.source(), description
                    + ": symbol names overlap far more than any linker writes (damaged string table)");
        }
        return budget - bytes;
    }

    private static int u16(byte[] bytes, int at) {
        return (bytes[at] & 0xff) | (bytes[at + 1] & 0xff) << 8;
    }

    private static long u64(byte[] bytes, int at) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = value << 8 | (bytes[at + i] & 0xffL);
        }
        return value;
    }

    private synchronized Map<String, Integer> index() {
        if (indexByName == null) {
            indexByName = buildIndex();
        }
        return indexByName;
    }

    /**
     * Name to entry for every defined symbol. Runs on heap copies of the two tables with plain array
     * loops: through a memory segment each byte costs a var-handle call, which before the JIT has
     * compiled them made a first lookup in libomp (4,000 symbols) take 70 ms instead of a few.
     */
    private Map<String, Integer> buildIndex() {
        byte[] table = entries.toByteArray();
        byte[] names = strings.toByteArray();
        Map<String, Integer> byName = new HashMap<>(count * 4 / 3 + 1);
        long decodeBudget = decodeBudget(names);
        for (int index = 1; index < count; index++) {
            int base = index * ElfSymbol.SIZE;
            int info = table[base + 4] & 0xff;
            int type = info & 0xf;
            int sectionIndex = u16(table, base + 6);
            if (sectionIndex == ElfSymbol.SHN_UNDEF || type == ElfSymbol.STT_SECTION || type == ElfSymbol.STT_FILE) {
                continue;
            }
            int start = nameOffset(table, base, names.length);
            if (start < 0) {
                continue; // a name we cannot read is a name nobody can look up
            }
            int end = nameEnd(names, start);
            decodeBudget = spend(decodeBudget, end - start + 1);
            if (end == start) {
                continue;
            }
            String name = new String(names, start, end - start, StandardCharsets.UTF_8);
            Integer previous = byName.get(name);
            if (previous == null || bindingRank(info >>> 4) < bindingRank((table[previous * ElfSymbol.SIZE + 4] & 0xff) >>> 4)) {
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
