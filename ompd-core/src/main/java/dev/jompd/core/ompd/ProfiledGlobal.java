package dev.jompd.core.ompd;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.target.AddressSpace;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A global a runtime profile places in a stripped libomp, with everything needed to believe a place: one
 * row of {@link #ALL} per global. Adding a profiled global is adding its row (and its placements to the
 * profiles, {@code scripts/derive-profiles.sh}).
 *
 * @param name     the C name
 * @param size     its sizeof (a stripped file has no symbol sizes to tell)
 * @param strength whether its content check alone tells a right place from a wrong one
 * @param check    what its content must hold to be believed: empty when it fits, else why not
 * @param slack    how far a place may have moved from where the profile says, when the content there
 *                 confirms it beyond doubt
 */
record ProfiledGlobal(String name, long size, Strength strength, Check check, Slack slack) {

    /** How much a passed content check says about a place. */
    enum Strength {
        /**
         * The check alone tells a right address from a wrong one (a thread array whose entries are the
         * process's threads, a pointer to libompd's name, to NAME=VALUE text), or the global is validated
         * with the thread array.
         */
        STRONG,
        /**
         * It holds a flag or a small number a wrong address may hold too: a place from exported anchors is
         * believed only when anchors of two clusters agree.
         */
        WEAK
    }

    /** A global's content check at a candidate address. */
    @FunctionalInterface
    interface Check {
        Optional<String> at(long address, Candidate candidate);
    }

    /** What a check may read: the target, the runtime's layout and the other profiled globals. */
    record Candidate(TargetMemory memory, RuntimeLayout layout, ProfiledRuntime runtime, AddressSpace target) {}

    /**
     * A place may lie up to {@code bytes} either side of where the profile says (other builds of the same
     * version lay out a unit's {@code .bss} a few words apart), believed only where exactly one place nearby
     * {@code confirmsItself}: content that could hold nowhere else.
     */
    record Slack(int bytes, Check confirmsItself) {
        static final Slack NONE = new Slack(0, (address, candidate) -> Optional.of("no slack"));
    }

    private static final int MAX_THREADS = 1 << 20;

    /** Every global a profile may place. */
    static final List<ProfiledGlobal> ALL = List.of(
            strong("__kmp_threads", 8, ProfiledGlobalChecks::threadArray),
            strong("__kmp_threads_capacity", 4, signed(4, 1, MAX_THREADS)),
            strong("__kmp_all_nth", 4, signed(4, 1, MAX_THREADS)),
            strong("__kmp_openmp_version", 4, ProfiledGlobalChecks::openMpVersion),
            strong("ompd_dll_locations", 8, ProfiledGlobalChecks::libompdLocations),
            strong("ompd_env_block", 8, ProfiledGlobalChecks::environmentBlock),
            weak("ompd_state", 8, unsigned(8, 0, 0xff)),
            weak("ompd_env_block_size", 8, unsigned(8, 0, 1 << 24)),
            weak("__kmp_stksize", 8, signed(8, 1024, 1L << 40)),
            weak("__kmp_omp_cancellation", 4, signed(4, 0, 1)),
            weak("__kmp_display_affinity", 4, signed(4, 0, 1)),
            weak("__kmp_tool", 4, signed(4, 0, 1)),
            weak("__kmp_max_task_priority", 4, signed(4, 0, Integer.MAX_VALUE)),
            weak("__kmp_avail_proc", 4, signed(4, 1, 1 << 16)),
            weak("__kmp_static", 4, signed(4, 1, 127)), // a kmp_sched_t
            weak("__kmp_library", 4, signed(4, 0, 3)), // library_none .. library_throughput
            weak("__kmp_target_offload", 4, signed(4, 0, 2)),
            weak("__kmp_nteams", 4, signed(4, 0, MAX_THREADS)),
            weak("__kmp_teams_thread_limit", 4, signed(4, 0, MAX_THREADS)),
            weak("__kmp_def_allocator", 8, ProfiledGlobalChecks::allocator),
            weak("__kmp_affinity_format", 8, ProfiledGlobalChecks::printableString),
            weak("__kmp_tool_libraries", 8, ProfiledGlobalChecks::printableString),
            weak("__kmp_tool_verbose_init", 8, ProfiledGlobalChecks::printableString),
            weak("__kmp_nested_nth", 16, ProfiledGlobalChecks.nestedList("kmp_nested_nthreads_t", "nth")),
            weak("__kmp_nested_proc_bind", 16, ProfiledGlobalChecks.nestedList("kmp_nested_proc_bind_t", "bind_types")),
            // place-partition-var (Places): the mask size, the place list (one struct from libomp 16, two globals
            // before), and the vtable of a place's mask, which every mask of the list must point into
            weak("__kmp_affin_mask_size", 8, ProfiledGlobalChecks::maskSize),
            weak("__kmp_affinity", 88, ProfiledGlobalChecks::placeList),
            weak("__kmp_affinity_masks", 8, ProfiledGlobalChecks::maskArray),
            weak("__kmp_affinity_num_masks", 4, signed(4, 0, 1 << 16)),
            weak("_ZTVN17KMPNativeAffinity4MaskE", 32, ProfiledGlobalChecks::maskVtable),
            // sizeof(kmp_indirect_lock_table_t); Debian's 19 lays the lock unit's .bss 8 bytes from ours
            new ProfiledGlobal("__kmp_i_lock_table", 24, Strength.WEAK, ProfiledGlobalChecks::lockTable,
                    new Slack(64, ProfiledGlobalChecks::lockTableWithLocks)));

    private static final Map<String, ProfiledGlobal> BY_NAME = ALL.stream()
            .collect(Collectors.toUnmodifiableMap(ProfiledGlobal::name, Function.identity()));

    /** The row of a global; for a name without one, a row whose check says so (nothing is believed). */
    static ProfiledGlobal named(String name) {
        ProfiledGlobal row = BY_NAME.get(name);
        return row != null ? row : new ProfiledGlobal(name, 0, Strength.WEAK,
                (address, candidate) -> Optional.of("no content check is known for " + name), Slack.NONE);
    }

    boolean strong() {
        return strength == Strength.STRONG;
    }

    private static ProfiledGlobal strong(String name, long size, Check check) {
        return new ProfiledGlobal(name, size, Strength.STRONG, check, Slack.NONE);
    }

    private static ProfiledGlobal weak(String name, long size, Check check) {
        return new ProfiledGlobal(name, size, Strength.WEAK, check, Slack.NONE);
    }

    /** A signed integer of {@code bytes} within [low, high]. */
    private static Check signed(int bytes, long low, long high) {
        return new ProfiledGlobalChecks.Range(bytes, true, low, high);
    }

    /** An unsigned integer of {@code bytes} within [low, high]. */
    private static Check unsigned(int bytes, long low, long high) {
        return new ProfiledGlobalChecks.Range(bytes, false, low, high);
    }
}
