package dev.jompd.core.ompd;

import java.util.List;
import java.util.Optional;

/**
 * An internal control variable as OMPD enumerates it: id, name and scope. Ids 1–30 are exactly the
 * reference libompd's (names, ids and scopes, including the OMPD 5.0 {@code ompd-*} aliases), so tools
 * written for it keep working; ids from 31 are the OpenMP 5.1 ICVs libomp keeps that the reference
 * does not expose.
 */
public record Icv(int id, String name, Scope scope) {

    public static final Icv DYN_VAR = new Icv(1, "dyn-var", Scope.THREAD);
    public static final Icv RUN_SCHED_VAR = new Icv(2, "run-sched-var", Scope.TASK);
    public static final Icv STACKSIZE_VAR = new Icv(3, "stacksize-var", Scope.ADDRESS_SPACE);
    public static final Icv CANCEL_VAR = new Icv(4, "cancel-var", Scope.ADDRESS_SPACE);
    public static final Icv MAX_TASK_PRIORITY_VAR = new Icv(5, "max-task-priority-var", Scope.ADDRESS_SPACE);
    public static final Icv DEBUG_VAR = new Icv(6, "debug-var", Scope.ADDRESS_SPACE);
    public static final Icv NTHREADS_VAR = new Icv(7, "nthreads-var", Scope.THREAD);
    public static final Icv DISPLAY_AFFINITY_VAR = new Icv(8, "display-affinity-var", Scope.ADDRESS_SPACE);
    public static final Icv AFFINITY_FORMAT_VAR = new Icv(9, "affinity-format-var", Scope.ADDRESS_SPACE);
    public static final Icv DEFAULT_DEVICE_VAR = new Icv(10, "default-device-var", Scope.THREAD);
    public static final Icv TOOL_VAR = new Icv(11, "tool-var", Scope.ADDRESS_SPACE);
    public static final Icv TOOL_LIBRARIES_VAR = new Icv(12, "tool-libraries-var", Scope.ADDRESS_SPACE);
    public static final Icv TOOL_VERBOSE_INIT_VAR = new Icv(13, "tool-verbose-init-var", Scope.ADDRESS_SPACE);
    public static final Icv LEVELS_VAR = new Icv(14, "levels-var", Scope.PARALLEL);
    public static final Icv ACTIVE_LEVELS_VAR = new Icv(15, "active-levels-var", Scope.PARALLEL);
    public static final Icv THREAD_LIMIT_VAR = new Icv(16, "thread-limit-var", Scope.TASK);
    public static final Icv MAX_ACTIVE_LEVELS_VAR = new Icv(17, "max-active-levels-var", Scope.TASK);
    public static final Icv BIND_VAR = new Icv(18, "bind-var", Scope.TASK);
    public static final Icv NUM_PROCS_VAR = new Icv(19, "num-procs-var", Scope.ADDRESS_SPACE);
    public static final Icv OMPD_NUM_PROCS_VAR = new Icv(20, "ompd-num-procs-var", Scope.ADDRESS_SPACE);
    public static final Icv THREAD_NUM_VAR = new Icv(21, "thread-num-var", Scope.THREAD);
    public static final Icv OMPD_THREAD_NUM_VAR = new Icv(22, "ompd-thread-num-var", Scope.THREAD);
    public static final Icv FINAL_TASK_VAR = new Icv(23, "final-task-var", Scope.TASK);
    public static final Icv OMPD_FINAL_VAR = new Icv(24, "ompd-final-var", Scope.TASK);
    public static final Icv OMPD_FINAL_TASK_VAR = new Icv(25, "ompd-final-task-var", Scope.TASK);
    public static final Icv IMPLICIT_TASK_VAR = new Icv(26, "implicit-task-var", Scope.TASK);
    public static final Icv OMPD_IMPLICIT_VAR = new Icv(27, "ompd-implicit-var", Scope.TASK);
    public static final Icv OMPD_IMPLICIT_TASK_VAR = new Icv(28, "ompd-implicit-task-var", Scope.TASK);
    public static final Icv TEAM_SIZE_VAR = new Icv(29, "team-size-var", Scope.PARALLEL);
    public static final Icv OMPD_TEAM_SIZE_VAR = new Icv(30, "ompd-team-size-var", Scope.PARALLEL);
    // OpenMP 5.1 ICVs libomp keeps and the reference omits: process-wide settings in libomp's globals.
    public static final Icv DEF_SCHED_VAR = new Icv(31, "def-sched-var", Scope.ADDRESS_SPACE);
    public static final Icv WAIT_POLICY_VAR = new Icv(32, "wait-policy-var", Scope.ADDRESS_SPACE);
    public static final Icv PLACE_PARTITION_VAR = new Icv(33, "place-partition-var", Scope.THREAD);
    public static final Icv TARGET_OFFLOAD_VAR = new Icv(34, "target-offload-var", Scope.ADDRESS_SPACE);
    public static final Icv DEF_ALLOCATOR_VAR = new Icv(35, "def-allocator-var", Scope.ADDRESS_SPACE);
    public static final Icv NTEAMS_VAR = new Icv(36, "nteams-var", Scope.ADDRESS_SPACE);
    public static final Icv TEAMS_THREAD_LIMIT_VAR = new Icv(37, "teams-thread-limit-var", Scope.ADDRESS_SPACE);

    /** Every ICV, in id order: what ompd_enumerate_icvs walks. */
    public static final List<Icv> ALL = List.of(DYN_VAR, RUN_SCHED_VAR, STACKSIZE_VAR, CANCEL_VAR,
            MAX_TASK_PRIORITY_VAR, DEBUG_VAR, NTHREADS_VAR, DISPLAY_AFFINITY_VAR, AFFINITY_FORMAT_VAR,
            DEFAULT_DEVICE_VAR, TOOL_VAR, TOOL_LIBRARIES_VAR, TOOL_VERBOSE_INIT_VAR, LEVELS_VAR, ACTIVE_LEVELS_VAR,
            THREAD_LIMIT_VAR, MAX_ACTIVE_LEVELS_VAR, BIND_VAR, NUM_PROCS_VAR, OMPD_NUM_PROCS_VAR, THREAD_NUM_VAR,
            OMPD_THREAD_NUM_VAR, FINAL_TASK_VAR, OMPD_FINAL_VAR, OMPD_FINAL_TASK_VAR, IMPLICIT_TASK_VAR,
            OMPD_IMPLICIT_VAR, OMPD_IMPLICIT_TASK_VAR, TEAM_SIZE_VAR, OMPD_TEAM_SIZE_VAR, DEF_SCHED_VAR,
            WAIT_POLICY_VAR, PLACE_PARTITION_VAR, TARGET_OFFLOAD_VAR, DEF_ALLOCATOR_VAR, NTEAMS_VAR,
            TEAMS_THREAD_LIMIT_VAR);

    public static Optional<Icv> byId(long id) {
        return ALL.stream().filter(icv -> icv.id == id).findFirst();
    }

    public static Optional<Icv> byName(String name) {
        return ALL.stream().filter(icv -> icv.name.equals(name)).findFirst();
    }

    /** Whether the reference libompd knows this ICV (ids 1–30). */
    public boolean inReference() {
        return id <= 30;
    }

    @Override
    public String toString() {
        return name;
    }
}
