package dev.jompd.core.ompd;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * libomp's GOMP ABI (kmp_gsupport.cpp): a gcc- or gfortran-built program's parallel region reaches libomp
 * through {@code GOMP_parallel(fn, data, …)}, which forks a team whose microtask ({@code t_pkfn}) is one
 * of libomp's wrappers; the wrapper calls the user's outlined function {@code fn} ({@code main._omp_fn.0}),
 * which {@code __kmp_fork_call} stored as the team's first argument: {@code team->t.t_argv[0]}, with
 * {@code t_argc} arguments in all.
 *
 * <p>No breadcrumb describes {@code t_argv} or {@code t_argc}. Their place comes from how kmp.h declares
 * them, identically in LLVM 14, 16 and 19, right before two members the breadcrumbs do describe:
 * <pre>
 *   KMP_ALIGN_CACHE void **t_argv;   // t_pkfn - 16
 *   int t_argc;                      // t_pkfn - 8
 *   int t_nproc;                     // t_pkfn - 4   (breadcrumb)
 *   microtask_t t_pkfn;              //              (breadcrumb)
 * </pre>
 * GnuWrapperLayoutIT checks that against each runtime's DWARF. At run time each use is checked twice
 * more: the breadcrumbs must still place {@code t_nproc} (4 bytes) right before {@code t_pkfn}, and the
 * team's {@code t_argc} must be the count the wrapper is forked with. The function pointer itself is
 * then only named when a symbol table has a function starting there ({@link FunctionNames}).
 */
final class GnuWrappers {
    /** libomp's GOMP wrappers, by symbol, with the argument count each is forked with. */
    static final Map<String, Integer> WRAPPER_ARGUMENT_COUNTS = Map.of(
            "__kmp_GOMP_microtask_wrapper", 2,                  // (fn, data)
            "__kmp_GOMP_par_reductions_microtask_wrapper", 2,   // (fn, data)
            "__kmp_GOMP_parallel_microtask_wrapper", 9);        // (fn, data, num_threads, loc, schedule, …)

    static final long ARGV_BEFORE_PKFN = 16;
    static final long ARGC_BEFORE_PKFN = 8;
    static final long NPROC_BEFORE_PKFN = 4;

    private GnuWrappers() {}

    /** The wrapper's name when {@code entry} is one of libomp's GOMP wrappers. */
    static Optional<String> wrapperAt(AddressSpaceHandle space, long entry) {
        if (entry == 0) {
            return Optional.empty();
        }
        for (String wrapper : WRAPPER_ARGUMENT_COUNTS.keySet()) {
            OptionalLong at = space.layout().runtimeSymbol(wrapper).map(s -> OptionalLong.of(s.address()))
                    .orElse(OptionalLong.empty());
            if (at.isPresent() && at.getAsLong() == entry) {
                return Optional.of(wrapper);
            }
        }
        return Optional.empty();
    }

    /**
     * The user's outlined function a wrapper-run team calls: {@code team->t.t_argv[0]}.
     *
     * @param team the team's {@code kmp_base_team_t}
     * @throws OmpdException {@code unavailable} with the reason when the layout or the team does not
     *                       look as expected (then nothing is shown rather than a wrong function)
     */
    static long outlinedFunction(AddressSpaceHandle space, RemoteValue team, String wrapper) {
        RuntimeLayout layout = space.layout();
        long pkfn = layout.offset("kmp_base_team_t", "t_pkfn");
        long nproc = layout.offset("kmp_base_team_t", "t_nproc");
        if (nproc != pkfn - NPROC_BEFORE_PKFN || layout.fieldSize("kmp_base_team_t", "t_nproc") != 4
                || layout.fieldSize("kmp_base_team_t", "t_pkfn") != 8) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "this libomp's kmp_base_team_t does not have t_argv, "
                    + "t_argc, t_nproc, t_pkfn in kmp.h's order (t_nproc at " + nproc + ", t_pkfn at " + pkfn
                    + "): the user's function behind " + wrapper + " cannot be placed");
        }
        long base = team.address();
        String path = team.path();
        long argc = space.at(base + pkfn - ARGC_BEFORE_PKFN, null, path + ".t_argc").asLong(4);
        int expected = WRAPPER_ARGUMENT_COUNTS.get(wrapper);
        if (argc != expected) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, path + ".t_argc is " + argc + ", not the " + expected
                    + " arguments " + wrapper + " is forked with (a serialized region keeps none)");
        }
        long argv = space.at(base + pkfn - ARGV_BEFORE_PKFN, null, path + ".t_argv").asUnsigned(8);
        if (argv == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, path + ".t_argv is NULL");
        }
        long function = space.at(argv, null, path + ".t_argv[0]").asUnsigned(8);
        if (function == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, path + ".t_argv[0] is NULL");
        }
        return function;
    }
}
