package dev.jompd.core.dwarf;

import dev.jompd.core.dwarf.DebugInfoReader.Entry;
import dev.jompd.core.dwarf.DebugInfoReader.Unit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.jompd.core.dwarf.DebugInfoReader.MAX_DEPTH;
import static dev.jompd.core.dwarf.DebugInfoReader.MAX_REFERENCE_HOPS;
import static dev.jompd.core.dwarf.DwarfConstants.*;

/**
 * Function names as gdb spells them from DWARF, so that jompd's frames read as gdb's (checked frame by frame
 * against gdb in {@code StackAccuracyIT}): C functions by their linkage name where they have one, C++
 * members qualified by their namespaces and classes, C++ functions without a linkage name with their
 * parameter types ({@code dwarf2_compute_name}, {@code c_type_print_args}), Fortran contained procedures
 * {@code host::name}. A C++ function's linkage name, by which gdb names it where there is one, is read beside
 * ({@link #linkageName}); the unwinder's {@code FrameNames} demangles it into gdb's frame name. Reads through a
 * {@link DebugInfoReader}; stateless otherwise, so as thread-safe as it.
 */
final class DwarfNames {
    private static final int MAX_PARAMETER_ENTRIES = 4096;

    /**
     * What names are built from, for every entry a name may come from or pass through (functions,
     * namespaces, classes, modules): its tag, names, parent entry and the entry it refers to
     * ({@code DW_AT_abstract_origin} or {@code DW_AT_specification}; -1 for none).
     */
    record NamedEntry(int tag, String name, String linkageName, long parent, long reference) {}

    private final DebugInfoReader reader;

    DwarfNames(DebugInfoReader reader) {
        this.reader = reader;
    }

    /** Whether names are built from entries of this tag (what a unit's walk must keep). */
    static boolean isNamed(int tag) {
        return tag == DW_TAG_SUBPROGRAM || tag == DW_TAG_INLINED_SUBROUTINE || tag == DW_TAG_NAMESPACE
                || tag == DW_TAG_CLASS_TYPE || tag == DW_TAG_STRUCTURE_TYPE || tag == DW_TAG_UNION_TYPE
                || tag == DW_TAG_MODULE;
    }

    /** The entry's name, qualified as gdb qualifies it, following abstract origins and specifications. */
    Optional<String> nameOf(Unit unit, Map<Long, NamedEntry> entries, long dieOffset) {
        long offset = dieOffset;
        for (int hop = 0; hop < MAX_REFERENCE_HOPS; hop++) {
            NamedEntry entry = entries.get(offset);
            if (entry == null) {
                return Optional.empty(); // another unit's entry (DW_FORM_ref_addr): not followed
            }
            if (unit.isC() && entry.linkageName() != null) {
                return Optional.of(entry.linkageName()); // glibc's __GI_ aliases, as gdb shows them
            }
            if (entry.name() != null) {
                String qualified = qualifier(unit, entries, entry.parent()) + entry.name();
                if (unit.isCxx() && (qualified.contains("{unnamed}") || insideFunction(entries, entry.parent()))) {
                    // A lambda's operator() or a member of a function's local class: DWARF has no name for the
                    // class or leaves the function out, gdb demangles the linkage name
                    // (sim::Grid<double>::relax()::{lambda(int)#1}::operator()(int) const). Returned mangled,
                    // for the unwinder's demangler (the dwarf layer runs no process).
                    Optional<String> mangled = mangledLinkageName(entries, dieOffset);
                    if (mangled.isPresent()) {
                        return mangled;
                    }
                }
                return Optional.of(qualified);
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
     *
     * @param inlined whether the entry is an inlined call (gdb names those without parameters)
     */
    Optional<String> functionName(Unit unit, Map<Long, NamedEntry> entries, long dieOffset, boolean inlined) {
        Optional<String> name = nameOf(unit, entries, dieOffset);
        if (!unit.isCxx() || inlined || name.isEmpty() || name.get().indexOf('.') < 0
                || hasLinkageName(entries, dieOffset)) {
            return name;
        }
        try {
            return Optional.of(name.get() + parameterList(unit, entries, dieOffset).orElse(""));
        } catch (DwarfFormatException | IndexOutOfBoundsException damaged) {
            return name;
        }
    }

    /**
     * A C++ function's linkage name ({@code DW_AT_linkage_name}, on the entry or along its abstract origin and
     * specification), which gdb names the function by where there is one: its {@code dwarf2_physname} prefers the
     * demangled linkage name to a name computed from {@code DW_AT_name}, for inlined calls too. Empty for other
     * languages (C is named by {@link #nameOf}).
     */
    Optional<String> linkageName(Unit unit, Map<Long, NamedEntry> entries, long dieOffset) {
        if (!unit.isCxx()) {
            return Optional.empty();
        }
        long offset = dieOffset;
        for (int hop = 0; hop < MAX_REFERENCE_HOPS && offset >= 0; hop++) {
            NamedEntry entry = entries.get(offset);
            if (entry == null) {
                return Optional.empty();
            }
            if (entry.linkageName() != null) {
                return Optional.of(entry.linkageName());
            }
            offset = entry.reference();
        }
        return Optional.empty();
    }

    /** Whether an entry with this parent lies inside a function (a local class, a lambda's closure type). */
    private static boolean insideFunction(Map<Long, NamedEntry> entries, long parent) {
        long offset = parent;
        for (int hop = 0; hop < MAX_DEPTH && offset >= 0; hop++) {
            NamedEntry entry = entries.get(offset);
            if (entry == null) {
                return false;
            }
            if (entry.tag() == DW_TAG_SUBPROGRAM) {
                return true;
            }
            offset = entry.parent();
        }
        return false;
    }

    /** The Itanium-mangled linkage name along the entry's references ({@code _ZZN3sim4GridIdE5relaxEvENKUliE_clEi}). */
    private static Optional<String> mangledLinkageName(Map<Long, NamedEntry> entries, long dieOffset) {
        long offset = dieOffset;
        for (int hop = 0; hop < MAX_REFERENCE_HOPS && offset >= 0; hop++) {
            NamedEntry entry = entries.get(offset);
            if (entry == null) {
                return Optional.empty();
            }
            if (entry.linkageName() != null && entry.linkageName().startsWith("_Z")) {
                return Optional.of(entry.linkageName());
            }
            offset = entry.reference();
        }
        return Optional.empty();
    }

    private static boolean hasLinkageName(Map<Long, NamedEntry> entries, long dieOffset) {
        long offset = dieOffset;
        for (int hop = 0; hop < MAX_REFERENCE_HOPS && offset >= 0; hop++) {
            NamedEntry entry = entries.get(offset);
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

    /**
     * {@code (Domain &, double *&) const} as gdb's {@code c_type_print_args} spells a C++ function's
     * parameters for its name: artificial ones left out, {@code void} for none, {@code const} after when the
     * first parameter is an artificial pointer to const (gdb takes it for {@code this}).
     */
    private Optional<String> parameterList(Unit unit, Map<Long, NamedEntry> entries, long dieOffset) {
        Entry function = reader.readEntry(unit, dieOffset);
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
            Entry child = reader.readEntry(unit, position);
            position = child.next();
            if (child.isNull()) {
                depth--;
                continue;
            }
            if (depth == 1 && child.tag() == DW_TAG_FORMAL_PARAMETER) {
                AttributeValue type = reader.attribute(unit, child, DW_AT_TYPE);
                AttributeValue artificial = reader.attribute(unit, child, DW_AT_ARTIFICIAL);
                boolean isArtificial = artificial != null && AttributeValue.number(artificial, 0) != 0;
                if (first && isArtificial && type != null) {
                    constThis = isPointerToConst(unit, reader.reference(unit, type));
                }
                first = false;
                if (!isArtificial) {
                    Optional<String> spelled = type == null ? Optional.empty()
                            : typeName(unit, entries, reader.reference(unit, type));
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

    /** Whether a type is a pointer (qualified or not) whose pointee is const. */
    private boolean isPointerToConst(Unit unit, long offset) {
        Entry type = reader.readEntry(unit, offset);
        for (int hop = 0; hop < MAX_REFERENCE_HOPS && (type.tag() == DW_TAG_CONST_TYPE || type.tag() == DW_TAG_VOLATILE_TYPE
                || type.tag() == DW_TAG_RESTRICT_TYPE) && type.values().containsKey(DW_AT_TYPE); hop++) {
            type = reader.readEntry(unit, reader.reference(unit, type.values().get(DW_AT_TYPE)));
        }
        if (type.tag() != DW_TAG_POINTER_TYPE || !type.values().containsKey(DW_AT_TYPE)) {
            return false;
        }
        Entry pointee = reader.readEntry(unit, reader.reference(unit, type.values().get(DW_AT_TYPE)));
        for (int hop = 0; hop < MAX_REFERENCE_HOPS; hop++) {
            if (pointee.tag() == DW_TAG_CONST_TYPE) {
                return true;
            }
            if ((pointee.tag() != DW_TAG_VOLATILE_TYPE && pointee.tag() != DW_TAG_RESTRICT_TYPE)
                    || !pointee.values().containsKey(DW_AT_TYPE)) {
                return false;
            }
            pointee = reader.readEntry(unit, reader.reference(unit, pointee.values().get(DW_AT_TYPE)));
        }
        return false;
    }

    /**
     * A parameter's type as gdb's {@code c_print_type} writes it, its own const/volatile dropped (as gdb does
     * for names): {@code double *&}, {@code const char *}, {@code std::string &}. Named types, pointers,
     * references and const/volatile on the named type only; anything else (arrays, function pointers,
     * qualified pointers, unnamed enumerations) is empty: not spelled rather than spelled wrong; an unnamed class
     * (a lambda's closure) is gdb's {@code class {...}}.
     */
    private Optional<String> typeName(Unit unit, Map<Long, NamedEntry> entries, long offset) {
        StringBuilder declarator = new StringBuilder();
        String qualifiers = "";
        boolean topLevel = true;
        long current = offset;
        for (int hop = 0; hop < 64; hop++) {
            if (current < 0) {
                return Optional.empty();
            }
            Entry type = reader.readEntry(unit, current);
            AttributeValue next = type.values().get(DW_AT_TYPE);
            switch (type.tag()) {
                case DW_TAG_CONST_TYPE, DW_TAG_VOLATILE_TYPE -> {
                    if (!topLevel) {
                        if (!declarator.isEmpty() && peekIsIndirection(unit, next)) {
                            return Optional.empty(); // a qualified pointer inside: "char * const *"
                        }
                        String word = type.tag() == DW_TAG_CONST_TYPE ? "const " : "volatile ";
                        qualifiers = qualifiers.contains(word) ? qualifiers : qualifiers + word;
                    }
                    if (next == null) {
                        return Optional.of(qualifiers + "void" + (declarator.isEmpty() ? "" : " " + declarator));
                    }
                    current = reader.reference(unit, next);
                }
                case DW_TAG_POINTER_TYPE, DW_TAG_REFERENCE_TYPE, DW_TAG_RVALUE_REFERENCE_TYPE -> {
                    String mark = type.tag() == DW_TAG_POINTER_TYPE ? "*" : type.tag() == DW_TAG_REFERENCE_TYPE ? "&" : "&&";
                    declarator.insert(0, mark);
                    topLevel = false;
                    if (next == null) {
                        return Optional.of(qualifiers + "void " + declarator);
                    }
                    current = reader.reference(unit, next);
                }
                case DW_TAG_BASE_TYPE, DW_TAG_TYPEDEF, DW_TAG_STRUCTURE_TYPE, DW_TAG_CLASS_TYPE, DW_TAG_UNION_TYPE,
                     DW_TAG_ENUMERATION_TYPE -> {
                    AttributeValue name = type.values().get(DW_AT_NAME);
                    if (name == null && (type.tag() == DW_TAG_CLASS_TYPE || type.tag() == DW_TAG_STRUCTURE_TYPE
                            || type.tag() == DW_TAG_UNION_TYPE)) {
                        // gdb's c_type_print_base for a type without a name (a lambda's closure): "class {...}"
                        String keyword = type.tag() == DW_TAG_CLASS_TYPE ? "class" : type.tag() == DW_TAG_STRUCTURE_TYPE
                                ? "struct" : "union";
                        return Optional.of(qualifiers + keyword + " {...}" + (declarator.isEmpty() ? "" : " " + declarator));
                    }
                    if (name == null) {
                        return Optional.empty();
                    }
                    NamedEntry named = entries.get(current);
                    String prefix = named != null ? qualifier(unit, entries, named.parent()) : "";
                    return Optional.of(qualifiers + prefix + reader.string(unit, name)
                            + (declarator.isEmpty() ? "" : " " + declarator));
                }
                default -> {
                    return Optional.empty(); // restrict, arrays, functions, members: not spelled
                }
            }
        }
        return Optional.empty();
    }

    private boolean peekIsIndirection(Unit unit, AttributeValue next) {
        if (next == null) {
            return false;
        }
        int tag = reader.readEntry(unit, reader.reference(unit, next)).tag();
        return tag == DW_TAG_POINTER_TYPE || tag == DW_TAG_REFERENCE_TYPE || tag == DW_TAG_RVALUE_REFERENCE_TYPE;
    }

    /** {@code outer::inner::} for an entry whose parent is {@code parent}: namespaces, classes, Fortran hosts. */
    private static String qualifier(Unit unit, Map<Long, NamedEntry> entries, long parent) {
        StringBuilder prefix = new StringBuilder();
        long offset = parent;
        for (int hop = 0; hop < MAX_DEPTH && offset >= 0; hop++) {
            NamedEntry entry = entries.get(offset);
            if (entry == null) {
                break;
            }
            boolean qualifies = entry.tag() == DW_TAG_NAMESPACE || entry.tag() == DW_TAG_CLASS_TYPE
                    || entry.tag() == DW_TAG_STRUCTURE_TYPE || entry.tag() == DW_TAG_UNION_TYPE
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
}
