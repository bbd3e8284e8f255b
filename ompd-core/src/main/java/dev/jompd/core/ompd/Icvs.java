package dev.jompd.core.ompd;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads ICVs: ompd_get_icv_from_scope and ompd_get_icv_string_from_scope. Every ICV has a string form;
 * list-valued ICVs (nthreads-var, bind-var) give their per-level lists there, and their integer form
 * answers {@code incomplete} when the list has more than one element, as the specification says.
 */
public final class Icvs {
    /** libomp's sched_type values (kmp.h): ABI shared with the compiler, not a struct layout. */
    private static final Map<Integer, String> SCHEDULE_KINDS = Map.ofEntries(
            Map.entry(33, "static"), Map.entry(34, "static"), Map.entry(35, "dynamic"), Map.entry(36, "guided"),
            Map.entry(37, "runtime"), Map.entry(38, "auto"), Map.entry(39, "trapezoidal"),
            Map.entry(40, "static"), Map.entry(41, "static"), Map.entry(42, "guided"), Map.entry(43, "guided"),
            Map.entry(44, "static_steal"));
    /** Unchunked static kinds: their chunk reads as 0, as the reference prints it. */
    private static final List<Integer> UNCHUNKED_STATIC = List.of(34, 40, 41);
    private static final int MONOTONIC = 1 << 29;
    private static final int NONMONOTONIC = 1 << 30;
    private static final String[] PROC_BIND = {"false", "true", "primary", "close", "spread", "intel", "default"};
    private static final String[] ALLOCATORS = {"omp_null_allocator", "omp_default_mem_alloc",
            "omp_large_cap_mem_alloc", "omp_const_mem_alloc", "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",
            "omp_cgroup_mem_alloc", "omp_pteam_mem_alloc", "omp_thread_mem_alloc"};
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
    public static IcvValue value(Object handle, Scope scope, Icv icv) {
        checkScope(handle, scope, icv);
        return switch (icv.id()) {
            case 1 -> whole(threadIcvs((ThreadHandle) handle).field("kmp_internal_control_t", "dynamic").asLong());
            case 2, 9, 12, 13 -> throw new OmpdException(OmpdRc.INCOMPATIBLE, icv + " is a string: use the string form");
            case 3 -> whole(globalInt(space(handle), "__kmp_stksize", true));
            case 4 -> whole(globalInt(space(handle), "__kmp_omp_cancellation", true));
            case 5 -> whole(globalInt(space(handle), "__kmp_max_task_priority", true));
            case 6 -> whole(space(handle).ompdState() > 0 ? 1 : 0);
            case 7 -> {
                NestedList list = nthreadsList((ThreadHandle) handle);
                yield new IcvValue(list.values().getFirst(), list.values().size() > 1);
            }
            case 8 -> whole(globalInt(space(handle), "__kmp_display_affinity", true));
            case 10 -> whole(threadIcvs((ThreadHandle) handle).field("kmp_internal_control_t", "default_device").asLong());
            case 11 -> whole(globalInt(space(handle), "__kmp_tool", true));
            case 14 -> whole(((ParallelHandle) handle).level());
            case 15 -> whole(((ParallelHandle) handle).activeLevel());
            case 16 -> whole(((TaskHandle) handle).icvs().field("kmp_internal_control_t", "thread_limit").asLong());
            case 17 -> whole(((TaskHandle) handle).icvs().field("kmp_internal_control_t", "max_active_levels").asLong());
            case 18 -> {
                NestedList list = bindList((TaskHandle) handle);
                yield new IcvValue(list.values().getFirst(), list.values().size() > 1);
            }
            case 19, 20 -> whole(globalInt(space(handle), "__kmp_avail_proc", true));
            case 21, 22 -> whole(((ThreadHandle) handle).threadNum());
            case 23, 24, 25 -> whole(((TaskHandle) handle).flags().isFinal() ? 1 : 0);
            case 26, 27, 28 -> whole(((TaskHandle) handle).flags().implicit() ? 1 : 0);
            case 29, 30 -> whole(((ParallelHandle) handle).teamSize());
            case 31 -> whole(globalInt(space(handle), "__kmp_static", false));
            case 32 -> whole(globalInt(space(handle), "__kmp_library", false));
            case 33 -> throw placePartitionUnavailable();
            case 34 -> whole(globalInt(space(handle), "__kmp_target_offload", false));
            case 35 -> whole(globalPointerSized(space(handle), "__kmp_def_allocator"));
            case 36 -> whole(globalInt(space(handle), "__kmp_nteams", false));
            case 37 -> whole(globalInt(space(handle), "__kmp_teams_thread_limit", false));
            default -> throw new OmpdException(OmpdRc.BAD_INPUT, "unknown ICV id " + icv.id());
        };
    }

    /** ompd_get_icv_string_from_scope: a string form for every ICV. */
    public static String string(Object handle, Scope scope, Icv icv) {
        checkScope(handle, scope, icv);
        return switch (icv.id()) {
            case 1, 4, 6, 8, 11, 23, 24, 25, 26, 27, 28 -> value(handle, scope, icv).value() != 0 ? "true" : "false";
            case 2 -> runSchedule((TaskHandle) handle);
            case 7 -> join(nthreadsList((ThreadHandle) handle).values(), null);
            case 9 -> globalString(space(handle), "__kmp_affinity_format");
            case 12 -> globalString(space(handle), "__kmp_tool_libraries");
            case 13 -> globalString(space(handle), "__kmp_tool_verbose_init");
            case 18 -> join(bindList((TaskHandle) handle).values(), PROC_BIND);
            case 31 -> {
                long kind = value(handle, scope, icv).value();
                yield SCHEDULE_KINDS.getOrDefault((int) kind, "unknown(" + kind + ")");
            }
            case 32 -> switch ((int) value(handle, scope, icv).value()) {
                case 1 -> "serial";
                case 2 -> "active";
                case 3 -> "passive";
                default -> "unset";
            };
            case 34 -> switch ((int) value(handle, scope, icv).value()) {
                case 0 -> "disabled";
                case 1 -> "default";
                case 2 -> "mandatory";
                default -> "unknown(" + value(handle, scope, icv).value() + ")";
            };
            case 35 -> {
                long allocator = value(handle, scope, icv).value();
                yield allocator >= 0 && allocator < ALLOCATORS.length ? ALLOCATORS[(int) allocator]
                        : "0x" + Long.toHexString(allocator);
            }
            default -> Long.toString(value(handle, scope, icv).value());
        };
    }

    private static IcvValue whole(long value) {
        return new IcvValue(value, false);
    }

    private static void checkScope(Object handle, Scope scope, Icv icv) {
        if (handle == null) {
            throw new OmpdException(OmpdRc.STALE_HANDLE, "no handle");
        }
        if (scope != icv.scope()) {
            throw new OmpdException(OmpdRc.BAD_INPUT, icv + " has scope " + icv.scope().cName() + ", not "
                    + scope.cName());
        }
        if (Scope.of(handle) != scope) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "a " + Scope.of(handle).cName() + " handle for scope "
                    + scope.cName());
        }
    }

    private static AddressSpaceHandle space(Object handle) {
        // instanceof, not a pattern switch: that one's dispatch class is made at run time (cold start)
        if (handle instanceof AddressSpaceHandle a) {
            return a;
        }
        if (handle instanceof ThreadHandle t) {
            return t.space();
        }
        if (handle instanceof ParallelHandle p) {
            return p.space();
        }
        if (handle instanceof TaskHandle t) {
            return t.space();
        }
        throw new OmpdException(OmpdRc.BAD_INPUT, "not an OMPD handle: " + handle);
    }

    /** __kmp_threads[gtid]->th.th_current_task->td_icvs */
    private static RemoteValue threadIcvs(ThreadHandle thread) {
        return thread.th().field("kmp_base_info_t", "th_current_task").deref("kmp_taskdata_t")
                .field("kmp_taskdata_t", "td_icvs");
    }

    /**
     * An integer global. Breadcrumbed globals use their {@code ompd_sizeof____} size; the OpenMP 5.1
     * globals without breadcrumbs use their symbol-table size (absent in older runtimes: unsupported).
     */
    private static long globalInt(AddressSpaceHandle space, String name, boolean breadcrumbed) {
        if (space.layout().symbol(name).isEmpty() && space.layout().whyAbsent(name).isPresent()) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, name + " unavailable: " + space.layout().whyAbsent(name).get());
        }
        long size = breadcrumbed ? space.layout().globalSize(name)
                : space.layout().symbolSize(name).orElseThrow(() -> new OmpdException(OmpdRc.UNSUPPORTED,
                        "this runtime has no " + name + " (older libomp)"));
        if (space.layout().symbol(name).isEmpty()) {
            throw new OmpdException(OmpdRc.UNSUPPORTED, "this runtime has no " + name);
        }
        return space.global(name, null).asLong(size);
    }

    private static long globalPointerSized(AddressSpaceHandle space, String name) {
        if (space.layout().symbol(name).isEmpty() && space.layout().whyAbsent(name).isPresent()) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, name + " unavailable: " + space.layout().whyAbsent(name).get());
        }
        if (space.layout().symbol(name).isEmpty()) {
            throw new OmpdException(OmpdRc.UNSUPPORTED, "this runtime has no " + name + " (older libomp)");
        }
        return space.global(name, null).pointerValue();
    }

    private static String globalString(AddressSpaceHandle space, String name) {
        if (space.layout().symbol(name).isEmpty() && space.layout().whyAbsent(name).isPresent()) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, name + " unavailable: " + space.layout().whyAbsent(name).get());
        }
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

    private static OmpdException placePartitionUnavailable() {
        return new OmpdException(OmpdRc.UNAVAILABLE, "place-partition-var lives in th_first_place/th_last_place, "
                + "which libomp's OMPD breadcrumbs do not describe");
    }

    private record NestedList(List<Long> values) {}

    /**
     * nthreads-var: [td_icvs.nproc, __kmp_nested_nth.nth[level + 1], …, nth[used - 1]] where level is
     * the current task's team level.
     */
    private static NestedList nthreadsList(ThreadHandle thread) {
        AddressSpaceHandle space = thread.space();
        RemoteValue task = thread.th().field("kmp_base_info_t", "th_current_task").deref("kmp_taskdata_t");
        long nproc = task.field("kmp_taskdata_t", "td_icvs").field("kmp_internal_control_t", "nproc").asLong();
        long level = task.field("kmp_taskdata_t", "td_team").deref("kmp_team_p").field("kmp_team_p", "t")
                .field("kmp_base_team_t", "t_level").asLong();
        RemoteValue nested = space.global("__kmp_nested_nth", "kmp_nested_nthreads_t");
        return new NestedList(withNestedLevels(space, nproc, level, nested.field("kmp_nested_nthreads_t", "used"),
                nested.field("kmp_nested_nthreads_t", "nth")));
    }

    /** bind-var: [td_icvs.proc_bind, __kmp_nested_proc_bind.bind_types[level + 1], …]. */
    private static NestedList bindList(TaskHandle task) {
        AddressSpaceHandle space = task.space();
        long bind = task.icvs().field("kmp_internal_control_t", "proc_bind").asLong();
        long level = task.teamBase().field("kmp_base_team_t", "t_level").asLong();
        RemoteValue nested = space.global("__kmp_nested_proc_bind", "kmp_nested_proc_bind_t");
        return new NestedList(withNestedLevels(space, bind, level, nested.field("kmp_nested_proc_bind_t", "used"),
                nested.field("kmp_nested_proc_bind_t", "bind_types")));
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

    private static String runSchedule(TaskHandle task) {
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

    private static String join(List<Long> values, String[] names) {
        StringBuilder text = new StringBuilder();
        for (long value : values) {
            if (!text.isEmpty()) {
                text.append(',');
            }
            text.append(names != null && value >= 0 && value < names.length ? names[(int) value] : Long.toString(value));
        }
        return text.toString();
    }
}
