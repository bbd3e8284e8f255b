package dev.jompd.core.ompd;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every piece of libomp's layout jompd reads, by its C name. Offsets and sizes come at run time from
 * the runtime's own OMPD breadcrumbs ({@code ompd_access__T__F}, {@code ompd_sizeof__T__F},
 * {@code ompd_sizeof__T}, {@code ompd_bitfield__T__F}); nothing here is an offset. A test checks each
 * entry against the runtime's DWARF, and {@link RuntimeLayout} refuses names not listed here, so this
 * list is complete by construction.
 */
public final class LayoutCatalogue {
    private LayoutCatalogue() {}

    /** A struct member: {@code type.field}. */
    public record Field(String type, String field) {
        @Override
        public String toString() {
            return type + "." + field;
        }

        // written out: a record's generated equals and hashCode are bootstrapped at first use (cold start)
        @Override
        public boolean equals(Object other) {
            return other instanceof Field f && type.equals(f.type) && field.equals(f.field);
        }

        @Override
        public int hashCode() {
            return type.hashCode() * 31 + field.hashCode();
        }
    }

    public static final List<Field> FIELDS = Stream.of(
            "kmp_base_info_t th_current_task", "kmp_base_info_t th_team", "kmp_base_info_t th_info",
            "kmp_base_info_t ompt_thread_info",
            "kmp_base_team_t ompt_team_info", "kmp_base_team_t ompt_serialized_team_info",
            "kmp_base_team_t t_active_level", "kmp_base_team_t t_implicit_task_taskdata",
            "kmp_base_team_t t_master_tid", "kmp_base_team_t t_nproc", "kmp_base_team_t t_level",
            "kmp_base_team_t t_parent", "kmp_base_team_t t_pkfn", "kmp_base_team_t t_threads",
            "kmp_desc_t ds", "kmp_desc_base_t ds_thread", "kmp_desc_base_t ds_tid", "kmp_info_t th",
            "kmp_r_sched_t r_sched_type", "kmp_r_sched_t chunk",
            "kmp_internal_control_t dynamic", "kmp_internal_control_t max_active_levels",
            "kmp_internal_control_t nproc", "kmp_internal_control_t proc_bind", "kmp_internal_control_t sched",
            "kmp_internal_control_t default_device", "kmp_internal_control_t thread_limit",
            "kmp_taskdata_t ompt_task_info", "kmp_taskdata_t td_flags", "kmp_taskdata_t td_icvs",
            "kmp_taskdata_t td_parent", "kmp_taskdata_t td_team", "kmp_task_t routine", "kmp_team_p t",
            "kmp_nested_nthreads_t used", "kmp_nested_nthreads_t nth",
            "kmp_nested_proc_bind_t used", "kmp_nested_proc_bind_t bind_types",
            "ompt_task_info_t frame", "ompt_task_info_t scheduling_parent", "ompt_task_info_t task_data",
            "ompt_team_info_t parallel_data",
            "ompt_thread_info_t state", "ompt_thread_info_t wait_id", "ompt_thread_info_t thread_data",
            "ompt_data_t value", "ompt_data_t ptr",
            "ompt_frame_t exit_frame", "ompt_frame_t enter_frame",
            "ompt_lw_taskteam_t parent", "ompt_lw_taskteam_t ompt_team_info", "ompt_lw_taskteam_t ompt_task_info")
            .map(entry -> entry.split(" "))
            .map(parts -> new Field(parts[0], parts[1]))
            .toList();

    /** Flags of {@code kmp_tasking_flags_t} read through {@code ompd_bitfield__} masks. */
    public static final List<Field> BITFIELDS = Stream.of("final", "tiedness", "tasktype", "task_serial",
                    "tasking_ser", "team_serial", "started", "executing", "complete", "freed", "native")
            .map(flag -> new Field("kmp_tasking_flags_t", flag))
            .toList();

    /** Types whose size jompd reads ({@code ompd_sizeof__T}). */
    public static final List<String> TYPE_SIZES = List.of("kmp_info_t", "kmp_taskdata_t", "kmp_task_t",
            "kmp_tasking_flags_t", "kmp_thread_t", "ompt_data_t", "ompt_id_t", "kmp_nested_nthreads_t",
            "kmp_nested_proc_bind_t", "int", "char");

    /** Globals whose size jompd reads ({@code ompd_sizeof__G}: four underscores for a {@code __kmp_} global). */
    public static final List<String> GLOBAL_SIZES = List.of("__kmp_avail_proc", "__kmp_max_nth", "__kmp_stksize",
            "__kmp_omp_cancellation", "__kmp_max_task_priority", "__kmp_display_affinity", "__kmp_affinity_format",
            "__kmp_tool_libraries", "__kmp_tool_verbose_init", "__kmp_tool", "ompd_state", "__kmp_nested_nth",
            "__kmp_nested_proc_bind", "__kmp_gtid", "__kmp_nth");

    static final Set<Field> FIELD_SET = Set.copyOf(FIELDS);
    static final Set<Field> BITFIELD_SET = Set.copyOf(BITFIELDS);
    static final Set<String> TYPE_SIZE_SET = Set.copyOf(TYPE_SIZES);
    static final Set<String> GLOBAL_SIZE_SET = Set.copyOf(GLOBAL_SIZES);

    /** The breadcrumb symbols the whole catalogue needs, for diagnostics. */
    public static Set<String> breadcrumbSymbols() {
        return Stream.of(
                        FIELDS.stream().flatMap(f -> Stream.of("ompd_access__" + f.type() + "__" + f.field(),
                                "ompd_sizeof__" + f.type() + "__" + f.field())),
                        BITFIELDS.stream().map(f -> "ompd_bitfield__" + f.type() + "__" + f.field()),
                        TYPE_SIZES.stream().map(t -> "ompd_sizeof__" + t),
                        GLOBAL_SIZES.stream().map(g -> "ompd_sizeof__" + g))
                .flatMap(s -> s)
                .collect(Collectors.toUnmodifiableSet());
    }
}
