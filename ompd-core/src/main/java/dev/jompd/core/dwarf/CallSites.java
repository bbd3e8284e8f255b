package dev.jompd.core.dwarf;

import dev.jompd.core.dwarf.DwarfNames.NamedEntry;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static dev.jompd.core.dwarf.DebugInfoReader.MAX_REFERENCE_HOPS;
import static dev.jompd.core.dwarf.DwarfConstants.*;

/**
 * The call sites of one compilation unit ({@code DW_TAG_call_site}, GNU's {@code DW_TAG_GNU_call_site}), as
 * the unwinder asks for them: by return address, and a function's tail calls. Filled while the unit is
 * parsed, read-only after.
 */
final class CallSites {
    /**
     * A call site as written: its return address, whether it is a tail call, the entry it targets
     * ({@code DW_AT_call_origin}; -1: none) and the entry of the function that makes it (its entry address).
     */
    private record RawCallSite(long returnPc, boolean tailCall, long target, long callerEntry) {}

    private final List<RawCallSite> sites = new ArrayList<>();

    /** Whether entries of this tag are call sites. */
    static boolean isCallSite(int tag) {
        return tag == DW_TAG_CALL_SITE || tag == DW_TAG_GNU_CALL_SITE;
    }

    /** Adds a call site entry's attributes; {@code callerEntry}: the enclosing function's entry address (-1: none). */
    void add(DebugInfoReader reader, DebugInfoReader.Unit unit, Map<Integer, AttributeValue> values, long callerEntry) {
        AttributeValue returnPc = values.containsKey(DW_AT_CALL_RETURN_PC) ? values.get(DW_AT_CALL_RETURN_PC)
                : values.get(DW_AT_LOW_PC);
        AttributeValue target = values.containsKey(DW_AT_CALL_ORIGIN) ? values.get(DW_AT_CALL_ORIGIN)
                : values.get(DW_AT_ABSTRACT_ORIGIN);
        if (returnPc != null) {
            sites.add(new RawCallSite(reader.address(unit, returnPc),
                    values.containsKey(DW_AT_CALL_TAIL_CALL) || values.containsKey(DW_AT_GNU_TAIL_CALL),
                    target != null ? reader.reference(unit, target) : -1, callerEntry));
        }
    }

    /** The call site returning to {@code returnPc}, when this unit describes it. */
    Optional<CallSite> returningTo(long returnPc, Map<Long, Long> functionEntries, Map<Long, NamedEntry> entries) {
        for (RawCallSite site : sites) {
            if (site.returnPc() == returnPc) {
                return Optional.of(resolve(site, functionEntries, entries));
            }
        }
        return Optional.empty();
    }

    /** The tail calls made by the function whose entry address is {@code entry}. */
    List<CallSite> tailCallsOf(long entry, Map<Long, Long> functionEntries, Map<Long, NamedEntry> entries) {
        List<CallSite> found = new ArrayList<>();
        for (RawCallSite site : sites) {
            if (site.tailCall() && site.callerEntry() == entry) {
                found.add(resolve(site, functionEntries, entries));
            }
        }
        return found;
    }

    /**
     * A site's target: the entry address of the function the target entry defines (by the entry's own
     * offset or the declaration it defines: {@code functionEntries}), and the first linkage name or name
     * along its references.
     */
    private static CallSite resolve(RawCallSite site, Map<Long, Long> functionEntries, Map<Long, NamedEntry> entries) {
        OptionalLong entry = OptionalLong.empty();
        Optional<String> name = Optional.empty();
        if (site.target() >= 0) {
            Long function = functionEntries.get(site.target());
            if (function != null) {
                entry = OptionalLong.of(function);
            }
            NamedEntry named = entries.get(site.target());
            for (int hop = 0; named != null && hop < MAX_REFERENCE_HOPS; hop++) {
                if (named.linkageName() != null || named.name() != null) {
                    name = Optional.ofNullable(named.linkageName() != null ? named.linkageName() : named.name());
                    break;
                }
                named = named.reference() >= 0 ? entries.get(named.reference()) : null;
            }
        }
        return new CallSite(site.returnPc(), site.tailCall(), entry, name);
    }
}
