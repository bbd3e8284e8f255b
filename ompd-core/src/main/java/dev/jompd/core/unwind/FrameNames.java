package dev.jompd.core.unwind;

import dev.jompd.core.target.Demangler;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Frames' function names as gdb's backtrace prints them ({@code find_frame_funname} in gdb/stack.c), checked
 * at every return address of the OpenMP runtime in {@code CallerFrameLinesIT}.
 * <p>gdb names a C++ function (and an inlined call of it: the same symbol through its abstract origin) by its
 * demangled linkage name where it has one ({@code dwarf2_physname} prefers it to a name computed from
 * {@code DW_AT_name}: {@code SimpleVLA<void*, 8u>}, not clang's {@code SimpleVLA<void *, 8U>}), demangled with
 * parameters and without a template function's return type; a frame shows that name less its parameters
 * ({@code cp_remove_params}), where gdb's C++ name parser reads the name. Where it does not (a local entity of
 * a function with parameters, {@code f(int)::$_0::operator()}; a lambda's {@code {lambda(int)#1}}; an ABI tag
 * {@code [abi:cxx11]}), the frame shows the name with its parameters. A linkage name that is no mangled name
 * (clang's {@code .omp_task_entry.}) is shown as it is.
 * <p>The demanglers are this JVM's, shared by every stop: names are the same in each, and two c++filt
 * processes serve them all (started when first needed; they end with the JVM, whose pipe they read).
 * Without c++filt, frames keep the debug information's own names.
 * <p>A frame without debug information gdb names by the symbol tables' function (its minimal symbol), printed
 * as {@code find_frame_funname} prints it: a C++ symbol demangled in full, with its parameters and a template
 * function's return type ({@code int sim::wait_at_gate[abi:fx]<8u>(char const*)},
 * {@code work(Domain&, double*) [clone .omp_outlined]}), any other as gdb's Ada decoder reads it, which changes
 * some C helpers' names ({@link GnatNames}: {@code .omp_task_entry.} is {@code omp_task_entry[]}).
 */
final class FrameNames {
    private static final Demangler WITH_PARAMETERS = new Demangler();
    private static final Demangler WITHOUT_PARAMETERS = Demangler.withoutParameters();
    private static final Pattern BRACKETED_WORD = Pattern.compile("\\[[A-Za-z_]");

    private FrameNames() {}

    /** The name gdb's backtrace prints for a frame of this scope; empty for a scope without debug information. */
    static Optional<String> of(SourceLocator.ScopeFrame scope) {
        if (scope.function().isEmpty()) {
            return Optional.empty();
        }
        if (scope.linkageName().isPresent()) {
            String linkageName = scope.linkageName().get();
            if (!Demangler.isMangled(linkageName)) {
                return Optional.of(linkageName);
            }
            Optional<String> demangled = ofMangled(linkageName);
            if (demangled.isPresent()) {
                return demangled;
            }
        }
        String name = scope.function().get();
        // A lambda's operator() whose DWARF name is its bare mangled name (DwarfNames returns it so); the
        // names of clones (_ZL4workR6DomainPd.omp_outlined) are DW_AT_names gdb shows as they are.
        if (Demangler.isMangled(name) && name.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '$')) {
            return Optional.of(ofMangled(name).orElse(name));
        }
        return Optional.of(name);
    }

    /**
     * The name gdb's backtrace prints for a frame named by the symbol tables alone (no debug information covers
     * it): the minimal symbol's print name. A C++ symbol c++filt cannot read (or without c++filt) stays mangled.
     */
    static String ofSymbol(String symbol) {
        if (Demangler.isMangled(symbol)) {
            String demangled = WITH_PARAMETERS.demangle(symbol);
            if (!demangled.equals(symbol)) {
                return demangled;
            }
        }
        return GnatNames.gdbPrintName(symbol);
    }

    /** gdb's frame name of the function with this mangled name; empty when it cannot be demangled here. */
    static Optional<String> ofMangled(String mangled) {
        String full = WITH_PARAMETERS.demangle(mangled);
        String bare = WITHOUT_PARAMETERS.demangle(mangled);
        if (full.equals(mangled) || bare.equals(mangled)) {
            return Optional.empty(); // no c++filt, or a name it does not read
        }
        if (gdbParses(full)) {
            return Optional.of(bare);
        }
        // The full name as gdb's demangler writes it (DMGL_RET_DROP): without a template function's return type.
        if (full.startsWith(bare)) {
            return Optional.of(full);
        }
        int name = full.indexOf(" " + bare + "(");
        return Optional.of(name >= 0 ? full.substring(name + 1) : full);
    }

    /**
     * Whether gdb's C++ name parser ({@code cp_demangled_name_to_comp}, gdb/cp-name-parser.y) reads a demangled
     * name, so that {@code cp_remove_params} can strip its parameters. It has no rule for a function's
     * parameters inside a qualified name ({@code f(int)::$_0}), braces ({@code {lambda(int)#1}},
     * {@code {unnamed type#1}}) or words in brackets ({@code [abi:cxx11]}, {@code [clone .cold]}; an array's
     * bound, {@code int (*) [8]}, it reads); these are the constructs demangled names of compiled C++ use that
     * it does not read. {@code (anonymous namespace)::} it reads as one name.
     */
    private static boolean gdbParses(String demangled) {
        String names = demangled.replace("(anonymous namespace)", "anonymous");
        return !names.contains(")::") && names.indexOf('{') < 0 && !BRACKETED_WORD.matcher(names).find();
    }

}
