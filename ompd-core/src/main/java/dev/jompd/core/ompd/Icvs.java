package dev.jompd.core.ompd;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads ICVs: ompd_get_icv_from_scope and ompd_get_icv_string_from_scope, through each ICV's row of the
 * table in {@link Icv}. Every ICV has a string form; list-valued ICVs (nthreads-var, bind-var) give their
 * per-level lists there, and their integer form answers {@code incomplete} when the list has more than one
 * element, as the specification says. The readers the table's rows share are here.
 */
public final class Icvs {
    /** libomp's sched_type values (kmp.h): ABI shared with the compiler, not a struct layout. */
    static final Map<Integer, String> SCHEDULE_KINDS = Map.ofEntries(
            Map.entry(33, "static"), Map.entry(34, "static"), Map.entry(35, "dynamic"), Map.entry(36, "guided"),
            Map.entry(37, "runtime"), Map.entry(38, "auto"), Map.entry(39, "trapezoidal"),
            Map.entry(40, "static"), Map.entry(41, "static"), Map.entry(42, "guided"), Map.entry(43, "guided"),
            Map.entry(44, "static_steal"));
    /** Unchunked static kinds: their chunk reads as 0, as the reference prints it. */
    private static final List<Integer> UNCHUNKED_STATIC = List.of(34, 40, 41);
    private static final int MONOTONIC = 1 << 29;
    private static final int NONMONOTONIC = 1 << 30;
    /** kmp_proc_bind_t, by value. */
    static final List<String> PROC_BIND = List.of("false", "true", "primary", "close", "spread", "intel", "default");
    /** Bound on nested-level lists (__kmp_nested_nth.used): a larger value means corrupt memory. */
    private static final int MAX_NESTED_LIST = 1024;
    private static final int MAX_STRING = 4096;

    private Icvs() {}

    /** An integer ICV value; {@code incomplete} when it is the first element of a longer list. */
    public record IcvValue(long value, boolean incomplete) {
        public OmpdRc rc() {
            return incomplete ? OmpdRc.INCOMPLETE : OmpdRc.OK;
        }
    }

    /** ompd_get_icv_from_scope. */
    public static IcvValue value(OmpdHandle handle, Scope scope, Icv icv) {
        checkScope(handle, scope, icv);
        return icv.reader().value(handle, icv);
    }

    /** ompd_get_icv_string_from_scope: a string form for every ICV. */
    public static String string(OmpdHandle handle, Scope scope, Icv icv) {
        checkScope(handle, scope, icv);
        return icv.reader().string(handle, icv);
    }

    private static void checkScope(OmpdHandle handle, Scope scope, Icv icv) {
        if (handle == null) {
            throw new OmpdException(OmpdRc.STALE_HANDLE, "no handle");
        }
        if (scope != icv.scope()) {
            throw new OmpdException(OmpdRc.BAD_INPUT, icv + " has scope " + icv.scope().cName() + ", not "
                    + scope.cName());
        }
        if (!handle.serves(scope)) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "a " + handle.scope().cName() + " handle for scope "
                    + scope.cName() + (scope == Scope.TEAMS ? " (not a teams construct's team)" : ""));
        }
    }

    /** __kmp_threads[gtid]->th.th_current_task->td_icvs */
    static RemoteValue threadIcvs(ThreadHandle thread) {
        return thread.th().field("kmp_base_info_t", "th_current_task").deref("kmp_taskdata_t")
                .field("kmp_taskdata_t", "td_icvs");
    }

    /** Where an integer global's size comes from. */
    enum GlobalSize {
        /** Its {@code ompd_sizeof____} breadcrumb. */
        BREADCRUMB,
        /** Its symbol-table size: the OpenMP 5.1 globals without breadcrumbs (absent in older runtimes: unsupported). */
        SYMBOL
    }

    /** An integer global of the runtime. */
    static long globalInt(AddressSpaceHandle space, String name, GlobalSize sized) {
        requirePlaced(space, name);
        long size = sized == GlobalSize.BREADCRUMB ? space.layout().globalSize(name)
                : space.layout().symbolSize(name).orElseThrow(() -> new OmpdException(OmpdRc.UNSUPPORTED,
                        "this runtime has no " + name + " (older libomp)"));
        if (space.layout().symbol(name).isEmpty()) {
            throw new OmpdException(OmpdRc.UNSUPPORTED, "this runtime has no " + name);
        }
        return space.global(name, null).asLong(size);
    }

    /** A pointer-sized global of the runtime (a handle such as an allocator). */
    static long globalPointer(AddressSpaceHandle space, String name) {
        requirePlaced(space, name);
        if (space.layout().symbol(name).isEmpty()) {
            throw new OmpdException(OmpdRc.UNSUPPORTED, "this runtime has no " + name + " (older libomp)");
        }
        return space.global(name, null).pointerValue();
    }

    /** A string global of the runtime; empty when the runtime has none. */
    static String globalString(AddressSpaceHandle space, String name) {
        requirePlaced(space, name);
        if (space.layout().symbol(name).isEmpty()) {
            return "";
        }
        RemoteValue global = space.global(name, null);
        // __kmp_affinity_format is a char array in some runtimes and a char * in others: the breadcrumb
        // size tells (a pointer's size means a pointer).
        long size = space.layout().globalSize(name);
        if (size == space.memory().architecture().pointerSize()) {
            return global.asCString(MAX_STRING).orElse("");
        }
        return space.memory().readCString(global.address(), (int) Math.min(size, MAX_STRING));
    }

    /** A global a runtime profile could not place is unavailable, with why. */
    private static void requirePlaced(AddressSpaceHandle space, String name) {
        if (space.layout().symbol(name).isEmpty() && space.layout().whyAbsent(name).isPresent()) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, name + " unavailable: " + space.layout().whyAbsent(name).get());
        }
    }

    /**
     * nthreads-var: [td_icvs.nproc, __kmp_nested_nth.nth[level + 1], …, nth[used - 1]] where level is
     * the current task's team level.
     */
    static List<Long> nthreadsList(ThreadHandle thread) {
        AddressSpaceHandle space = thread.space();
        RemoteValue task = thread.th().field("kmp_base_info_t", "th_current_task").deref("kmp_taskdata_t");
        long nproc = task.field("kmp_taskdata_t", "td_icvs").field("kmp_internal_control_t", "nproc").asLong();
        long level = task.field("kmp_taskdata_t", "td_team").deref("kmp_team_p").field("kmp_team_p", "t")
                .field("kmp_base_team_t", "t_level").asLong();
        RemoteValue nested = space.global("__kmp_nested_nth", "kmp_nested_nthreads_t");
        return withNestedLevels(space, nproc, level, nested.field("kmp_nested_nthreads_t", "used"),
                nested.field("kmp_nested_nthreads_t", "nth"));
    }

    /** bind-var: [td_icvs.proc_bind, __kmp_nested_proc_bind.bind_types[level + 1], …]. */
    static List<Long> bindList(TaskHandle task) {
        AddressSpaceHandle space = task.space();
        long bind = task.icvs().field("kmp_internal_control_t", "proc_bind").asLong();
        long level = task.teamBase().field("kmp_base_team_t", "t_level").asLong();
        RemoteValue nested = space.global("__kmp_nested_proc_bind", "kmp_nested_proc_bind_t");
        return withNestedLevels(space, bind, level, nested.field("kmp_nested_proc_bind_t", "used"),
                nested.field("kmp_nested_proc_bind_t", "bind_types"));
    }

    private static List<Long> withNestedLevels(AddressSpaceHandle space, long first, long level, RemoteValue used,
                                               RemoteValue array) {
        List<Long> values = new ArrayList<>(List.of(first));
        long count = used.asLong();
        if (count < 0 || count > MAX_NESTED_LIST) {
            throw new OmpdException(OmpdRc.ERROR, used.path() + " is " + count + ": memory corrupt");
        }
        if (level + 1 < count) {
            long intSize = space.layout().typeSize("int");
            RemoteValue elements = array.deref(null);
            for (long i = level + 1; i < count; i++) {
                values.add(elements.element(i, intSize, null).asLong());
            }
        }
        return values;
    }

    /** run-sched-var: task->td_icvs.sched as "[modifier:]kind,chunk". */
    static String runSchedule(TaskHandle task) {
        RemoteValue sched = task.icvs().field("kmp_internal_control_t", "sched");
        int kind = (int) sched.field("kmp_r_sched_t", "r_sched_type").asLong();
        long chunk = sched.field("kmp_r_sched_t", "chunk").asLong();
        String modifier = (kind & MONOTONIC) != 0 ? "monotonic:" : (kind & NONMONOTONIC) != 0 ? "nonmonotonic:" : "";
        int base = kind & ~(MONOTONIC | NONMONOTONIC);
        String name = SCHEDULE_KINDS.get(base);
        if (name == null) {
            return "unknown(" + kind + ")," + chunk;
        }
        if (UNCHUNKED_STATIC.contains(base)) {
            chunk = 0;
        }
        return modifier + name + "," + chunk;
    }
}
