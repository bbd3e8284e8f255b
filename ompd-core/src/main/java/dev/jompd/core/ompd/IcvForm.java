package dev.jompd.core.ompd;

import java.util.List;
import java.util.Map;

/** The string form of an integer ICV: the string-form column of the ICV table ({@link Icv}). */
enum IcvForm {
    NUMBER {
        @Override
        String format(long value) {
            return Long.toString(value);
        }
    },
    BOOLEAN {
        @Override
        String format(long value) {
            return value != 0 ? "true" : "false";
        }
    },
    /** A {@code sched_type} (kmp.h). */
    SCHEDULE_KIND {
        @Override
        String format(long value) {
            return Icvs.SCHEDULE_KINDS.getOrDefault((int) value, "unknown(" + value + ")");
        }
    },
    /** {@code __kmp_library}: library_serial, library_turnaround (active), library_throughput (passive). */
    WAIT_POLICY {
        @Override
        String format(long value) {
            return WAIT_POLICIES.getOrDefault(value, "unset");
        }
    },
    /** {@code kmp_target_offload_kind_t}. */
    TARGET_OFFLOAD {
        @Override
        String format(long value) {
            return TARGET_OFFLOADS.getOrDefault(value, "unknown(" + value + ")");
        }
    },
    /** An {@code omp_allocator_handle_t}: a predefined allocator's name, else the allocator's address. */
    ALLOCATOR {
        @Override
        String format(long value) {
            return value >= 0 && value < ALLOCATORS.size() ? ALLOCATORS.get((int) value) : "0x" + Long.toHexString(value);
        }
    };

    private static final Map<Long, String> WAIT_POLICIES = Map.of(1L, "serial", 2L, "active", 3L, "passive");
    private static final Map<Long, String> TARGET_OFFLOADS = Map.of(0L, "disabled", 1L, "default", 2L, "mandatory");
    private static final List<String> ALLOCATORS = List.of("omp_null_allocator", "omp_default_mem_alloc",
            "omp_large_cap_mem_alloc", "omp_const_mem_alloc", "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",
            "omp_cgroup_mem_alloc", "omp_pteam_mem_alloc", "omp_thread_mem_alloc");

    abstract String format(long value);
}
