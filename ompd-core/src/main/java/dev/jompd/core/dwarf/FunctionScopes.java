package dev.jompd.core.dwarf;

import dev.jompd.core.dwarf.DebugInfoReader.Unit;
import dev.jompd.core.dwarf.DwarfNames.NamedEntry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

import static dev.jompd.core.dwarf.DebugInfoReader.MAX_DEPTH;
import static dev.jompd.core.dwarf.DwarfConstants.*;

/**
 * The functions of {@code .debug_info} and the calls inlined into them ({@code DW_TAG_subprogram},
 * {@code DW_TAG_inlined_subroutine} with their pc ranges), their names as gdb spells them ({@link DwarfNames})
 * and their call sites ({@link CallSites}), read through a {@link DebugInfoReader}. Compilation units are
 * indexed by their pc ranges up front (their first entry only); a unit's entries are parsed when an address
 * in it is first asked about, and kept.
 *
 * <p>Thread-safe: threads of one stop (the unwinder's and the picture's) may ask at once. A unit is parsed
 * once ({@code ConcurrentHashMap.computeIfAbsent}) and its parsed form is not changed after; the reader's
 * contract is the same.
 */
public final class FunctionScopes {
    /**
     * One scope containing an address: a function, or a call inlined into the scope before it.
     *
     * @param function    the function's name from its {@code DW_AT_name} (qualified for C++ members)
     * @param linkageName for C++, the function's linkage name, by which gdb names it where there is one
     * @param callFile   for an inlined call: the file of the call site in the enclosing scope
     * @param callLine   for an inlined call: the line of the call site
     * @param callColumn for an inlined call: the column (0 when unknown)
     */
    public record Scope(String function, Optional<String> linkageName, boolean inlined, Optional<String> callFile, int callLine, int callColumn) {}

    /**
     * A call inlined directly into a function (not into a call inlined there): the inlined function's name
     * as gdb names its frame, the declaration it stands for (its abstract origin: one per inlined function),
     * and where the call is.
     *
     * @param origin   the offset in {@code .debug_info} of the inlined function's own entry (-1 when none)
     * @param callFile the file of the call site, when the line program names it
     */
    public record InlinedCall(String function, long origin, Optional<String> callFile, int callLine) {}

    /** What a parsed unit keeps: the named entries names are built from, the pc scopes, the call sites. */
    private static final class ParsedUnit {
        final Map<Long, NamedEntry> entries = new HashMap<>();
        final List<ScopeEntry> topLevel = new ArrayList<>();
        /** Concrete functions' entry addresses by their own entry offset and by the declaration they define. */
        final Map<Long, Long> functionEntries = new HashMap<>();
        final CallSites callSites = new CallSites();
    }

    private static final class ScopeEntry {
        long[] ranges;
        long dieOffset;
        boolean inlined;
        long callFile = -1;
        int callLine;
        int callColumn;
        final List<ScopeEntry> children = new ArrayList<>(0);
    }

    /** Heap a kept entry takes: its NamedEntry, map node and boxed key, a scope's share. */
    private static final long BYTES_PER_ENTRY = 160;

    private final DebugInfoReader reader;
    private final DwarfNames names;
    private final Map<Long, ParsedUnit> parsed = new ConcurrentHashMap<>();

    private FunctionScopes(DebugInfoReader reader) {
        this.reader = reader;
        this.names = new DwarfNames(reader);
    }

    /** The scopes of a file with {@code .debug_info}; empty without it. Units are read when asked about. */
    public static Optional<FunctionScopes> of(DebugSections sections) {
        return DebugInfoReader.of(sections).map(FunctionScopes::new);
    }

    /**
     * The line table row for {@code address}, from the line program of the unit that contains it (as
     * gdb looks lines up by unit); empty when no unit or row covers it.
     */
    public Optional<LineTable.Row> lineAt(long address) {
        for (Unit unit : reader.unitsFor(address)) {
            Optional<LineTable.Row> row = reader.linesOf(unit).flatMap(table -> table.lookup(address));
            if (row.isPresent()) {
                return row;
            }
        }
        return Optional.empty();
    }

    private ParsedUnit parsed(Unit unit) {
        return parsed.computeIfAbsent(unit.offset(), offset -> {
            ParsedUnit parsedUnit = parseUnit(unit);
            reader.charge(BYTES_PER_ENTRY * parsedUnit.entries.size(), "the entries of unit 0x%x".formatted(offset));
            return parsedUnit;
        });
    }

    /**
     * The scopes containing {@code address} (a file address), outermost (the function) first, then each
     * inlined call inside it; empty when no unit describes the address.
     */
    public List<Scope> scopesAt(long address) {
        for (Unit unit : reader.unitsFor(address)) {
            ParsedUnit parsedUnit = parsed(unit);
            List<ScopeEntry> chain = new ArrayList<>();
            List<ScopeEntry> level = parsedUnit.topLevel;
            for (int depth = 0; depth < MAX_DEPTH; depth++) {
                ScopeEntry inside = null;
                for (ScopeEntry entry : level) {
                    if (DebugInfoReader.contains(entry.ranges, address)) {
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
            Optional<LineTable> lines = chain.size() > 1 ? reader.linesOf(unit) : Optional.empty();
            List<Scope> scopes = new ArrayList<>(chain.size());
            for (ScopeEntry entry : chain) {
                Optional<String> callFile = entry.inlined && lines.isPresent()
                        ? lines.get().file(unit.lineOffset(), entry.callFile) : Optional.empty();
                scopes.add(new Scope(functionName(unit, parsedUnit, entry).orElse("??"),
                        names.linkageName(unit, parsedUnit.entries, entry.dieOffset), entry.inlined, callFile,
                        entry.callLine, entry.callColumn));
            }
            return scopes;
        }
        return List.of();
    }

    /**
     * The calls inlined directly into the function whose code begins at {@code entry} (a file address),
     * in the order the unit lists them; empty when no unit describes a function beginning there.
     */
    public Optional<List<InlinedCall>> inlinedCallsOf(long entry) {
        for (Unit unit : reader.unitsFor(entry)) {
            ParsedUnit parsedUnit = parsed(unit);
            ScopeEntry function = null;
            for (ScopeEntry candidate : parsedUnit.topLevel) {
                if (lowest(candidate.ranges) == entry) {
                    function = candidate;
                }
            }
            if (function == null) {
                continue;
            }
            Optional<LineTable> lines = function.children.isEmpty() ? Optional.empty() : reader.linesOf(unit);
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
        for (Unit unit : reader.unitsFor(returnPc - 1)) {
            ParsedUnit parsedUnit = parsed(unit);
            Optional<CallSite> site = parsedUnit.callSites.returningTo(returnPc, parsedUnit.functionEntries,
                    parsedUnit.entries);
            if (site.isPresent()) {
                return site;
            }
        }
        return Optional.empty();
    }

    /** The entry address of the function containing {@code address}, when a unit describes it. */
    public OptionalLong functionEntryAt(long address) {
        for (Unit unit : reader.unitsFor(address)) {
            ParsedUnit parsedUnit = parsed(unit);
            ScopeEntry found = null;
            for (ScopeEntry entry : parsedUnit.topLevel) {
                if (DebugInfoReader.contains(entry.ranges, address)) {
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
        for (Unit unit : reader.unitsFor(entry)) {
            ParsedUnit parsedUnit = parsed(unit);
            sites.addAll(parsedUnit.callSites.tailCallsOf(entry, parsedUnit.functionEntries, parsedUnit.entries));
        }
        return sites;
    }

    private Optional<String> functionName(Unit unit, ParsedUnit parsedUnit, ScopeEntry entry) {
        return names.functionName(unit, parsedUnit.entries, entry.dieOffset, entry.inlined);
    }

    /** Reads a unit's functions, inlined calls, the entries names come from, and its call sites. */
    private ParsedUnit parseUnit(Unit unit) {
        ParsedUnit result = new ParsedUnit();
        long[] parents = new long[MAX_DEPTH];
        ScopeEntry[] scopeAtDepth = new ScopeEntry[MAX_DEPTH];
        parents[0] = -1;
        reader.walk(unit, tag -> DwarfNames.isNamed(tag) || CallSites.isCallSite(tag),
                (dieOffset, depth, tag, hasChildren, values) -> {
            boolean interesting = DwarfNames.isNamed(tag) || CallSites.isCallSite(tag);
            ScopeEntry enclosingScope = null;
            for (int d = depth; d >= 0; d--) {
                if (scopeAtDepth[d] != null) {
                    enclosingScope = scopeAtDepth[d];
                    break;
                }
            }
            ScopeEntry scope = null;
            if (interesting) {
                String name = values.containsKey(DW_AT_NAME) ? reader.string(unit, values.get(DW_AT_NAME)) : null;
                String linkageName = values.containsKey(DW_AT_LINKAGE_NAME) ? reader.string(unit, values.get(DW_AT_LINKAGE_NAME))
                        : values.containsKey(DW_AT_MIPS_LINKAGE_NAME) ? reader.string(unit, values.get(DW_AT_MIPS_LINKAGE_NAME))
                        : null;
                long reference = values.containsKey(DW_AT_ABSTRACT_ORIGIN) ? reader.reference(unit, values.get(DW_AT_ABSTRACT_ORIGIN))
                        : values.containsKey(DW_AT_SPECIFICATION) ? reader.reference(unit, values.get(DW_AT_SPECIFICATION)) : -1;
                result.entries.put(dieOffset, new NamedEntry(tag, name, linkageName, parents[depth], reference));
                if (CallSites.isCallSite(tag)) {
                    ScopeEntry function = null;
                    for (int d = depth; d >= 0 && function == null; d--) {
                        if (scopeAtDepth[d] != null && !scopeAtDepth[d].inlined) {
                            function = scopeAtDepth[d];
                        }
                    }
                    result.callSites.add(reader, unit, values, function != null ? function.ranges[0] : -1);
                }
                if ((tag == DW_TAG_SUBPROGRAM || tag == DW_TAG_INLINED_SUBROUTINE)
                        && (values.containsKey(DW_AT_LOW_PC) || values.containsKey(DW_AT_RANGES))) {
                    long[] ranges = reader.rangesOf(unit, values.get(DW_AT_LOW_PC), values.get(DW_AT_HIGH_PC),
                            values.get(DW_AT_RANGES));
                    if (ranges.length > 0) {
                        scope = new ScopeEntry();
                        scope.ranges = ranges;
                        scope.dieOffset = dieOffset;
                        scope.inlined = tag == DW_TAG_INLINED_SUBROUTINE;
                        scope.callFile = AttributeValue.number(values.get(DW_AT_CALL_FILE), -1);
                        scope.callLine = (int) AttributeValue.number(values.get(DW_AT_CALL_LINE), 0);
                        scope.callColumn = (int) AttributeValue.number(values.get(DW_AT_CALL_COLUMN), 0);
                        if (enclosingScope != null && scope.inlined) {
                            enclosingScope.children.add(scope);
                        } else if (!scope.inlined) {
                            result.topLevel.add(scope);
                            result.functionEntries.put(dieOffset, ranges[0]);
                            if (reference >= 0) {
                                result.functionEntries.putIfAbsent(reference, ranges[0]);
                            }
                        }
                    }
                }
            }
            if (hasChildren && depth + 1 < MAX_DEPTH) {
                parents[depth + 1] = dieOffset;
                scopeAtDepth[depth + 1] = scope;
            }
        });
        return result;
    }
}
