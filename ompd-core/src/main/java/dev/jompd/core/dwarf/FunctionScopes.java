package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The functions of {@code .debug_info} and the calls inlined into them ({@code DW_TAG_subprogram},
 * {@code DW_TAG_inlined_subroutine} with their pc ranges and call sites), DWARF 2 to 5 including
 * DWARF 5's indexed forms ({@code strx}, {@code addrx}, {@code rnglistx}). Compilation units are
 * indexed by their pc ranges up front (their first entry only); a unit's entries are parsed when an
 * address in it is first asked about, and kept.
 */
public final class FunctionScopes {
    private static final int MAX_UNITS = 1 << 20;
    private static final int MAX_DEPTH = 512;
    private static final int MAX_REFERENCE_HOPS = 8;
    private static final int MAX_RANGES = 1 << 16;

    private static final int DW_TAG_CLASS = 0x02;
    private static final int DW_TAG_STRUCTURE = 0x13;
    private static final int DW_TAG_UNION = 0x17;
    private static final int DW_TAG_INLINED_SUBROUTINE = 0x1d;
    private static final int DW_TAG_SUBPROGRAM = 0x2e;
    private static final int DW_TAG_NAMESPACE = 0x39;
    private static final int DW_TAG_MODULE = 0x1e;
    private static final int DW_TAG_COMPILE_UNIT = 0x11;
    private static final int DW_TAG_PARTIAL_UNIT = 0x3c;
    private static final int DW_TAG_SKELETON_UNIT = 0x4a;
    private static final int DW_TAG_CALL_SITE = 0x48;
    private static final int DW_TAG_GNU_CALL_SITE = 0x4109;

    /**
     * One scope containing an address: a function, or a call inlined into the scope before it.
     *
     * @param function   the function's name as gdb shows it (qualified for C++ members)
     * @param callFile   for an inlined call: the file of the call site in the enclosing scope
     * @param callLine   for an inlined call: the line of the call site
     * @param callColumn for an inlined call: the column (0 when unknown)
     */
    public record Scope(String function, boolean inlined, Optional<String> callFile, int callLine, int callColumn) {}

    private record Unit(long offset, long end, int version, boolean dwarf64, int addressSize, long abbrevOffset,
                        long dieStart, long lowPc, long[] ranges, long lineOffset, String compilationDirectory,
                        long stringOffsetsBase, long addressBase, long rangeListsBase, int language) {
        /** C (89, 99, 11, 17): gdb names C functions by their linkage name when they have one. */
        boolean isC() {
            return language == 0x01 || language == 0x02 || language == 0x0c || language == 0x1d || language == 0x2c;
        }

        /** Fortran (77, 90, 95, 2003, 2008): gdb names a contained procedure {@code host::name}. */
        boolean isFortran() {
            return language == 0x07 || language == 0x08 || language == 0x0e || language == 0x22 || language == 0x23;
        }

        /** C++ (98, 03, 11, 14, 17, 20). */
        boolean isCxx() {
            return language == 0x04 || language == 0x19 || language == 0x1a || language == 0x21 || language == 0x2a
                    || language == 0x2b;
        }
    }

    private record Attribute(int name, int form, long implicitConstant) {}

    private record Abbreviation(int tag, boolean hasChildren, Attribute[] attributes) {}

    /** What a parsed unit keeps: the named entries names are built from and the pc scopes. */
    private static final class ParsedUnit {
        final Map<Long, NamedEntry> entries = new HashMap<>();
        final List<ScopeEntry> topLevel = new ArrayList<>();
        /** Concrete functions by their own entry offset and by the declaration they define. */
        final Map<Long, ScopeEntry> functionsByEntry = new HashMap<>();
        final List<RawCallSite> callSites = new ArrayList<>();
    }

    private record RawCallSite(long returnPc, boolean tailCall, long target, ScopeEntry function) {}

    /**
     * A call the compiler described ({@code DW_TAG_call_site}): its return address, whether it is a
     * tail call (a jump), and its target function: its entry address when this unit defines it, and
     * its name (for the symbol tables) otherwise.
     */
    public record CallSite(long returnPc, boolean tailCall, OptionalLong targetEntry, Optional<String> targetName) {}

    private record NamedEntry(int tag, String name, String linkageName, long parent, long reference) {}

    private static final class ScopeEntry {
        long[] ranges;
        long dieOffset;
        boolean inlined;
        long callFile = -1;
        int callLine;
        int callColumn;
        final List<ScopeEntry> children = new ArrayList<>(0);
    }

    private final DebugSections sections;
    private final ByteView info;
    private final ByteView abbrev;
    private final Map<Long, Abbreviation[]> abbreviations = new ConcurrentHashMap<>();
    private final Map<Long, ParsedUnit> parsed = new ConcurrentHashMap<>();
    private final Map<Long, Unit> unitsByOffset = new ConcurrentHashMap<>();
    private final Map<Long, Optional<LineTable>> unitLines = new ConcurrentHashMap<>();
    /** {@code .debug_aranges}: sorted [start, end) → unit offset; empty when the file has none. */
    private long[] arangeStarts = new long[0];
    private long[] arangeEnds = new long[0];
    private long[] arangeUnits = new long[0];
    /** Every unit (only built when .debug_aranges does not cover an address). */
    private List<Unit> allUnits;

    private FunctionScopes(DebugSections sections, ByteView info, ByteView abbrev) {
        this.sections = sections;
        this.info = info;
        this.abbrev = abbrev;
        sections.section(".debug_aranges").ifPresent(this::indexAddressRanges);
    }

    /** The scopes of a file with {@code .debug_info}; empty without it. Units are read when asked about. */
    public static Optional<FunctionScopes> of(DebugSections sections) {
        Optional<ByteView> info = sections.section(".debug_info");
        Optional<ByteView> abbrev = sections.section(".debug_abbrev");
        if (info.isEmpty() || abbrev.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new FunctionScopes(sections, info.get(), abbrev.get()));
    }

    /**
     * The line table row for {@code address}, from the line program of the unit that contains it (as
     * gdb looks lines up by unit); empty when no unit or row covers it.
     */
    public Optional<LineTable.Row> lineAt(long address) {
        for (Unit unit : unitsFor(address)) {
            Optional<LineTable.Row> row = linesOf(unit).flatMap(table -> table.lookup(address));
            if (row.isPresent()) {
                return row;
            }
        }
        return Optional.empty();
    }

    private Optional<LineTable> linesOf(Unit unit) {
        if (unit.lineOffset() < 0) {
            return Optional.empty();
        }
        return unitLines.computeIfAbsent(unit.lineOffset(), offset -> sections.section(".debug_line").map(line ->
                LineTable.parseUnitAt(line, offset, sections.section(".debug_line_str"), sections.section(".debug_str"),
                        unit.compilationDirectory())));
    }

    /** The units that may contain {@code address}: by .debug_aranges, else by every unit's own ranges. */
    private synchronized List<Unit> unitsFor(long address) {
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
        if (allUnits == null) {
            allUnits = indexUnits();
        }
        List<Unit> candidates = new ArrayList<>();
        for (Unit unit : allUnits) {
            if (unit.ranges() == null || contains(unit.ranges(), address)) {
                candidates.add(unit);
            }
        }
        return candidates;
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

    private void indexAddressRanges(ByteView aranges) {
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
        arangeStarts = entries.stream().mapToLong(e -> e[0]).toArray();
        arangeEnds = entries.stream().mapToLong(e -> e[1]).toArray();
        arangeUnits = entries.stream().mapToLong(e -> e[2]).toArray();
    }

    /**
     * The scopes containing {@code address} (a file address), outermost (the function) first, then each
     * inlined call inside it; empty when no unit describes the address.
     */
    public List<Scope> scopesAt(long address) {
        for (Unit unit : unitsFor(address)) {
            ParsedUnit parsedUnit = parsed.computeIfAbsent(unit.offset(), offset -> parseUnit(unit));
            List<ScopeEntry> chain = new ArrayList<>();
            List<ScopeEntry> level = parsedUnit.topLevel;
            for (int depth = 0; depth < MAX_DEPTH; depth++) {
                ScopeEntry inside = null;
                for (ScopeEntry entry : level) {
                    if (contains(entry.ranges, address)) {
                        inside = entry; // the last one, as gdb: assembler units list each alias of a function
                    }
                }
                if (inside == null) {
                    break;
                }
                chain.add(inside);
                level = inside.children;
            }
            if (chain.isEmpty()) {
                continue;
            }
            Optional<LineTable> lines = chain.size() > 1 ? linesOf(unit) : Optional.empty();
            List<Scope> scopes = new ArrayList<>(chain.size());
            for (ScopeEntry entry : chain) {
                Optional<String> callFile = entry.inlined && lines.isPresent()
                        ? lines.get().file(unit.lineOffset(), entry.callFile) : Optional.empty();
                scopes.add(new Scope(functionName(unit, parsedUnit, entry).orElse("??"), entry.inlined, callFile,
                        entry.callLine, entry.callColumn));
            }
            return scopes;
        }
        return List.of();
    }

    /**
     * A call inlined directly into a function (not into a call inlined there): the inlined function's name
     * as gdb names its frame, the declaration it stands for (its abstract origin: one per inlined function),
     * and where the call is.
     *
     * @param origin   the offset in {@code .debug_info} of the inlined function's own entry (-1 when none)
     * @param callFile the file of the call site, when the line program names it
     */
    public record InlinedCall(String function, long origin, Optional<String> callFile, int callLine) {}

    /**
     * The calls inlined directly into the function whose code begins at {@code entry} (a file address),
     * in the order the unit lists them; empty when no unit describes a function beginning there.
     */
    public Optional<List<InlinedCall>> inlinedCallsOf(long entry) {
        for (Unit unit : unitsFor(entry)) {
            ParsedUnit parsedUnit = parsed.computeIfAbsent(unit.offset(), offset -> parseUnit(unit));
            ScopeEntry function = null;
            for (ScopeEntry candidate : parsedUnit.topLevel) {
                if (lowest(candidate.ranges) == entry) {
                    function = candidate;
                }
            }
            if (function == null) {
                continue;
            }
            Optional<LineTable> lines = function.children.isEmpty() ? Optional.empty() : linesOf(unit);
            List<InlinedCall> calls = new ArrayList<>(function.children.size());
            for (ScopeEntry call : function.children) {
                NamedEntry named = parsedUnit.entries.get(call.dieOffset);
                Optional<String> callFile = lines.flatMap(table -> table.file(unit.lineOffset(), call.callFile));
                calls.add(new InlinedCall(functionName(unit, parsedUnit, call).orElse("??"),
                        named != null ? named.reference() : -1, callFile, call.callLine));
            }
            return Optional.of(List.copyOf(calls));
        }
        return Optional.empty();
    }

    private static long lowest(long[] ranges) {
        long lowest = -1;
        for (int i = 0; i + 1 < ranges.length; i += 2) {
            if (lowest == -1 || Long.compareUnsigned(ranges[i], lowest) < 0) {
                lowest = ranges[i];
            }
        }
        return lowest;
    }

    /** The call site whose return address is {@code returnPc} (a file address), when described. */
    public Optional<CallSite> callSiteReturningTo(long returnPc) {
        for (Unit unit : unitsFor(returnPc - 1)) {
            ParsedUnit parsedUnit = parsed.computeIfAbsent(unit.offset(), offset -> parseUnit(unit));
            for (RawCallSite site : parsedUnit.callSites) {
                if (site.returnPc() == returnPc) {
                    return Optional.of(resolve(unit, parsedUnit, site));
                }
            }
        }
        return Optional.empty();
    }

    /** The entry address of the function containing {@code address}, when a unit describes it. */
    public OptionalLong functionEntryAt(long address) {
        for (Unit unit : unitsFor(address)) {
            ParsedUnit parsedUnit = parsed.computeIfAbsent(unit.offset(), offset -> parseUnit(unit));
            ScopeEntry found = null;
            for (ScopeEntry entry : parsedUnit.topLevel) {
                if (contains(entry.ranges, address)) {
                    found = entry;
                }
            }
            if (found != null) {
                return OptionalLong.of(found.ranges[0]);
            }
        }
        return OptionalLong.empty();
    }

    /** The tail calls made by the function whose entry address is {@code entry}. */
    public List<CallSite> tailCallsOf(long entry) {
        List<CallSite> sites = new ArrayList<>();
        for (Unit unit : unitsFor(entry)) {
            ParsedUnit parsedUnit = parsed.computeIfAbsent(unit.offset(), offset -> parseUnit(unit));
            for (RawCallSite site : parsedUnit.callSites) {
                if (site.tailCall() && site.function() != null && site.function().ranges[0] == entry) {
                    sites.add(resolve(unit, parsedUnit, site));
                }
            }
        }
        return sites;
    }

    private CallSite resolve(Unit unit, ParsedUnit parsedUnit, RawCallSite site) {
        OptionalLong entry = OptionalLong.empty();
        Optional<String> name = Optional.empty();
        if (site.target() >= 0) {
            ScopeEntry function = parsedUnit.functionsByEntry.get(site.target());
            if (function != null) {
                entry = OptionalLong.of(function.ranges[0]);
            }
            NamedEntry named = parsedUnit.entries.get(site.target());
            for (int hop = 0; named != null && hop < MAX_REFERENCE_HOPS; hop++) {
                if (named.linkageName() != null || named.name() != null) {
                    name = Optional.ofNullable(named.linkageName() != null ? named.linkageName() : named.name());
                    break;
                }
                named = named.reference() >= 0 ? parsedUnit.entries.get(named.reference()) : null;
            }
        }
        return new CallSite(site.returnPc(), site.tailCall(), entry, name);
    }

    private static boolean contains(long[] ranges, long address) {
        for (int i = 0; i + 1 < ranges.length; i += 2) {
            if (Long.compareUnsigned(address, ranges[i]) >= 0 && Long.compareUnsigned(address, ranges[i + 1]) < 0) {
                return true;
            }
        }
        return false;
    }

    private Optional<String> nameOf(Unit unit, ParsedUnit parsedUnit, long dieOffset) {
        long offset = dieOffset;
        for (int hop = 0; hop < MAX_REFERENCE_HOPS; hop++) {
            NamedEntry entry = parsedUnit.entries.get(offset);
            if (entry == null) {
                return Optional.empty(); // another unit's entry (DW_FORM_ref_addr): not followed
            }
            if (unit.isC() && entry.linkageName() != null) {
                return Optional.of(entry.linkageName()); // glibc's __GI_ aliases, as gdb shows them
            }
            if (entry.name() != null) {
                return Optional.of(qualifier(unit, parsedUnit, entry.parent()) + entry.name());
            }
            if (unit.isCxx() && entry.linkageName() != null && !entry.linkageName().startsWith("_Z")) {
                // A C++ function known by a linkage name that is no mangled name (clang's .omp_task_entry.):
                // gdb cannot demangle it and shows it as it is.
                return Optional.of(entry.linkageName());
            }
            if (entry.reference() < 0) {
                return Optional.empty();
            }
            offset = entry.reference();
        }
        return Optional.empty();
    }

    /**
     * A function's name as gdb's backtrace shows it. gdb names a C++ function without a linkage name by
     * its name and parameter types ({@code dwarf2_compute_name}), then strips the parameters again where
     * the name parses as C++ ({@code cp_remove_params}); the names compilers give generated functions
     * ({@code _ZL4workR6DomainPd.omp_outlined}, {@code main._omp_fn.0}) do not parse, so gdb shows them
     * with their parameters: {@code _ZL4workR6DomainPd.omp_outlined_debug__(Domain &, double *&) const}.
     * Where a parameter's type is one this spelling does not cover, the bare name.
     */
    private Optional<String> functionName(Unit unit, ParsedUnit parsedUnit, ScopeEntry entry) {
        Optional<String> name = nameOf(unit, parsedUnit, entry.dieOffset);
        if (!unit.isCxx() || entry.inlined || name.isEmpty() || name.get().indexOf('.') < 0
                || hasLinkageName(parsedUnit, entry.dieOffset)) {
            return name;
        }
        try {
            return Optional.of(name.get() + parameterList(unit, parsedUnit, entry.dieOffset).orElse(""));
        } catch (DwarfFormatException | IndexOutOfBoundsException | ClassCastException damaged) {
            return name;
        }
    }

    private static boolean hasLinkageName(ParsedUnit parsedUnit, long dieOffset) {
        long offset = dieOffset;
        for (int hop = 0; hop < MAX_REFERENCE_HOPS && offset >= 0; hop++) {
            NamedEntry entry = parsedUnit.entries.get(offset);
            if (entry == null) {
                return false;
            }
            if (entry.linkageName() != null) {
                return true;
            }
            offset = entry.reference();
        }
        return false;
    }

    private static final int DW_TAG_FORMAL_PARAMETER = 0x05;
    private static final int DW_TAG_UNSPECIFIED_PARAMETERS = 0x18;
    private static final int DW_AT_NAME = 0x03;
    private static final int DW_AT_TYPE = 0x49;
    private static final int DW_AT_ARTIFICIAL = 0x34;
    private static final int DW_AT_ABSTRACT_ORIGIN = 0x31;
    private static final int MAX_PARAMETER_ENTRIES = 4096;

    /** One entry read on its own: its tag, attributes (form, value), and where the next entry starts. */
    private record Entry(int tag, boolean hasChildren, Map<Integer, Object[]> values, long next) {
        boolean isNull() {
            return tag == 0;
        }
    }

    private Entry readEntry(Unit unit, long offset) {
        if (offset < unit.dieStart() || offset >= unit.end()) {
            throw new DwarfFormatException(info.source(), "entry 0x%x outside its unit".formatted(offset));
        }
        DwarfCursor cursor = new DwarfCursor(info, offset);
        int code = cursor.ulebInt("abbreviation code");
        if (code == 0) {
            return new Entry(0, false, Map.of(), cursor.position());
        }
        Abbreviation abbreviation = abbreviation(unit, code);
        Map<Integer, Object[]> values = new HashMap<>();
        for (Attribute attribute : abbreviation.attributes()) {
            values.put(attribute.name(), new Object[] {attribute.form(), readValue(cursor, unit, attribute, true)});
        }
        return new Entry(abbreviation.tag(), abbreviation.hasChildren(), values, cursor.position());
    }

    /** An attribute of an entry or of the entry it takes its description from (abstract origin). */
    private Object[] attribute(Unit unit, Entry entry, int name) {
        Entry current = entry;
        for (int hop = 0; hop < MAX_REFERENCE_HOPS; hop++) {
            Object[] value = current.values().get(name);
            if (value != null) {
                return value;
            }
            Object[] origin = current.values().get(DW_AT_ABSTRACT_ORIGIN);
            if (origin == null) {
                return null;
            }
            current = readEntry(unit, reference(unit, origin));
        }
        return null;
    }

    /**
     * {@code (Domain &, double *&) const} as gdb's {@code c_type_print_args} spells a C++ function's
     * parameters for its name: artificial ones left out, {@code void} for none, {@code const} after when the
     * first parameter is an artificial pointer to const (gdb takes it for {@code this}).
     */
    private Optional<String> parameterList(Unit unit, ParsedUnit parsedUnit, long dieOffset) {
        Entry function = readEntry(unit, dieOffset);
        if (!function.hasChildren()) {
            return Optional.of("(void)");
        }
        List<String> types = new ArrayList<>();
        boolean varargs = false;
        boolean constThis = false;
        boolean first = true;
        long position = function.next();
        int depth = 1;
        for (int read = 0; depth > 0 && read < MAX_PARAMETER_ENTRIES; read++) {
            Entry child = readEntry(unit, position);
            position = child.next();
            if (child.isNull()) {
                depth--;
                continue;
            }
            if (depth == 1 && child.tag() == DW_TAG_FORMAL_PARAMETER) {
                Object[] type = attribute(unit, child, DW_AT_TYPE);
                Object[] artificial = attribute(unit, child, DW_AT_ARTIFICIAL);
                boolean isArtificial = artificial != null && number(artificial, 0) != 0;
                if (first && isArtificial && type != null) {
                    constThis = isPointerToConst(unit, reference(unit, type));
                }
                first = false;
                if (!isArtificial) {
                    Optional<String> spelled = type == null ? Optional.empty() : typeName(unit, parsedUnit, reference(unit, type));
                    if (spelled.isEmpty()) {
                        return Optional.empty();
                    }
                    types.add(spelled.get());
                }
            } else if (depth == 1 && child.tag() == DW_TAG_UNSPECIFIED_PARAMETERS) {
                varargs = true;
            }
            if (child.hasChildren()) {
                depth++;
            }
        }
        if (depth > 0) {
            return Optional.empty();
        }
        String list = types.isEmpty() ? "void" : String.join(", ", types) + (varargs ? ", ..." : "");
        return Optional.of("(" + list + ")" + (constThis ? " const" : ""));
    }

    private static final int DW_TAG_POINTER = 0x0f;
    private static final int DW_TAG_REFERENCE = 0x10;
    private static final int DW_TAG_RVALUE_REFERENCE = 0x42;
    private static final int DW_TAG_CONST = 0x26;
    private static final int DW_TAG_VOLATILE = 0x35;
    private static final int DW_TAG_RESTRICT = 0x37;
    private static final int DW_TAG_BASE_TYPE = 0x24;
    private static final int DW_TAG_TYPEDEF = 0x16;
    private static final int DW_TAG_ENUMERATION = 0x04;

    /** Whether a type is a pointer (qualified or not) whose pointee is const. */
    private boolean isPointerToConst(Unit unit, long offset) {
        Entry type = readEntry(unit, offset);
        for (int hop = 0; hop < MAX_REFERENCE_HOPS && (type.tag() == DW_TAG_CONST || type.tag() == DW_TAG_VOLATILE
                || type.tag() == DW_TAG_RESTRICT) && type.values().containsKey(DW_AT_TYPE); hop++) {
            type = readEntry(unit, reference(unit, type.values().get(DW_AT_TYPE)));
        }
        if (type.tag() != DW_TAG_POINTER || !type.values().containsKey(DW_AT_TYPE)) {
            return false;
        }
        Entry pointee = readEntry(unit, reference(unit, type.values().get(DW_AT_TYPE)));
        for (int hop = 0; hop < MAX_REFERENCE_HOPS; hop++) {
            if (pointee.tag() == DW_TAG_CONST) {
                return true;
            }
            if ((pointee.tag() != DW_TAG_VOLATILE && pointee.tag() != DW_TAG_RESTRICT)
                    || !pointee.values().containsKey(DW_AT_TYPE)) {
                return false;
            }
            pointee = readEntry(unit, reference(unit, pointee.values().get(DW_AT_TYPE)));
        }
        return false;
    }

    /**
     * A parameter's type as gdb's {@code c_print_type} writes it, its own const/volatile dropped (as gdb does
     * for names): {@code double *&}, {@code const char *}, {@code std::string &}. Named types, pointers,
     * references and const/volatile on the named type only; anything else (arrays, function pointers,
     * qualified pointers, unnamed types) is empty: not spelled rather than spelled wrong.
     */
    private Optional<String> typeName(Unit unit, ParsedUnit parsedUnit, long offset) {
        StringBuilder declarator = new StringBuilder();
        String qualifiers = "";
        boolean topLevel = true;
        long current = offset;
        for (int hop = 0; hop < 64; hop++) {
            if (current < 0) {
                return Optional.empty();
            }
            Entry type = readEntry(unit, current);
            Object[] next = type.values().get(DW_AT_TYPE);
            switch (type.tag()) {
                case DW_TAG_CONST, DW_TAG_VOLATILE -> {
                    if (!topLevel) {
                        if (!declarator.isEmpty() && peekIsIndirection(unit, next)) {
                            return Optional.empty(); // a qualified pointer inside: "char * const *"
                        }
                        String word = type.tag() == DW_TAG_CONST ? "const " : "volatile ";
                        qualifiers = qualifiers.contains(word) ? qualifiers : qualifiers + word;
                    }
                    if (next == null) {
                        return Optional.of(qualifiers + "void" + (declarator.isEmpty() ? "" : " " + declarator));
                    }
                    current = reference(unit, next);
                }
                case DW_TAG_POINTER, DW_TAG_REFERENCE, DW_TAG_RVALUE_REFERENCE -> {
                    String mark = type.tag() == DW_TAG_POINTER ? "*" : type.tag() == DW_TAG_REFERENCE ? "&" : "&&";
                    declarator.insert(0, mark);
                    topLevel = false;
                    if (next == null) {
                        return Optional.of(qualifiers + "void " + declarator);
                    }
                    current = reference(unit, next);
                }
                case DW_TAG_BASE_TYPE, DW_TAG_TYPEDEF, DW_TAG_STRUCTURE, DW_TAG_CLASS, DW_TAG_UNION, DW_TAG_ENUMERATION -> {
                    Object[] name = type.values().get(DW_AT_NAME);
                    if (name == null) {
                        return Optional.empty();
                    }
                    NamedEntry named = parsedUnit.entries.get(current);
                    String prefix = named != null ? qualifier(unit, parsedUnit, named.parent()) : "";
                    return Optional.of(qualifiers + prefix + string(unit, name)
                            + (declarator.isEmpty() ? "" : " " + declarator));
                }
                default -> {
                    return Optional.empty(); // restrict, arrays, functions, members: not spelled
                }
            }
        }
        return Optional.empty();
    }

    private boolean peekIsIndirection(Unit unit, Object[] next) {
        if (next == null) {
            return false;
        }
        int tag = readEntry(unit, reference(unit, next)).tag();
        return tag == DW_TAG_POINTER || tag == DW_TAG_REFERENCE || tag == DW_TAG_RVALUE_REFERENCE;
    }

    private static String qualifier(Unit unit, ParsedUnit parsedUnit, long parent) {
        StringBuilder prefix = new StringBuilder();
        long offset = parent;
        for (int hop = 0; hop < MAX_DEPTH && offset >= 0; hop++) {
            NamedEntry entry = parsedUnit.entries.get(offset);
            if (entry == null) {
                break;
            }
            boolean qualifies = entry.tag() == DW_TAG_NAMESPACE || entry.tag() == DW_TAG_CLASS
                    || entry.tag() == DW_TAG_STRUCTURE || entry.tag() == DW_TAG_UNION
                    // Fortran: a contained procedure's host program/procedure and a module procedure's module
                    || unit.isFortran() && (entry.tag() == DW_TAG_SUBPROGRAM || entry.tag() == DW_TAG_MODULE);
            if (qualifies) {
                String name = entry.name() != null ? entry.name()
                        : entry.tag() == DW_TAG_NAMESPACE ? "(anonymous namespace)" : "{unnamed}";
                prefix.insert(0, name + "::");
            }
            offset = entry.parent();
        }
        return prefix.toString();
    }

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
        Map<Integer, Object[]> values = new HashMap<>();
        for (Attribute attribute : abbreviation.attributes()) {
            Object[] value = new Object[2];
            value[0] = attribute.form();
            value[1] = readValue(cursor, header, attribute, true);
            values.put(attribute.name(), value);
        }
        long stringOffsetsBase = number(values.get(0x72), 0);
        long addressBase = number(values.get(0x73), 0);
        long rangeListsBase = number(values.get(0x74), 0);
        Unit withBases = new Unit(header.offset(), header.end(), header.version(), header.dwarf64(),
                header.addressSize(), header.abbrevOffset(), header.dieStart(), 0, null, number(values.get(0x10), -1),
                "", stringOffsetsBase, addressBase, rangeListsBase, 0);
        int language = (int) number(values.get(0x13), 0);
        String directory = values.containsKey(0x1b) ? string(withBases, values.get(0x1b)) : "";
        long lowPc = values.containsKey(0x11) ? address(withBases, values.get(0x11)) : 0;
        Unit based = new Unit(withBases.offset(), withBases.end(), withBases.version(), withBases.dwarf64(),
                withBases.addressSize(), withBases.abbrevOffset(), withBases.dieStart(), lowPc, null,
                withBases.lineOffset(), directory, stringOffsetsBase, addressBase, rangeListsBase, language);
        long[] ranges = rangesOf(based, values.get(0x11), values.get(0x12), values.get(0x55));
        if (ranges.length == 0) {
            ranges = null; // unknown: the unit is parsed when an address is looked up
        }
        return new Unit(based.offset(), based.end(), based.version(), based.dwarf64(), based.addressSize(),
                based.abbrevOffset(), based.dieStart(), lowPc, ranges, based.lineOffset(), directory,
                stringOffsetsBase, addressBase, rangeListsBase, language);
    }

    private ParsedUnit parseUnit(Unit unit) {
        ParsedUnit result = new ParsedUnit();
        DwarfCursor cursor = new DwarfCursor(info, unit.dieStart());
        long[] parents = new long[MAX_DEPTH];
        ScopeEntry[] scopeAtDepth = new ScopeEntry[MAX_DEPTH];
        int depth = 0;
        parents[0] = -1;
        Map<Integer, Object[]> values = new HashMap<>();
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
            int tag = abbreviation.tag();
            boolean callSite = tag == DW_TAG_CALL_SITE || tag == DW_TAG_GNU_CALL_SITE;
            boolean interesting = tag == DW_TAG_SUBPROGRAM || tag == DW_TAG_INLINED_SUBROUTINE || callSite
                    || tag == DW_TAG_NAMESPACE || tag == DW_TAG_CLASS || tag == DW_TAG_STRUCTURE || tag == DW_TAG_UNION
                    || tag == DW_TAG_MODULE;
            values.clear();
            for (Attribute attribute : abbreviation.attributes()) {
                if (interesting) {
                    values.put(attribute.name(), new Object[] {attribute.form(), readValue(cursor, unit, attribute, true)});
                } else {
                    skipValue(cursor, unit, attribute);
                }
            }
            ScopeEntry enclosingScope = null;
            for (int d = depth; d >= 0; d--) {
                if (scopeAtDepth[d] != null) {
                    enclosingScope = scopeAtDepth[d];
                    break;
                }
            }
            ScopeEntry scope = null;
            if (interesting) {
                String name = values.containsKey(0x03) ? string(unit, values.get(0x03)) : null;
                String linkageName = values.containsKey(0x6e) ? string(unit, values.get(0x6e))
                        : values.containsKey(0x2007) ? string(unit, values.get(0x2007)) : null;
                long reference = values.containsKey(0x31) ? reference(unit, values.get(0x31))
                        : values.containsKey(0x47) ? reference(unit, values.get(0x47)) : -1;
                result.entries.put(dieOffset, new NamedEntry(tag, name, linkageName, parents[depth], reference));
                if (callSite) {
                    Object[] returnPc = values.containsKey(0x7d) ? values.get(0x7d) : values.get(0x11);
                    Object[] target = values.containsKey(0x7f) ? values.get(0x7f) : values.get(0x31);
                    ScopeEntry function = null;
                    for (int d = depth; d >= 0 && function == null; d--) {
                        if (scopeAtDepth[d] != null && !scopeAtDepth[d].inlined) {
                            function = scopeAtDepth[d];
                        }
                    }
                    if (returnPc != null) {
                        result.callSites.add(new RawCallSite(address(unit, returnPc),
                                values.containsKey(0x82) || values.containsKey(0x2115),
                                target != null ? reference(unit, target) : -1, function));
                    }
                }
                if ((tag == DW_TAG_SUBPROGRAM || tag == DW_TAG_INLINED_SUBROUTINE)
                        && (values.containsKey(0x11) || values.containsKey(0x55))) {
                    long[] ranges = rangesOf(unit, values.get(0x11), values.get(0x12), values.get(0x55));
                    if (ranges.length > 0) {
                        scope = new ScopeEntry();
                        scope.ranges = ranges;
                        scope.dieOffset = dieOffset;
                        scope.inlined = tag == DW_TAG_INLINED_SUBROUTINE;
                        scope.callFile = number(values.get(0x58), -1);
                        scope.callLine = (int) number(values.get(0x59), 0);
                        scope.callColumn = (int) number(values.get(0x57), 0);
                        if (enclosingScope != null && scope.inlined) {
                            enclosingScope.children.add(scope);
                        } else if (!scope.inlined) {
                            result.topLevel.add(scope);
                            result.functionsByEntry.put(dieOffset, scope);
                            if (reference >= 0) {
                                result.functionsByEntry.putIfAbsent(reference, scope);
                            }
                        }
                    }
                }
            }
            if (abbreviation.hasChildren()) {
                if (depth + 1 >= MAX_DEPTH) {
                    throw new DwarfFormatException(info.source(), "entries nested deeper than " + MAX_DEPTH);
                }
                depth++;
                parents[depth] = dieOffset;
                scopeAtDepth[depth] = scope;
            }
        }
        return result;
    }

    private Abbreviation abbreviation(Unit unit, int code) {
        Abbreviation[] table = abbreviations.computeIfAbsent(unit.abbrevOffset(), this::parseAbbreviations);
        if (code <= 0 || code >= table.length || table[code] == null) {
            throw new DwarfFormatException(info.source(), "unit at 0x%x uses unknown abbreviation %d".formatted(unit.offset(), code));
        }
        return table[code];
    }

    private Abbreviation[] parseAbbreviations(long offset) {
        if (offset < 0 || offset >= abbrev.size()) {
            throw new DwarfFormatException(abbrev.source(), "abbreviation table offset 0x%x outside .debug_abbrev".formatted(offset));
        }
        DwarfCursor cursor = new DwarfCursor(abbrev, offset);
        Map<Integer, Abbreviation> byCode = new HashMap<>();
        int maxCode = 0;
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
                long implicit = form == 0x21 ? cursor.sleb() : 0;
                attributes.add(new Attribute(name, form, implicit));
                if (attributes.size() > 4096) {
                    throw new DwarfFormatException(abbrev.source(), "abbreviation %d has too many attributes".formatted(code));
                }
            }
            byCode.put(code, new Abbreviation(tag, hasChildren, attributes.toArray(Attribute[]::new)));
            maxCode = Math.max(maxCode, code);
        }
        Abbreviation[] table = new Abbreviation[maxCode + 1];
        byCode.forEach((code, abbreviation) -> table[code] = abbreviation);
        return table;
    }

    /** Form classes kept unresolved until needed: a number, or a string for inline strings. */
    private Object readValue(DwarfCursor cursor, Unit unit, Attribute attribute, boolean keep) {
        int form = attribute.form();
        for (int indirections = 0; form == 0x16 && indirections < 4; indirections++) {
            form = cursor.ulebInt("form");
        }
        return switch (form) {
            case 0x01 -> cursor.unsigned(unit.addressSize());
            case 0x03 -> skipBlock(cursor, cursor.u16());
            case 0x04 -> skipBlock(cursor, cursor.u32());
            case 0x05 -> (long) cursor.u16();
            case 0x06 -> cursor.u32();
            case 0x07 -> cursor.u64();
            case 0x08 -> keep ? cursor.cString() : skipString(cursor);
            case 0x09, 0x18 -> skipBlock(cursor, cursor.uleb());
            case 0x0a -> skipBlock(cursor, cursor.u8());
            case 0x0b, 0x0c, 0x11 -> (long) cursor.u8();
            case 0x0d -> cursor.sleb();
            case 0x0e, 0x10, 0x17, 0x1d, 0x1f, 0x1f20, 0x1f21 -> cursor.offset(unit.dwarf64());
            case 0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02 -> cursor.uleb();
            case 0x12 -> (long) cursor.u16();
            case 0x13, 0x1c -> cursor.u32();
            case 0x14, 0x20, 0x24 -> cursor.u64();
            case 0x19 -> 1L;
            case 0x1e -> skipBlock(cursor, 16);
            case 0x21 -> attribute.implicitConstant();
            case 0x25, 0x29 -> (long) cursor.u8();
            case 0x26, 0x2a -> (long) cursor.u16();
            case 0x27, 0x2b -> cursor.unsigned(3);
            case 0x28, 0x2c -> cursor.u32();
            default -> throw new DwarfFormatException(info.source(), "unknown attribute form 0x%x at 0x%x"
                    .formatted(form, cursor.position()));
        };
    }

    /** Steps over an attribute's value without decoding it (most entries are types and variables). */
    private void skipValue(DwarfCursor cursor, Unit unit, Attribute attribute) {
        int form = attribute.form();
        long position = cursor.position();
        switch (form) {
            case 0x01 -> cursor.seek(position + unit.addressSize());
            case 0x0b, 0x0c, 0x11, 0x25, 0x29 -> cursor.seek(position + 1);
            case 0x05, 0x12, 0x26, 0x2a -> cursor.seek(position + 2);
            case 0x27, 0x2b -> cursor.seek(position + 3);
            case 0x06, 0x13, 0x1c, 0x28, 0x2c -> cursor.seek(position + 4);
            case 0x07, 0x14, 0x20, 0x24 -> cursor.seek(position + 8);
            case 0x0e, 0x10, 0x17, 0x1d, 0x1f, 0x1f20, 0x1f21 -> cursor.seek(position + (unit.dwarf64() ? 8 : 4));
            case 0x19, 0x21 -> { }
            default -> {
                readValue(cursor, unit, attribute, false);
                return;
            }
        }
        if (cursor.position() > info.size()) {
            throw new DwarfFormatException(info.source(), "attribute at 0x%x runs past .debug_info".formatted(position));
        }
    }

    private static Object skipBlock(DwarfCursor cursor, long length) {
        cursor.skip(length);
        return 0L;
    }

    private static Object skipString(DwarfCursor cursor) {
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

    private static long number(Object[] value, long otherwise) {
        return value != null && value[1] instanceof Long number ? number : otherwise;
    }

    private String string(Unit unit, Object[] value) {
        int form = (Integer) value[0];
        if (value[1] instanceof String text) {
            return text;
        }
        long number = (Long) value[1];
        return switch (form) {
            case 0x0e -> LineTable.stringAt(sections.section(".debug_str"), number, info.source());
            case 0x1f -> LineTable.stringAt(sections.section(".debug_line_str"), number, info.source());
            case 0x1a, 0x25, 0x26, 0x27, 0x28, 0x1f02 -> {
                int size = unit.dwarf64() ? 8 : 4;
                ByteView offsets = sections.section(".debug_str_offsets").orElseThrow(() ->
                        new DwarfFormatException(info.source(), "strx without .debug_str_offsets"));
                long base = unit.stringOffsetsBase() != 0 ? unit.stringOffsetsBase() : (unit.dwarf64() ? 16 : 8);
                long at = base + number * size;
                long offset = size == 8 ? offsets.u64(at) : offsets.u32(at);
                yield LineTable.stringAt(sections.section(".debug_str"), offset, info.source());
            }
            default -> "?";
        };
    }

    private long address(Unit unit, Object[] value) {
        int form = (Integer) value[0];
        long number = (Long) value[1];
        return switch (form) {
            case 0x1b, 0x29, 0x2a, 0x2b, 0x2c, 0x1f01 -> indexedAddress(unit, number);
            default -> number;
        };
    }

    private long indexedAddress(Unit unit, long index) {
        ByteView addresses = sections.section(".debug_addr").orElseThrow(() ->
                new DwarfFormatException(info.source(), "addrx without .debug_addr"));
        long at = unit.addressBase() + index * unit.addressSize();
        return unit.addressSize() == 8 ? addresses.u64(at) : addresses.u32(at);
    }

    private long reference(Unit unit, Object[] value) {
        int form = (Integer) value[0];
        long number = (Long) value[1];
        return switch (form) {
            case 0x11, 0x12, 0x13, 0x14, 0x15 -> unit.offset() + number;
            case 0x10 -> number;
            default -> -1;
        };
    }

    private static boolean isAddressForm(int form) {
        return form == 0x01 || form == 0x1b || (form >= 0x29 && form <= 0x2c) || form == 0x1f01;
    }

    private long[] rangesOf(Unit unit, Object[] lowPc, Object[] highPc, Object[] ranges) {
        if (ranges != null) {
            return rangeList(unit, (Integer) ranges[0], (Long) ranges[1]);
        }
        if (lowPc != null && highPc != null) {
            long low = address(unit, lowPc);
            long high = isAddressForm((Integer) highPc[0]) ? address(unit, highPc) : low + (Long) highPc[1];
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
            if (form == 0x23) { // rnglistx: an index into the offsets after the unit's base
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
