package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;

import static dev.jompd.core.dwarf.DwarfConstants.*;

/**
 * Reads {@code .debug_info}, DWARF 2 to 5 including DWARF 5's indexed forms ({@code strx}, {@code addrx},
 * {@code rnglistx}): compilation units (found by {@code .debug_aranges}, else by every unit's own ranges),
 * abbreviations, entries and their attributes as typed {@link AttributeValue}s, strings, addresses, range
 * lists and each unit's line program. It knows nothing of functions or names: {@link FunctionScopes} and
 * {@link DwarfNames} build on it.
 *
 * <p>Thread-safe: the sections and the {@code .debug_aranges} index are fixed at construction; what is
 * read later is kept in concurrent maps (a unit's header, an abbreviation table, a line program: read
 * twice at worst, never half-published), and the one list built lazily, every unit, under this object's lock.
 */
final class DebugInfoReader {
    static final int MAX_UNITS = 1 << 20;
    static final int MAX_DEPTH = 512;
    static final int MAX_REFERENCE_HOPS = 8;
    private static final int MAX_RANGES = 1 << 16;

    /** A compilation unit: its header, and what its first entry says (pc ranges, line program, bases). */
    record Unit(long offset, long end, int version, boolean dwarf64, int addressSize, long abbrevOffset,
                long dieStart, long lowPc, long[] ranges, long lineOffset, String compilationDirectory,
                long stringOffsetsBase, long addressBase, long rangeListsBase, int language) {
        /** C (89, 99, 11, 17): gdb names C functions by their linkage name when they have one. */
        boolean isC() {
            return language == DW_LANG_C89 || language == DW_LANG_C || language == DW_LANG_C99
                    || language == DW_LANG_C11 || language == DW_LANG_C17;
        }

        /** Fortran (77, 90, 95, 2003, 2008): gdb names a contained procedure {@code host::name}. */
        boolean isFortran() {
            return language == DW_LANG_FORTRAN77 || language == DW_LANG_FORTRAN90 || language == DW_LANG_FORTRAN95
                    || language == DW_LANG_FORTRAN03 || language == DW_LANG_FORTRAN08;
        }

        /** C++ (98, 03, 11, 14, 17, 20). */
        boolean isCxx() {
            return language == DW_LANG_C_PLUS_PLUS || language == DW_LANG_C_PLUS_PLUS_03
                    || language == DW_LANG_C_PLUS_PLUS_11 || language == DW_LANG_C_PLUS_PLUS_14
                    || language == DW_LANG_C_PLUS_PLUS_17 || language == DW_LANG_C_PLUS_PLUS_20;
        }
    }

    private record Attribute(int name, int form, long implicitConstant) {}

    private record Abbreviation(int tag, boolean hasChildren, Attribute[] attributes) {}

    /**
     * One abbreviation table by code: an array when the codes are dense (as compilers number them, 1 up),
     * a map when they are not, so a table costs what its abbreviations do, not its largest code.
     */
    private record AbbreviationTable(Abbreviation[] dense, Map<Integer, Abbreviation> sparse) {
        Abbreviation get(int code) {
            if (dense != null) {
                return code > 0 && code < dense.length ? dense[code] : null;
            }
            return sparse.get(code);
        }
    }

    /** One entry read on its own: its tag, attributes, and where the next entry starts. */
    record Entry(int tag, boolean hasChildren, Map<Integer, AttributeValue> values, long next) {
        boolean isNull() {
            return tag == 0;
        }
    }

    /** What {@link #walk} shows of each entry of a unit. */
    interface EntryVisitor {
        /**
         * @param depth  0 for the unit's own entry, 1 for its children, ...
         * @param values the attributes, when the walk was asked to read this tag's (else empty); valid during
         *               the call only
         */
        void visit(long offset, int depth, int tag, boolean hasChildren, Map<Integer, AttributeValue> values);
    }

    private final DebugSections sections;
    private final ByteView info;
    private final ByteView abbrev;
    private final Map<Long, AbbreviationTable> abbreviations = new ConcurrentHashMap<>();
    private final Map<Long, Unit> unitsByOffset = new ConcurrentHashMap<>();
    private final Map<Long, Optional<LineTable>> unitLines = new ConcurrentHashMap<>();
    /** {@code .debug_aranges}: sorted [start, end) → unit offset; empty when the file has none. */
    private final long[] arangeStarts;
    private final long[] arangeEnds;
    private final long[] arangeUnits;
    /** Every unit (only built when .debug_aranges does not cover an address); guarded by this. */
    private List<Unit> allUnits;

    private DebugInfoReader(DebugSections sections, ByteView info, ByteView abbrev) {
        this.sections = sections;
        this.info = info;
        this.abbrev = abbrev;
        long[][] aranges = sections.section(".debug_aranges").map(DebugInfoReader::indexAddressRanges)
                .orElse(new long[][] {new long[0], new long[0], new long[0]});
        this.arangeStarts = aranges[0];
        this.arangeEnds = aranges[1];
        this.arangeUnits = aranges[2];
    }

    /** The reader of a file with {@code .debug_info}; empty without it. Units are read when asked about. */
    static Optional<DebugInfoReader> of(DebugSections sections) {
        Optional<ByteView> info = sections.section(".debug_info");
        Optional<ByteView> abbrev = sections.section(".debug_abbrev");
        if (info.isEmpty() || abbrev.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new DebugInfoReader(sections, info.get(), abbrev.get()));
    }

    /** Where {@code .debug_info} comes from, for messages. */
    String source() {
        return info.source();
    }

    /** The line program of {@code unit}, parsed once; empty when the unit has none. */
    Optional<LineTable> linesOf(Unit unit) {
        if (unit.lineOffset() < 0) {
            return Optional.empty();
        }
        return unitLines.computeIfAbsent(unit.lineOffset(), offset -> sections.section(".debug_line").map(line -> {
            LineTable table = LineTable.parseUnitAt(line, offset, sections.section(".debug_line_str"),
                    sections.section(".debug_str"), unit.compilationDirectory());
            charge(LineTable.BYTES_PER_ROW * table.size() + 4096, "the line program at 0x%x".formatted(offset));
            return table;
        }));
    }

    /** Charges heap kept for what this file's debug data says to its budget ({@link DebugSections#charge}). */
    void charge(long bytes, String what) {
        sections.charge(bytes, what);
    }

    /** The units that may contain {@code address}: by .debug_aranges, else by every unit's own ranges. */
    List<Unit> unitsFor(long address) {
        int low = 0;
        int high = arangeStarts.length - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(arangeStarts[mid], address) <= 0) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        for (int i = found; i >= 0 && i > found - 8; i--) {
            if (Long.compareUnsigned(address, arangeStarts[i]) >= 0 && Long.compareUnsigned(address, arangeEnds[i]) < 0) {
                return List.of(unitAt(arangeUnits[i]));
            }
        }
        List<Unit> candidates = new ArrayList<>();
        for (Unit unit : allUnits()) {
            if (unit.ranges() == null || contains(unit.ranges(), address)) {
                candidates.add(unit);
            }
        }
        return candidates;
    }

    private synchronized List<Unit> allUnits() {
        if (allUnits == null) {
            allUnits = List.copyOf(indexUnits());
        }
        return allUnits;
    }

    private Unit unitAt(long offset) {
        Unit known = unitsByOffset.get(offset);
        if (known != null) {
            return known;
        }
        Unit unit = readUnitHeader(new DwarfCursor(info, offset));
        if (unit == null) {
            throw new DwarfFormatException(info.source(), ".debug_aranges names no compilation unit at 0x%x".formatted(offset));
        }
        unitsByOffset.put(offset, unit);
        return unit;
    }

    private static long[][] indexAddressRanges(ByteView aranges) {
        List<long[]> entries = new ArrayList<>();
        DwarfCursor cursor = new DwarfCursor(aranges, 0);
        for (int sets = 0; cursor.position() + 4 <= aranges.size() && sets < MAX_UNITS; sets++) {
            long setStart = cursor.position();
            long length = cursor.initialLength();
            boolean dwarf64 = cursor.lastWas64Bit;
            long end = cursor.position() + length;
            if (end > aranges.size() || end < cursor.position()) {
                throw new DwarfFormatException(aranges.source(), "address range set at 0x%x runs past .debug_aranges".formatted(setStart));
            }
            cursor.u16(); // version 2
            long unitOffset = cursor.offset(dwarf64);
            int addressSize = cursor.u8();
            int segmentSize = cursor.u8();
            if (addressSize != 8 || segmentSize != 0) {
                cursor.seek(end);
                continue;
            }
            long tupleSize = 16;
            long headerSize = cursor.position() - setStart;
            cursor.seek(setStart + ((headerSize + tupleSize - 1) / tupleSize) * tupleSize); // tuples are aligned
            while (cursor.position() + 16 <= end) {
                long start = cursor.u64();
                long size = cursor.u64();
                if (start == 0 && size == 0) {
                    break;
                }
                if (size > 0 && start != 0) {
                    entries.add(new long[] {start, start + size, unitOffset});
                }
            }
            cursor.seek(end);
        }
        entries.sort((a, b) -> Long.compareUnsigned(a[0], b[0]));
        return new long[][] {entries.stream().mapToLong(e -> e[0]).toArray(), entries.stream().mapToLong(e -> e[1]).toArray(),
                entries.stream().mapToLong(e -> e[2]).toArray()};
    }

    static boolean contains(long[] ranges, long address) {
        for (int i = 0; i + 1 < ranges.length; i += 2) {
            if (Long.compareUnsigned(address, ranges[i]) >= 0 && Long.compareUnsigned(address, ranges[i + 1]) < 0) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ entries

    /**
     * Every entry of {@code unit} in order, with its depth; the attributes of entries whose tag
     * {@code readTag} accepts are read (inline strings kept), the others' stepped over.
     */
    void walk(Unit unit, IntPredicate readTag, EntryVisitor visitor) {
        DwarfCursor cursor = new DwarfCursor(info, unit.dieStart());
        int depth = 0;
        Map<Integer, AttributeValue> values = new HashMap<>();
        while (cursor.position() < unit.end()) {
            long dieOffset = cursor.position();
            int code = cursor.ulebInt("abbreviation code");
            if (code == 0) {
                if (depth == 0) {
                    break;
                }
                depth--;
                continue;
            }
            Abbreviation abbreviation = abbreviation(unit, code);
            boolean read = readTag.test(abbreviation.tag());
            values.clear();
            for (Attribute attribute : abbreviation.attributes()) {
                if (read) {
                    values.put(attribute.name(), readValue(cursor, unit, attribute, true));
                } else {
                    skipValue(cursor, unit, attribute);
                }
            }
            visitor.visit(dieOffset, depth, abbreviation.tag(), abbreviation.hasChildren(), values);
            if (abbreviation.hasChildren()) {
                if (depth + 1 >= MAX_DEPTH) {
                    throw new DwarfFormatException(info.source(), "entries nested deeper than " + MAX_DEPTH);
                }
                depth++;
            }
        }
    }

    /** The entry at {@code offset} (inside {@code unit}), every attribute read. */
    Entry readEntry(Unit unit, long offset) {
        if (offset < unit.dieStart() || offset >= unit.end()) {
            throw new DwarfFormatException(info.source(), "entry 0x%x outside its unit".formatted(offset));
        }
        DwarfCursor cursor = new DwarfCursor(info, offset);
        int code = cursor.ulebInt("abbreviation code");
        if (code == 0) {
            return new Entry(0, false, Map.of(), cursor.position());
        }
        Abbreviation abbreviation = abbreviation(unit, code);
        Map<Integer, AttributeValue> values = new HashMap<>();
        for (Attribute attribute : abbreviation.attributes()) {
            values.put(attribute.name(), readValue(cursor, unit, attribute, true));
        }
        return new Entry(abbreviation.tag(), abbreviation.hasChildren(), values, cursor.position());
    }

    /** An attribute of an entry or of the entry it takes its description from (abstract origin); null: none. */
    AttributeValue attribute(Unit unit, Entry entry, int name) {
        Entry current = entry;
        for (int hop = 0; hop < MAX_REFERENCE_HOPS; hop++) {
            AttributeValue value = current.values().get(name);
            if (value != null) {
                return value;
            }
            AttributeValue origin = current.values().get(DW_AT_ABSTRACT_ORIGIN);
            if (origin == null) {
                return null;
            }
            current = readEntry(unit, reference(unit, origin));
        }
        return null;
    }

    // ------------------------------------------------------------------ units

    private List<Unit> indexUnits() {
        List<Unit> units = new ArrayList<>();
        DwarfCursor cursor = new DwarfCursor(info, 0);
        int count = 0;
        while (cursor.position() + 11 <= info.size() && count++ < MAX_UNITS) {
            long offset = cursor.position();
            Unit unit = unitsByOffset.get(offset);
            if (unit == null) {
                unit = readUnitHeader(cursor);
                if (unit != null) {
                    unitsByOffset.put(offset, unit);
                }
            }
            if (unit != null) {
                units.add(unit);
            }
            cursor.seek(endOfUnit(offset));
        }
        return units;
    }

    private long endOfUnit(long offset) {
        DwarfCursor cursor = new DwarfCursor(info, offset);
        long length = cursor.initialLength();
        long end = cursor.position() + length;
        if (end > info.size() || end < cursor.position()) {
            throw new DwarfFormatException(info.source(), "unit at 0x%x runs past .debug_info".formatted(offset));
        }
        return end;
    }

    /** The unit whose header is at the cursor, with its first entry read; null for type units. */
    private Unit readUnitHeader(DwarfCursor cursor) {
        long offset = cursor.position();
        long length = cursor.initialLength();
        boolean dwarf64 = cursor.lastWas64Bit;
        long end = cursor.position() + length;
        if (end > info.size() || end < cursor.position()) {
            throw new DwarfFormatException(info.source(), "unit at 0x%x runs past .debug_info".formatted(offset));
        }
        int version = cursor.u16();
        int addressSize;
        long abbrevOffset;
        if (version >= 5) {
            int unitType = cursor.u8();
            addressSize = cursor.u8();
            abbrevOffset = cursor.offset(dwarf64);
            if (unitType == 2 || unitType == 6) { // type unit, split type unit
                return null;
            }
            if (unitType == 4 || unitType == 5) { // skeleton, split compile: dwo id
                cursor.u64();
            }
        } else if (version >= 2) {
            abbrevOffset = cursor.offset(dwarf64);
            addressSize = cursor.u8();
        } else {
            throw new DwarfFormatException(info.source(), "unit at 0x%x has version %d".formatted(offset, version));
        }
        Unit header = new Unit(offset, end, version, dwarf64, addressSize, abbrevOffset, cursor.position(),
                0, null, -1, "", 0, 0, 0, 0);
        return readUnitEntry(header);
    }

    /** The unit's first entry gives its pc ranges, line program, directory and DWARF 5 bases. */
    private Unit readUnitEntry(Unit header) {
        DwarfCursor cursor = new DwarfCursor(info, header.dieStart());
        int code = cursor.ulebInt("abbreviation code");
        if (code == 0) {
            return header;
        }
        Abbreviation abbreviation = abbreviation(header, code);
        if (abbreviation.tag() != DW_TAG_COMPILE_UNIT && abbreviation.tag() != DW_TAG_PARTIAL_UNIT
                && abbreviation.tag() != DW_TAG_SKELETON_UNIT) {
            return header;
        }
        Map<Integer, AttributeValue> values = new HashMap<>();
        for (Attribute attribute : abbreviation.attributes()) {
            values.put(attribute.name(), readValue(cursor, header, attribute, true));
        }
        long stringOffsetsBase = AttributeValue.number(values.get(DW_AT_STR_OFFSETS_BASE), 0);
        long addressBase = AttributeValue.number(values.get(DW_AT_ADDR_BASE), 0);
        long rangeListsBase = AttributeValue.number(values.get(DW_AT_RNGLISTS_BASE), 0);
        Unit withBases = new Unit(header.offset(), header.end(), header.version(), header.dwarf64(),
                header.addressSize(), header.abbrevOffset(), header.dieStart(), 0, null,
                AttributeValue.number(values.get(DW_AT_STMT_LIST), -1), "", stringOffsetsBase, addressBase,
                rangeListsBase, 0);
        int language = (int) AttributeValue.number(values.get(DW_AT_LANGUAGE), 0);
        String directory = values.containsKey(DW_AT_COMP_DIR) ? string(withBases, values.get(DW_AT_COMP_DIR)) : "";
        long lowPc = values.containsKey(DW_AT_LOW_PC) ? address(withBases, values.get(DW_AT_LOW_PC)) : 0;
        Unit based = new Unit(withBases.offset(), withBases.end(), withBases.version(), withBases.dwarf64(),
                withBases.addressSize(), withBases.abbrevOffset(), withBases.dieStart(), lowPc, null,
                withBases.lineOffset(), directory, stringOffsetsBase, addressBase, rangeListsBase, language);
        long[] ranges = rangesOf(based, values.get(DW_AT_LOW_PC), values.get(DW_AT_HIGH_PC), values.get(DW_AT_RANGES));
        if (ranges.length == 0) {
            ranges = null; // unknown: the unit is parsed when an address is looked up
        }
        return new Unit(based.offset(), based.end(), based.version(), based.dwarf64(), based.addressSize(),
                based.abbrevOffset(), based.dieStart(), lowPc, ranges, based.lineOffset(), directory,
                stringOffsetsBase, addressBase, rangeListsBase, language);
    }

    // ------------------------------------------------------------------ abbreviations and forms

    private Abbreviation abbreviation(Unit unit, int code) {
        Abbreviation abbreviation = abbreviations.computeIfAbsent(unit.abbrevOffset(), this::parseAbbreviations).get(code);
        if (abbreviation == null) {
            throw new DwarfFormatException(info.source(), "unit at 0x%x uses unknown abbreviation %d".formatted(unit.offset(), code));
        }
        return abbreviation;
    }

    private AbbreviationTable parseAbbreviations(long offset) {
        if (offset < 0 || offset >= abbrev.size()) {
            throw new DwarfFormatException(abbrev.source(), "abbreviation table offset 0x%x outside .debug_abbrev".formatted(offset));
        }
        DwarfCursor cursor = new DwarfCursor(abbrev, offset);
        Map<Integer, Abbreviation> byCode = new HashMap<>();
        int maxCode = 0;
        long attributeCount = 0;
        while (true) {
            int code = cursor.ulebInt("abbreviation code");
            if (code == 0) {
                break;
            }
            if (code > MAX_UNITS || byCode.size() > MAX_UNITS) {
                throw new DwarfFormatException(abbrev.source(), "abbreviation code %d too large".formatted(code));
            }
            int tag = cursor.ulebInt("tag");
            boolean hasChildren = cursor.u8() != 0;
            List<Attribute> attributes = new ArrayList<>();
            while (true) {
                int name = cursor.ulebInt("attribute");
                int form = cursor.ulebInt("form");
                if (name == 0 && form == 0) {
                    break;
                }
                long implicit = form == DW_FORM_IMPLICIT_CONST ? cursor.sleb() : 0;
                attributes.add(new Attribute(name, form, implicit));
                if (attributes.size() > 4096) {
                    throw new DwarfFormatException(abbrev.source(), "abbreviation %d has too many attributes".formatted(code));
                }
            }
            byCode.put(code, new Abbreviation(tag, hasChildren, attributes.toArray(Attribute[]::new)));
            maxCode = Math.max(maxCode, code);
            attributeCount += attributes.size();
        }
        // what the table keeps: ~32 bytes an attribute, ~48 an abbreviation, plus the index by code
        boolean dense = maxCode <= 2L * byCode.size() + 16;
        long cost = 32 * attributeCount + 48L * byCode.size() + (dense ? 4L * (maxCode + 1) : 64L * byCode.size());
        sections.charge(cost, "the abbreviation table at 0x%x".formatted(offset));
        if (!dense) {
            return new AbbreviationTable(null, Map.copyOf(byCode));
        }
        Abbreviation[] table = new Abbreviation[maxCode + 1];
        byCode.forEach((code, abbreviation) -> table[code] = abbreviation);
        return new AbbreviationTable(table, null);
    }

    /** One value in its form's terms (resolved later, when needed); an inline string kept only if asked. */
    private AttributeValue readValue(DwarfCursor cursor, Unit unit, Attribute attribute, boolean keepStrings) {
        int form = attribute.form();
        for (int indirections = 0; form == DW_FORM_INDIRECT && indirections < 4; indirections++) {
            form = cursor.ulebInt("form");
        }
        return switch (form) {
            case DW_FORM_ADDR -> new AttributeValue.Number(form, cursor.unsigned(unit.addressSize()));
            case DW_FORM_BLOCK2 -> skipBlock(cursor, form, cursor.u16());
            case DW_FORM_BLOCK4 -> skipBlock(cursor, form, cursor.u32());
            case DW_FORM_DATA2, DW_FORM_REF2 -> new AttributeValue.Number(form, cursor.u16());
            case DW_FORM_DATA4, DW_FORM_REF4, DW_FORM_REF_SUP4 -> new AttributeValue.Number(form, cursor.u32());
            case DW_FORM_DATA8, DW_FORM_REF8, DW_FORM_REF_SIG8, DW_FORM_REF_SUP8 -> new AttributeValue.Number(form, cursor.u64());
            case DW_FORM_STRING -> new AttributeValue.InlineString(form, keepStrings ? cursor.cString() : skipString(cursor));
            case DW_FORM_BLOCK, DW_FORM_EXPRLOC -> skipBlock(cursor, form, cursor.uleb());
            case DW_FORM_BLOCK1 -> skipBlock(cursor, form, cursor.u8());
            case DW_FORM_DATA1, DW_FORM_FLAG, DW_FORM_REF1, DW_FORM_STRX1, DW_FORM_ADDRX1 ->
                    new AttributeValue.Number(form, cursor.u8());
            case DW_FORM_SDATA -> new AttributeValue.Number(form, cursor.sleb());
            case DW_FORM_STRP, DW_FORM_REF_ADDR, DW_FORM_SEC_OFFSET, DW_FORM_STRP_SUP, DW_FORM_LINE_STRP,
                 DW_FORM_GNU_REF_ALT, DW_FORM_GNU_STRP_ALT -> new AttributeValue.Number(form, cursor.offset(unit.dwarf64()));
            case DW_FORM_UDATA, DW_FORM_REF_UDATA, DW_FORM_STRX, DW_FORM_ADDRX, DW_FORM_LOCLISTX, DW_FORM_RNGLISTX,
                 DW_FORM_GNU_ADDR_INDEX, DW_FORM_GNU_STR_INDEX -> new AttributeValue.Number(form, cursor.uleb());
            case DW_FORM_FLAG_PRESENT -> new AttributeValue.Number(form, 1);
            case DW_FORM_DATA16 -> skipBlock(cursor, form, 16);
            case DW_FORM_IMPLICIT_CONST -> new AttributeValue.Number(form, attribute.implicitConstant());
            case DW_FORM_STRX2, DW_FORM_ADDRX2 -> new AttributeValue.Number(form, cursor.u16());
            case DW_FORM_STRX3, DW_FORM_ADDRX3 -> new AttributeValue.Number(form, cursor.unsigned(3));
            case DW_FORM_STRX4, DW_FORM_ADDRX4 -> new AttributeValue.Number(form, cursor.u32());
            default -> throw new DwarfFormatException(info.source(), "unknown attribute form 0x%x at 0x%x"
                    .formatted(form, cursor.position()));
        };
    }

    /** Steps over an attribute's value without decoding it (most entries are types and variables). */
    private void skipValue(DwarfCursor cursor, Unit unit, Attribute attribute) {
        int form = attribute.form();
        long position = cursor.position();
        switch (form) {
            case DW_FORM_ADDR -> cursor.seek(position + unit.addressSize());
            case DW_FORM_DATA1, DW_FORM_FLAG, DW_FORM_REF1, DW_FORM_STRX1, DW_FORM_ADDRX1 -> cursor.seek(position + 1);
            case DW_FORM_DATA2, DW_FORM_REF2, DW_FORM_STRX2, DW_FORM_ADDRX2 -> cursor.seek(position + 2);
            case DW_FORM_STRX3, DW_FORM_ADDRX3 -> cursor.seek(position + 3);
            case DW_FORM_DATA4, DW_FORM_REF4, DW_FORM_REF_SUP4, DW_FORM_STRX4, DW_FORM_ADDRX4 -> cursor.seek(position + 4);
            case DW_FORM_DATA8, DW_FORM_REF8, DW_FORM_REF_SIG8, DW_FORM_REF_SUP8 -> cursor.seek(position + 8);
            case DW_FORM_STRP, DW_FORM_REF_ADDR, DW_FORM_SEC_OFFSET, DW_FORM_STRP_SUP, DW_FORM_LINE_STRP,
                 DW_FORM_GNU_REF_ALT, DW_FORM_GNU_STRP_ALT -> cursor.seek(position + (unit.dwarf64() ? 8 : 4));
            case DW_FORM_FLAG_PRESENT, DW_FORM_IMPLICIT_CONST -> { }
            default -> {
                readValue(cursor, unit, attribute, false);
                return;
            }
        }
        if (cursor.position() > info.size()) {
            throw new DwarfFormatException(info.source(), "attribute at 0x%x runs past .debug_info".formatted(position));
        }
    }

    private static AttributeValue skipBlock(DwarfCursor cursor, int form, long length) {
        cursor.skip(length);
        return new AttributeValue.Block(form);
    }

    private static String skipString(DwarfCursor cursor) {
        long position = cursor.position();
        ByteView bytes = cursor.bytes();
        long size = bytes.size();
        while (position < size && bytes.u8(position) != 0) {
            position++;
        }
        if (position >= size) {
            throw new DwarfFormatException(bytes.source(), "string at 0x%x is not terminated".formatted(cursor.position()));
        }
        cursor.seek(position + 1);
        return "";
    }

    // ------------------------------------------------------------------ resolving values

    /** A string value: inline, or from {@code .debug_str}, {@code .debug_line_str} or by index; "?" otherwise. */
    String string(Unit unit, AttributeValue value) {
        if (value instanceof AttributeValue.InlineString inline) {
            return inline.text();
        }
        if (!(value instanceof AttributeValue.Number number)) {
            return "?";
        }
        return switch (number.form()) {
            case DW_FORM_STRP -> LineTable.stringAt(sections.section(".debug_str"), number.value(), info.source());
            case DW_FORM_LINE_STRP -> LineTable.stringAt(sections.section(".debug_line_str"), number.value(), info.source());
            case DW_FORM_STRX, DW_FORM_STRX1, DW_FORM_STRX2, DW_FORM_STRX3, DW_FORM_STRX4, DW_FORM_GNU_STR_INDEX -> {
                int size = unit.dwarf64() ? 8 : 4;
                ByteView offsets = sections.section(".debug_str_offsets").orElseThrow(() ->
                        new DwarfFormatException(info.source(), "strx without .debug_str_offsets"));
                long base = unit.stringOffsetsBase() != 0 ? unit.stringOffsetsBase() : (unit.dwarf64() ? 16 : 8);
                long at = base + number.value() * size;
                long offset = size == 8 ? offsets.u64(at) : offsets.u32(at);
                yield LineTable.stringAt(sections.section(".debug_str"), offset, info.source());
            }
            default -> "?";
        };
    }

    /** An address value: as written, or looked up in {@code .debug_addr} for the indexed forms. */
    long address(Unit unit, AttributeValue value) {
        long number = numberOf(value, "an address");
        return switch (value.form()) {
            case DW_FORM_ADDRX, DW_FORM_ADDRX1, DW_FORM_ADDRX2, DW_FORM_ADDRX3, DW_FORM_ADDRX4, DW_FORM_GNU_ADDR_INDEX ->
                    indexedAddress(unit, number);
            default -> number;
        };
    }

    private long indexedAddress(Unit unit, long index) {
        ByteView addresses = sections.section(".debug_addr").orElseThrow(() ->
                new DwarfFormatException(info.source(), "addrx without .debug_addr"));
        long at = unit.addressBase() + index * unit.addressSize();
        return unit.addressSize() == 8 ? addresses.u64(at) : addresses.u32(at);
    }

    /** The {@code .debug_info} offset a reference value points to; -1 for references this reader does not follow. */
    long reference(Unit unit, AttributeValue value) {
        long number = numberOf(value, "a reference");
        return switch (value.form()) {
            case DW_FORM_REF1, DW_FORM_REF2, DW_FORM_REF4, DW_FORM_REF8, DW_FORM_REF_UDATA -> unit.offset() + number;
            case DW_FORM_REF_ADDR -> number;
            default -> -1;
        };
    }

    private long numberOf(AttributeValue value, String what) {
        return switch (value) {
            case AttributeValue.Number number -> number.value();
            case AttributeValue.Block block -> 0; // as this reader has always read a block: 0
            case AttributeValue.InlineString string -> throw new DwarfFormatException(info.source(),
                    "a string where %s was expected (form 0x%x)".formatted(what, string.form()));
        };
    }

    private static boolean isAddressForm(int form) {
        return form == DW_FORM_ADDR || form == DW_FORM_ADDRX || (form >= DW_FORM_ADDRX1 && form <= DW_FORM_ADDRX4)
                || form == DW_FORM_GNU_ADDR_INDEX;
    }

    /** [start, end) pairs of an entry's pc range(s): low/high pc, or its range list; none without either. */
    long[] rangesOf(Unit unit, AttributeValue lowPc, AttributeValue highPc, AttributeValue ranges) {
        if (ranges != null) {
            return rangeList(unit, ranges.form(), numberOf(ranges, "a range list"));
        }
        if (lowPc != null && highPc != null) {
            long low = address(unit, lowPc);
            long high = isAddressForm(highPc.form()) ? address(unit, highPc) : low + numberOf(highPc, "a size");
            return low == 0 && high <= low ? new long[0] : new long[] {low, high};
        }
        return new long[0];
    }

    private long[] rangeList(Unit unit, int form, long value) {
        List<Long> result = new ArrayList<>();
        if (unit.version() >= 5) {
            ByteView lists = sections.section(".debug_rnglists").orElseThrow(() ->
                    new DwarfFormatException(info.source(), "DW_AT_ranges without .debug_rnglists"));
            long offset = value;
            if (form == DW_FORM_RNGLISTX) { // an index into the offsets after the unit's base
                int size = unit.dwarf64() ? 8 : 4;
                long at = unit.rangeListsBase() + value * size;
                offset = unit.rangeListsBase() + (size == 8 ? lists.u64(at) : lists.u32(at));
            }
            DwarfCursor cursor = new DwarfCursor(lists, offset);
            long base = unit.lowPc();
            for (int i = 0; i < MAX_RANGES; i++) {
                int kind = cursor.u8();
                switch (kind) {
                    case 0 -> i = MAX_RANGES;
                    case 1 -> base = indexedAddress(unit, cursor.uleb());
                    case 2 -> add(result, indexedAddress(unit, cursor.uleb()), indexedAddress(unit, cursor.uleb()));
                    case 3 -> {
                        long start = indexedAddress(unit, cursor.uleb());
                        add(result, start, start + cursor.uleb());
                    }
                    case 4 -> {
                        long start = base + cursor.uleb();
                        add(result, start, base + cursor.uleb());
                    }
                    case 5 -> base = cursor.unsigned(unit.addressSize());
                    case 6 -> add(result, cursor.unsigned(unit.addressSize()), cursor.unsigned(unit.addressSize()));
                    case 7 -> {
                        long start = cursor.unsigned(unit.addressSize());
                        add(result, start, start + cursor.uleb());
                    }
                    default -> throw new DwarfFormatException(lists.source(), "unknown range list entry " + kind);
                }
            }
        } else {
            ByteView lists = sections.section(".debug_ranges").orElseThrow(() ->
                    new DwarfFormatException(info.source(), "DW_AT_ranges without .debug_ranges"));
            DwarfCursor cursor = new DwarfCursor(lists, value);
            long base = unit.lowPc();
            for (int i = 0; i < MAX_RANGES; i++) {
                long start = cursor.u64();
                long end = cursor.u64();
                if (start == 0 && end == 0) {
                    break;
                }
                if (start == -1L) {
                    base = end;
                    continue;
                }
                add(result, base + start, base + end);
            }
        }
        charge(8L * result.size(), "a range list at 0x%x".formatted(value));
        long[] flat = new long[result.size()];
        for (int i = 0; i < flat.length; i++) {
            flat[i] = result.get(i);
        }
        return flat;
    }

    private static void add(List<Long> ranges, long start, long end) {
        if (Long.compareUnsigned(start, end) < 0) {
            ranges.add(start);
            ranges.add(end);
        }
    }
}
