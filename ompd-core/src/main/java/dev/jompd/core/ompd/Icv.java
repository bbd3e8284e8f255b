package dev.jompd.core.ompd;

import static dev.jompd.core.ompd.IcvReader.PARALLEL;
import static dev.jompd.core.ompd.IcvReader.PROCESS;
import static dev.jompd.core.ompd.IcvReader.TASK;
import static dev.jompd.core.ompd.IcvReader.TEAMS;
import static dev.jompd.core.ompd.IcvReader.THREAD;
import static dev.jompd.core.ompd.IcvReader.levels;
import static dev.jompd.core.ompd.IcvReader.number;
import static dev.jompd.core.ompd.IcvReader.text;
import static dev.jompd.core.ompd.IcvReader.unsupported;
import static dev.jompd.core.ompd.Icvs.GlobalSize.BREADCRUMB;
import static dev.jompd.core.ompd.Icvs.GlobalSize.SYMBOL;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The ICV catalogue, one row per internal control variable as OMPD enumerates it: id, name, and its reader
 * (which gives its scope, how it is read and its string form). Adding an ICV is adding one row here and to
 * {@link #ALL}. Ids 1–30 are exactly the reference libompd's (names, ids and scopes, including the OMPD 5.0
 * {@code ompd-*} aliases), so tools written for it keep working; ids from 31 are the OpenMP 5.1 ICVs libomp
 * keeps that the reference does not expose, 38 OpenMP 6.0's explicit-task-var.
 * <p>
 * Which debuggers see a row is data of the row: {@link #since()} (the ids from 31 from OpenMP 5.1, since
 * debuggers of 5.0 — LLVM's gdb plugin — know the reference's 30 by number) and {@link #until()} (OpenMP 6.0
 * removed the {@code ompd-*} aliases and implicit-task-var); {@link #enumeratedIn} lists a version's.
 * <p>
 * {@link #name()} is the reference libompd's name. Where a later OpenMP version names an ICV differently, a
 * row says so with {@link #renamedIn}, and {@link #nameIn} gives the name a version's tools expect.
 */
public final class Icv {
    private static final String CONTROL = "kmp_internal_control_t";

    // libomp: __kmp_threads[gtid]->th.th_current_task->td_icvs.dynamic
    public static final Icv DYN_VAR = new Icv(1, "dyn-var",
            number(THREAD, t -> Icvs.threadIcvs(t).field(CONTROL, "dynamic").asLong(), IcvForm.BOOLEAN));
    // task->td_icvs.sched: "[modifier:]kind,chunk"
    public static final Icv RUN_SCHED_VAR = new Icv(2, "run-sched-var", text(TASK, Icvs::runSchedule));
    public static final Icv STACKSIZE_VAR = new Icv(3, "stacksize-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_stksize", BREADCRUMB), IcvForm.NUMBER));
    public static final Icv CANCEL_VAR = new Icv(4, "cancel-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_omp_cancellation", BREADCRUMB), IcvForm.BOOLEAN));
    public static final Icv MAX_TASK_PRIORITY_VAR = new Icv(5, "max-task-priority-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_max_task_priority", BREADCRUMB), IcvForm.NUMBER));
    // ompd_state: whether the runtime tracks states for a debugger (OMP_DEBUG=enabled)
    public static final Icv DEBUG_VAR = new Icv(6, "debug-var",
            number(PROCESS, s -> s.ompdState() > 0 ? 1 : 0, IcvForm.BOOLEAN));
    public static final Icv NTHREADS_VAR = new Icv(7, "nthreads-var", levels(THREAD, Icvs::nthreadsList, null));
    public static final Icv DISPLAY_AFFINITY_VAR = new Icv(8, "display-affinity-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_display_affinity", BREADCRUMB), IcvForm.BOOLEAN));
    public static final Icv AFFINITY_FORMAT_VAR = new Icv(9, "affinity-format-var",
            text(PROCESS, s -> Icvs.globalString(s, "__kmp_affinity_format")));
    // libomp: __kmp_threads[gtid]->th.th_current_task->td_icvs.default_device
    public static final Icv DEFAULT_DEVICE_VAR = new Icv(10, "default-device-var",
            number(THREAD, t -> Icvs.threadIcvs(t).field(CONTROL, "default_device").asLong(), IcvForm.NUMBER));
    public static final Icv TOOL_VAR = new Icv(11, "tool-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_tool", BREADCRUMB), IcvForm.BOOLEAN));
    public static final Icv TOOL_LIBRARIES_VAR = new Icv(12, "tool-libraries-var",
            text(PROCESS, s -> Icvs.globalString(s, "__kmp_tool_libraries")));
    public static final Icv TOOL_VERBOSE_INIT_VAR = new Icv(13, "tool-verbose-init-var",
            text(PROCESS, s -> Icvs.globalString(s, "__kmp_tool_verbose_init")));
    public static final Icv LEVELS_VAR = new Icv(14, "levels-var", number(PARALLEL, ParallelHandle::level, IcvForm.NUMBER));
    public static final Icv ACTIVE_LEVELS_VAR = new Icv(15, "active-levels-var",
            number(PARALLEL, ParallelHandle::activeLevel, IcvForm.NUMBER));
    // task->td_icvs.thread_limit
    public static final Icv THREAD_LIMIT_VAR = new Icv(16, "thread-limit-var",
            number(TASK, k -> k.icvs().field(CONTROL, "thread_limit").asLong(), IcvForm.NUMBER));
    // task->td_icvs.max_active_levels
    public static final Icv MAX_ACTIVE_LEVELS_VAR = new Icv(17, "max-active-levels-var",
            number(TASK, k -> k.icvs().field(CONTROL, "max_active_levels").asLong(), IcvForm.NUMBER));
    public static final Icv BIND_VAR = new Icv(18, "bind-var", levels(TASK, Icvs::bindList, Icvs.PROC_BIND));
    public static final Icv NUM_PROCS_VAR = new Icv(19, "num-procs-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_avail_proc", BREADCRUMB), IcvForm.NUMBER));
    public static final Icv OMPD_NUM_PROCS_VAR = new Icv(20, "ompd-num-procs-var", NUM_PROCS_VAR.reader)
            .removedIn(OpenMpVersion.V6_0);
    public static final Icv THREAD_NUM_VAR = new Icv(21, "thread-num-var",
            number(THREAD, ThreadHandle::threadNum, IcvForm.NUMBER));
    public static final Icv OMPD_THREAD_NUM_VAR = new Icv(22, "ompd-thread-num-var", THREAD_NUM_VAR.reader)
            .removedIn(OpenMpVersion.V6_0);
    public static final Icv FINAL_TASK_VAR = new Icv(23, "final-task-var",
            number(TASK, k -> k.flags().isFinal() ? 1 : 0, IcvForm.BOOLEAN));
    public static final Icv OMPD_FINAL_VAR = new Icv(24, "ompd-final-var", FINAL_TASK_VAR.reader)
            .removedIn(OpenMpVersion.V6_0);
    public static final Icv OMPD_FINAL_TASK_VAR = new Icv(25, "ompd-final-task-var", FINAL_TASK_VAR.reader)
            .removedIn(OpenMpVersion.V6_0);
    // OpenMP 6.0 removed implicit-task-var for explicit-task-var (its negation, id 38)
    public static final Icv IMPLICIT_TASK_VAR = new Icv(26, "implicit-task-var",
            number(TASK, k -> k.flags().implicit() ? 1 : 0, IcvForm.BOOLEAN)).removedIn(OpenMpVersion.V6_0);
    public static final Icv OMPD_IMPLICIT_VAR = new Icv(27, "ompd-implicit-var", IMPLICIT_TASK_VAR.reader)
            .removedIn(OpenMpVersion.V6_0);
    public static final Icv OMPD_IMPLICIT_TASK_VAR = new Icv(28, "ompd-implicit-task-var", IMPLICIT_TASK_VAR.reader)
            .removedIn(OpenMpVersion.V6_0);
    public static final Icv TEAM_SIZE_VAR = new Icv(29, "team-size-var",
            number(PARALLEL, ParallelHandle::teamSize, IcvForm.NUMBER));
    public static final Icv OMPD_TEAM_SIZE_VAR = new Icv(30, "ompd-team-size-var", TEAM_SIZE_VAR.reader)
            .removedIn(OpenMpVersion.V6_0);
    // OpenMP 5.1 ICVs libomp keeps and the reference omits: process-wide settings in libomp's globals, which
    // have no breadcrumb (their symbol-table size; absent in older runtimes: unsupported).
    public static final Icv DEF_SCHED_VAR = new Icv(31, "def-sched-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_static", SYMBOL), IcvForm.SCHEDULE_KIND))
            .enumeratedFrom(OpenMpVersion.V5_1);
    public static final Icv WAIT_POLICY_VAR = new Icv(32, "wait-policy-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_library", SYMBOL), IcvForm.WAIT_POLICY))
            .enumeratedFrom(OpenMpVersion.V5_1);
    // th_first_place..th_last_place of the place list (__kmp_affinity.masks): libomp-places.layout, Places
    public static final Icv PLACE_PARTITION_VAR = new Icv(33, "place-partition-var", text(THREAD, Places::partition))
            .enumeratedFrom(OpenMpVersion.V5_1);
    public static final Icv TARGET_OFFLOAD_VAR = new Icv(34, "target-offload-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_target_offload", SYMBOL), IcvForm.TARGET_OFFLOAD))
            .enumeratedFrom(OpenMpVersion.V5_1);
    public static final Icv DEF_ALLOCATOR_VAR = new Icv(35, "def-allocator-var",
            number(PROCESS, s -> Icvs.globalPointer(s, "__kmp_def_allocator"), IcvForm.ALLOCATOR))
            .enumeratedFrom(OpenMpVersion.V5_1);
    public static final Icv NTEAMS_VAR = new Icv(36, "nteams-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_nteams", SYMBOL), IcvForm.NUMBER))
            .enumeratedFrom(OpenMpVersion.V5_1);
    public static final Icv TEAMS_THREAD_LIMIT_VAR = new Icv(37, "teams-thread-limit-var",
            number(PROCESS, s -> Icvs.globalInt(s, "__kmp_teams_thread_limit", SYMBOL), IcvForm.NUMBER))
            .enumeratedFrom(OpenMpVersion.V5_1);

    // OpenMP 6.0: whether the task is an explicit one (libomp: td_flags.tasktype, the implicit flag's negation)
    public static final Icv EXPLICIT_TASK_VAR = new Icv(38, "explicit-task-var",
            number(TASK, k -> k.flags().implicit() ? 0 : 1, IcvForm.BOOLEAN)).enumeratedFrom(OpenMpVersion.V6_0);

    // OpenMP 6.0, teams scope (a parallel handle of a teams construct's team): omp_get_team_num(), the team's
    // number (libomp: the league's thread k is team k's initial thread), and omp_get_num_teams(), the league's
    // size (libomp: the league team's t_nproc, checked against th_teams_size.nteams); TeamsRegions reads them
    public static final Icv TEAM_NUM_VAR = new Icv(39, "team-num-var",
            number(TEAMS, p -> p.teams().teamNumber(), IcvForm.NUMBER)).enumeratedFrom(OpenMpVersion.V6_0);
    public static final Icv LEAGUE_SIZE_VAR = new Icv(40, "league-size-var",
            number(TEAMS, p -> p.teams().leagueSize(), IcvForm.NUMBER)).enumeratedFrom(OpenMpVersion.V6_0);
    // OpenMP 6.0: which construct generated the team (ompd_team_generator_t). libomp keeps no such variable;
    // it is enumerated so that a 6.0 debugger sees the ICV exists, and answers unsupported
    public static final Icv TEAM_GENERATOR_VAR = new Icv(41, "team-generator-var",
            unsupported(TEAMS, "libomp keeps no team-generator-var (which construct generated a team)"))
            .enumeratedFrom(OpenMpVersion.V6_0);

    /**
     * The ICVs jompd's own doors show, in id order (explicit-task-var, implicit-task-var's negation, left out:
     * they say the same).
     */
    public static final List<Icv> ALL = List.of(DYN_VAR, RUN_SCHED_VAR, STACKSIZE_VAR, CANCEL_VAR,
            MAX_TASK_PRIORITY_VAR, DEBUG_VAR, NTHREADS_VAR, DISPLAY_AFFINITY_VAR, AFFINITY_FORMAT_VAR,
            DEFAULT_DEVICE_VAR, TOOL_VAR, TOOL_LIBRARIES_VAR, TOOL_VERBOSE_INIT_VAR, LEVELS_VAR, ACTIVE_LEVELS_VAR,
            THREAD_LIMIT_VAR, MAX_ACTIVE_LEVELS_VAR, BIND_VAR, NUM_PROCS_VAR, OMPD_NUM_PROCS_VAR, THREAD_NUM_VAR,
            OMPD_THREAD_NUM_VAR, FINAL_TASK_VAR, OMPD_FINAL_VAR, OMPD_FINAL_TASK_VAR, IMPLICIT_TASK_VAR,
            OMPD_IMPLICIT_VAR, OMPD_IMPLICIT_TASK_VAR, TEAM_SIZE_VAR, OMPD_TEAM_SIZE_VAR, DEF_SCHED_VAR,
            WAIT_POLICY_VAR, PLACE_PARTITION_VAR, TARGET_OFFLOAD_VAR, DEF_ALLOCATOR_VAR, NTEAMS_VAR,
            TEAMS_THREAD_LIMIT_VAR);

    /** Every row, in id order: what ompd_enumerate_icvs walks, for each version the rows it has. */
    public static final List<Icv> CATALOGUE = java.util.stream.Stream.concat(ALL.stream(),
            java.util.stream.Stream.of(EXPLICIT_TASK_VAR, TEAM_NUM_VAR, LEAGUE_SIZE_VAR, TEAM_GENERATOR_VAR)).toList();

    private final int id;
    private final String name;
    private final IcvReader reader;
    /** Names later OpenMP versions give this ICV, from the version that introduced each. */
    private final Map<OpenMpVersion, String> renames;
    /** The first version whose debuggers ompd_enumerate_icvs shows this ICV. */
    private final OpenMpVersion since;
    /** The first version that no longer has it; null: still there. */
    private final OpenMpVersion until;

    private Icv(int id, String name, IcvReader reader) {
        this(id, name, reader, Map.of(), OpenMpVersion.V5_0, null);
    }

    private Icv(int id, String name, IcvReader reader, Map<OpenMpVersion, String> renames, OpenMpVersion since,
                OpenMpVersion until) {
        this.id = id;
        this.name = name;
        this.reader = reader;
        this.renames = renames;
        this.since = since;
        this.until = until;
    }

    /** A row of the catalogue by id, whatever version has it (every ICV stays readable by id). */
    public static Optional<Icv> byId(long id) {
        return CATALOGUE.stream().filter(icv -> icv.id == id).findFirst();
    }

    /** The ICVs a debugger of OpenMP {@code version} is enumerated, in id order. */
    public static List<Icv> enumeratedIn(OpenMpVersion version) {
        return CATALOGUE.stream().filter(icv -> icv.existsIn(version)).toList();
    }

    /** Whether debuggers of OpenMP {@code version} know this ICV by this name. */
    public boolean existsIn(OpenMpVersion version) {
        return since.compareTo(version) <= 0 && (until == null || version.compareTo(until) < 0);
    }

    /** The first version whose debuggers are enumerated this ICV. */
    public OpenMpVersion since() {
        return since;
    }

    /** The first version without it, if one removed it. */
    public Optional<OpenMpVersion> until() {
        return Optional.ofNullable(until);
    }

    /** This row, enumerated from OpenMP {@code version} on (for a row of the table). */
    Icv enumeratedFrom(OpenMpVersion version) {
        return new Icv(id, name, reader, renames, version, until);
    }

    /** This row, gone from OpenMP {@code version} on (for a row of the table). */
    Icv removedIn(OpenMpVersion version) {
        return new Icv(id, name, reader, renames, since, version);
    }

    public static Optional<Icv> byName(String name) {
        return ALL.stream().filter(icv -> icv.name.equals(name)).findFirst();
    }

    /** The id ompd_enumerate_icvs gives it (the reference libompd's for 1–30). */
    public int id() {
        return id;
    }

    /** The name the reference libompd gives it. */
    public String name() {
        return name;
    }

    /** The scope whose handle reads it. */
    public Scope scope() {
        return reader.scope();
    }

    IcvReader reader() {
        return reader;
    }

    /** The name tools of OpenMP {@code version} expect: the latest rename up to that version, else {@link #name()}. */
    public String nameIn(OpenMpVersion version) {
        String named = name;
        for (Map.Entry<OpenMpVersion, String> rename : renames.entrySet()) {
            if (rename.getKey().compareTo(version) <= 0) {
                named = rename.getValue();
            }
        }
        return named;
    }

    /** This row, known as {@code newName} from OpenMP {@code since} on (for a row of the table). */
    Icv renamedIn(OpenMpVersion since, String newName) {
        Map<OpenMpVersion, String> more = new EnumMap<>(OpenMpVersion.class);
        more.putAll(renames);
        more.put(since, newName);
        return new Icv(id, name, reader, Collections.unmodifiableMap(more), since, until); // EnumMap: in version order
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
