package dev.jompd.core.ompd;

import java.util.Objects;
import java.util.Optional;

/**
 * A task ({@code ompd_task_handle_t}): a {@code kmp_taskdata_t} and, for the implicit task of an outer
 * serialized region, the lightweight task team that holds its OMPT data (see {@link ParallelHandle}).
 */
public final class TaskHandle implements OmpdHandle {
    private final Stop stop;
    private final long taskdata;
    private final long lightweight;
    /**
     * For a teams construct's team's initial task reached from a task of the region closely nested in it: the
     * lightweight record that holds the initial task's OMPT frames (see {@link #teamsRecord()}); else 0. Not
     * part of the handle's identity.
     */
    private final long framesRecord;

    TaskHandle(Stop stop, long taskdata, long lightweight) {
        this(stop, taskdata, lightweight, 0);
    }

    private TaskHandle(Stop stop, long taskdata, long lightweight, long framesRecord) {
        this.stop = stop;
        this.taskdata = taskdata;
        this.lightweight = lightweight;
        this.framesRecord = framesRecord;
    }

    @Override
    public Scope scope() {
        return Scope.TASK;
    }

    @Override
    public AddressSpaceHandle space() {
        stop.check(this);
        return stop.space();
    }

    /** The address of the task's kmp_taskdata_t. */
    public long address() {
        return taskdata;
    }

    public long lightweightTeam() {
        return lightweight;
    }

    RemoteValue td() {
        return space().at(taskdata, "kmp_taskdata_t", "task@0x" + Long.toHexString(taskdata));
    }

    /** The task's flags ({@code td_flags}). */
    public TaskFlags flags() {
        RuntimeLayout layout = space().layout();
        long bits = td().field("kmp_taskdata_t", "td_flags").asUnsigned(layout.typeSize("kmp_tasking_flags_t"));
        return new TaskFlags(
                (bits & layout.bitMask("final")) != 0,
                (bits & layout.bitMask("tiedness")) != 0,
                (bits & layout.bitMask("tasktype")) != 0,
                (bits & layout.bitMask("task_serial")) != 0,
                (bits & layout.bitMask("tasking_ser")) != 0,
                (bits & layout.bitMask("team_serial")) != 0,
                (bits & layout.bitMask("started")) != 0,
                (bits & layout.bitMask("executing")) != 0,
                (bits & layout.bitMask("complete")) != 0,
                (bits & layout.bitMask("freed")) != 0,
                (bits & layout.bitMask("native")) != 0);
    }

    /** The team this task belongs to ({@code td_team->t}), as a value. */
    RemoteValue teamBase() {
        return td().field("kmp_taskdata_t", "td_team").deref("kmp_team_p").field("kmp_team_p", "t");
    }

    /** ompd_get_task_parallel_handle: the region this task belongs to. */
    public ParallelHandle parallel() {
        RemoteValue team = teamBase();
        ParallelHandle region = new ParallelHandle(stop, team.address(), lightweight);
        if (lightweight != 0) {
            return region.asTeamRecord(); // the implicit task of a team's region as libomp's OMPT records it
        }
        if (!TeamsRegions.runsTeamsMaster(space(), team)) {
            return region;
        }
        // An implicit task of a league's team: team k's initial task is in team k's implicit parallel region
        // (libomp: &t_implicit_task_taskdata[k]).
        long array = team.field("kmp_base_team_t", "t_implicit_task_taskdata").pointerValue();
        long size = space().layout().typeSize("kmp_taskdata_t");
        long index = array == 0 || Long.compareUnsigned(taskdata, array) < 0 || (taskdata - array) % size != 0
                ? -1 : (taskdata - array) / size;
        return region.asSeenBy(index);
    }

    /**
     * ompd_get_generating_task_handle: the task that created this one. For an implicit task of a
     * serialized region that is the enclosing serialized level's implicit task (one step along the
     * lightweight chain), else {@code td_parent}.
     */
    public TaskHandle generating() {
        long next;
        long record = 0;
        if (lightweight != 0) {
            next = parallel().lightweightParent(lightweight);
        } else if (!flags().explicit()) {
            record = teamsRecord();
            // a teams record is no serialized level: the team's initial task is td_parent, with the record's frames
            next = record != 0 ? 0 : new ParallelHandle(stop, teamBase().address(), 0).chainHead();
        } else {
            next = 0;
        }
        if (next != 0) {
            return new TaskHandle(stop, taskdata, next);
        }
        // libomp: td->td_parent
        long parent = td().field("kmp_taskdata_t", "td_parent").pointerValue();
        if (parent == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, this + " is the initial task: nothing generated it");
        }
        if (parent == taskdata) {
            throw new OmpdException(OmpdRc.ERROR, this + " is its own td_parent: memory corrupt");
        }
        return new TaskHandle(stop, parent, 0, record);
    }

    /**
     * The lightweight record libomp links on the team of a parallel region closely nested in a teams
     * construct when the region begins ({@code __kmp_fork_in_teams}), for an implicit task of that region;
     * 0 for any other task. libomp runs the teams region's code (the team's initial task, as OpenMP has it) in
     * that team's implicit task of the primary thread, and the record keeps what OMPT had recorded for it
     * then — its exit and enter frames, between which the teams region's code lies — while the implicit task
     * goes on as the nested region's. It is no serialized level: every thread of the team sees it, and the
     * team's initial task is {@code td_parent}, the league's implicit task for the team (the one OMPT's
     * initial-task callback was given), which keeps no frames of its own.
     */
    long teamsRecord() {
        long team = teamBase().address();
        long head = new ParallelHandle(stop, team, 0).chainHead();
        if (head == 0) {
            return 0;
        }
        return new ParallelHandle(stop, team, head).asTeamRecord().isTeamOfLeague() ? head : 0;
    }

    /** ompd_get_scheduling_task_handle: the task that was running when this one was scheduled. */
    public TaskHandle scheduling() {
        long parent = taskInfo().field("ompt_task_info_t", "scheduling_parent").pointerValue();
        if (parent == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, this + " has no scheduling parent");
        }
        return new TaskHandle(stop, parent, 0);
    }

    /** The OMPT task info: the taskdata's own, or the lightweight team's for an outer serialized level. */
    RemoteValue taskInfo() {
        if (lightweight != 0) {
            return space().at(lightweight, "ompt_lw_taskteam_t", "lwt@0x" + Long.toHexString(lightweight))
                    .field("ompt_lw_taskteam_t", "ompt_task_info");
        }
        return td().field("kmp_taskdata_t", "ompt_task_info");
    }

    /**
     * ompd_get_task_function: the entry point of the task's code — {@code routine} of the
     * {@code kmp_task_t} that follows an explicit task's taskdata, the team's outlined function
     * ({@code t_pkfn}) for an implicit task.
     */
    public long function() {
        ThreadHandle.requireStateTracking(space());
        if (lightweight != 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "the runtime keeps no function for the implicit task "
                    + "of an outer serialized region");
        }
        if (flags().explicit()) {
            // libomp: ((kmp_task_t *)(taskdata + 1))->routine  (KMP_TASKDATA_TO_TASK)
            long task = taskdata + space().layout().typeSize("kmp_taskdata_t");
            return space().at(task, "kmp_task_t", "KMP_TASKDATA_TO_TASK(" + td().path() + ")")
                    .field("kmp_task_t", "routine").pointerValue();
        }
        return teamBase().field("kmp_base_team_t", "t_pkfn").pointerValue();
    }

    /**
     * The user's code behind the task's entry point: {@link #function()} itself, except for the implicit
     * task of a region a gcc/gfortran-built program started through libomp's GOMP ABI, whose entry point
     * is libomp's wrapper: then the outlined function the wrapper calls ({@code main._omp_fn.0}), read
     * from the team ({@link GnuWrappers}). A code address read from memory: {@link FunctionNames} names it
     * only where a symbol table has a function starting there.
     *
     * @throws OmpdException as {@link #function()}; {@code unavailable} with the reason when the entry
     *                       point is a GOMP wrapper whose argument cannot be read with confidence
     */
    public long outlinedFunction() {
        long entry = function();
        if (flags().explicit()) {
            return entry; // GOMP_task stores the user's function itself as the task's routine
        }
        Optional<String> wrapper = GnuWrappers.wrapperAt(space(), entry);
        if (wrapper.isEmpty()) {
            return entry;
        }
        if (flags().teamSerial()) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "serialized region run by " + wrapper.get()
                    + ": libomp keeps no argument for it");
        }
        return GnuWrappers.outlinedFunction(space(), teamBase(), wrapper.get());
    }

    /**
     * ompd_get_task_frame: the task's exit and enter frames with their flags; for a teams construct's team's
     * initial task reached as a generating task, those its teams record kept ({@link #teamsRecord()}).
     */
    public TaskFrames frames() {
        ThreadHandle.requireStateTracking(space());
        RemoteValue info = framesRecord == 0 ? taskInfo()
                : space().at(framesRecord, "ompt_lw_taskteam_t", "lwt@0x" + Long.toHexString(framesRecord))
                        .field("ompt_lw_taskteam_t", "ompt_task_info");
        RemoteValue frame = info.field("ompt_task_info_t", "frame");
        RemoteValue exit = frame.field("ompt_frame_t", "exit_frame");
        RemoteValue enter = frame.field("ompt_frame_t", "enter_frame");
        // ompt_frame_t is public OMPT ABI: {ompt_data_t exit_frame, enter_frame; int exit_frame_flags,
        // enter_frame_flags}. The breadcrumbs locate the two frames; the flags follow the later one.
        RuntimeLayout layout = space().layout();
        long dataSize = layout.typeSize("ompt_data_t");
        long intSize = layout.typeSize("int");
        long flagsAt = Math.max(exit.address(), enter.address()) + dataSize;
        RemoteValue exitFlags = space().at(flagsAt, null, frame.path() + ".exit_frame_flags");
        RemoteValue enterFlags = space().at(flagsAt + intSize, null, frame.path() + ".enter_frame_flags");
        return new TaskFrames(exit.field("ompt_data_t", "ptr").pointerValue(), (int) exitFlags.asLong(intSize),
                enter.field("ompt_data_t", "ptr").pointerValue(), (int) enterFlags.asLong(intSize));
    }

    /** ompd_get_tool_data for the task scope: {@code ompt_task_info.task_data}. */
    public ToolData toolData() {
        return ToolData.read(taskInfo().field("ompt_task_info_t", "task_data"));
    }

    /** The task's ICV block ({@code td_icvs}). */
    RemoteValue icvs() {
        return td().field("kmp_taskdata_t", "td_icvs");
    }

    /** ompd_task_handle_compare: by taskdata, then lightweight team, all 64 bits. */
    public int compareTo(TaskHandle other) {
        int byTask = Long.compareUnsigned(taskdata, other.taskdata);
        return byTask != 0 ? byTask : Long.compareUnsigned(lightweight, other.lightweight);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskHandle other && other.taskdata == taskdata && other.lightweight == lightweight
                && other.stop == stop;
    }

    @Override
    public int hashCode() {
        return Objects.hash(taskdata, lightweight, stop.generation());
    }

    @Override
    public String toString() {
        return "task @0x" + Long.toHexString(taskdata) + (lightweight != 0 ? "/lw 0x" + Long.toHexString(lightweight) : "");
    }

    /** A task's flags from {@code kmp_tasking_flags_t}. */
    public record TaskFlags(boolean isFinal, boolean tied, boolean explicit, boolean taskSerial, boolean taskingSerial,
                            boolean teamSerial, boolean started, boolean executing, boolean complete, boolean freed,
                            boolean nativeTask) {
        public boolean implicit() {
            return !explicit;
        }

        // written out: a record's generated equals and hashCode are bootstrapped at first use (cold start)
        @Override
        public boolean equals(Object other) {
            return other instanceof TaskFlags f && bits() == f.bits();
        }

        @Override
        public int hashCode() {
            return bits();
        }

        private int bits() {
            boolean[] flags = {isFinal, tied, explicit, taskSerial, taskingSerial, teamSerial, started, executing,
                    complete, freed, nativeTask};
            int bits = 0;
            for (boolean flag : flags) {
                bits = bits << 1 | (flag ? 1 : 0);
            }
            return bits;
        }
    }

    /**
     * A task's frames: exit frame (where the task's code was entered from the runtime) and enter frame
     * (where the task called into the runtime), with their {@code ompt_frame_flag_t} flags.
     */
    public record TaskFrames(long exitFrame, int exitFrameFlags, long enterFrame, int enterFrameFlags) {}
}
