package dev.jompd.core.ompd;

import java.util.HashSet;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A parallel region ({@code ompd_parallel_handle_t}): a team ({@code kmp_base_team_t}) and, for a
 * serialized nested region, the lightweight task team ({@code ompt_lw_taskteam_t}) that holds it.
 *
 * <p>How libomp keeps serialized regions: the innermost serialized level's OMPT data sits in the
 * (serial) team itself; entering a further level swaps the outer level's data into a new
 * {@code ompt_lw_taskteam_t} pushed on {@code t.ompt_serialized_team_info}. So {@code lightweight == 0}
 * means "the team's own, innermost level", and a lightweight team {@code L} at depth d of that chain
 * holds level {@code t_level - d}.
 */
public final class ParallelHandle implements OmpdHandle {
    /** Bound on lightweight-team chains and team-parent walks: far beyond any real nesting. */
    static final int MAX_NESTING = 4096;

    private final Stop stop;
    private final long team;
    private final long lightweight;

    ParallelHandle(Stop stop, long team, long lightweight) {
        this.stop = stop;
        this.team = team;
        this.lightweight = lightweight;
    }

    @Override
    public Scope scope() {
        return Scope.PARALLEL;
    }

    @Override
    public AddressSpaceHandle space() {
        stop.check(this);
        return stop.space();
    }

    /** The address of the team's kmp_base_team_t. */
    public long teamAddress() {
        return team;
    }

    /** The lightweight task team holding this serialized region, or 0 for the team's own level. */
    public long lightweightTeam() {
        return lightweight;
    }

    public boolean isSerializedLevel() {
        return lightweight != 0;
    }

    RemoteValue t() {
        return space().at(team, "kmp_base_team_t", "team@0x" + Long.toHexString(team) + "->t");
    }

    RemoteValue lw() {
        return space().at(lightweight, "ompt_lw_taskteam_t", "lwt@0x" + Long.toHexString(lightweight));
    }

    /** The first lightweight team on this team's chain (0 when none). */
    long chainHead() {
        return t().field("kmp_base_team_t", "ompt_serialized_team_info").pointerValue();
    }

    /** The parent link of a lightweight team. */
    long lightweightParent(long lw) {
        return space().at(lw, "ompt_lw_taskteam_t", "lwt@0x" + Long.toHexString(lw))
                .field("ompt_lw_taskteam_t", "parent").pointerValue();
    }

    /** How far down this team's lightweight chain this handle's level is (0 for the team's own). */
    int lightweightDepth() {
        if (lightweight == 0) {
            return 0;
        }
        Set<Long> seen = new HashSet<>();
        long at = chainHead();
        for (int depth = 1; at != 0; depth++) {
            if (at == lightweight) {
                return depth;
            }
            if (!seen.add(at) || depth > MAX_NESTING) {
                throw new OmpdException(OmpdRc.ERROR, "lightweight team chain of team 0x" + Long.toHexString(team)
                        + " loops or exceeds " + MAX_NESTING + " at 0x" + Long.toHexString(at));
            }
            at = lightweightParent(at);
        }
        throw new OmpdException(OmpdRc.STALE_HANDLE, "lightweight team 0x" + Long.toHexString(lightweight)
                + " is no longer on team 0x" + Long.toHexString(team) + "'s chain");
    }

    /** levels-var: the nesting level of this region ({@code t_level}, less its lightweight depth). */
    public long level() {
        return t().field("kmp_base_team_t", "t_level").asLong() - lightweightDepth();
    }

    /** active-levels-var: {@code t_active_level} (serialized levels are not active). */
    public long activeLevel() {
        return t().field("kmp_base_team_t", "t_active_level").asLong();
    }

    /** team-size-var: 1 for a serialized level, else {@code t_nproc}. */
    public long teamSize() {
        if (lightweight != 0) {
            return 1;
        }
        return t().field("kmp_base_team_t", "t_nproc").asLong();
    }

    /** ompd_get_enclosing_parallel_handle: the region this one is nested in. */
    public ParallelHandle enclosing() {
        // A lightweight level's enclosing level is the next on the chain; past the chain, t_parent.
        long nextLightweight = lightweight == 0 ? chainHead() : lightweightParent(lightweight);
        if (nextLightweight != 0) {
            return new ParallelHandle(stop, team, nextLightweight);
        }
        long parent = t().field("kmp_base_team_t", "t_parent").pointerValue();
        if (parent == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "region " + this + " is the outermost one");
        }
        long parentBase = parent + space().layout().offset("kmp_team_p", "t");
        if (parentBase == team) {
            throw new OmpdException(OmpdRc.ERROR, "team 0x" + Long.toHexString(team) + " is its own parent");
        }
        return new ParallelHandle(stop, parentBase, 0);
    }

    /** ompd_get_thread_in_parallel: the thread with this OpenMP thread number in the team. */
    public ThreadHandle threadInParallel(int threadNum) {
        long size = teamSize();
        if (threadNum < 0 || threadNum >= size) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "thread number " + threadNum + " outside team of " + size);
        }
        // libomp: t.t_threads[threadNum]->th
        RemoteValue slot = t().field("kmp_base_team_t", "t_threads").deref(null)
                .element(threadNum, space().memory().architecture().pointerSize(), null);
        long info = slot.pointerValue();
        if (info == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, slot.path() + " is NULL", OptionalLong.of(slot.address()), null);
        }
        return new ThreadHandle(stop, Ompd.infoToBase(space(), info), OptionalLong.empty());
    }

    /** ompd_get_task_in_parallel: the implicit task of thread {@code threadNum} in this region. */
    public TaskHandle taskInParallel(int threadNum) {
        long size = teamSize();
        if (threadNum < 0 || threadNum >= size) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "thread number " + threadNum + " outside team of " + size);
        }
        // libomp: &t.t_implicit_task_taskdata[threadNum]
        long array = t().field("kmp_base_team_t", "t_implicit_task_taskdata").pointerValue();
        if (array == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "team 0x" + Long.toHexString(team) + " has no implicit tasks");
        }
        long task = array + threadNum * space().layout().typeSize("kmp_taskdata_t");
        return new TaskHandle(stop, task, lightweight);
    }

    /** ompd_get_tool_data for the parallel scope: {@code ompt_team_info.parallel_data}. */
    public ToolData toolData() {
        RemoteValue info = lightweight != 0
                ? lw().field("ompt_lw_taskteam_t", "ompt_team_info")
                : t().field("kmp_base_team_t", "ompt_team_info");
        return ToolData.read(info.field("ompt_team_info_t", "parallel_data"));
    }

    /**
     * The number, in the enclosing region, of the thread that encountered this region (what
     * {@code omp_get_ancestor_thread_num(level - 1)} answers in it). Levels held in one serial team are
     * nested in each other: the team's own level (the innermost) and each lightweight level but the last
     * on the chain are enclosed by a serialized level, whose only thread is number 0. The outermost level
     * of the team was encountered by thread {@code t_master_tid} of the enclosing team.
     */
    public long encounteringThreadNum() {
        long enclosingLightweight = lightweight == 0 ? chainHead() : lightweightParent(lightweight);
        if (enclosingLightweight != 0) {
            return 0;
        }
        return t().field("kmp_base_team_t", "t_master_tid").asLong();
    }

    /** The outlined function the team runs ({@code t_pkfn}). */
    public long function() {
        return t().field("kmp_base_team_t", "t_pkfn").pointerValue();
    }

    /**
     * The user's outlined function the team runs: {@link #function()}, or for a region a gcc/gfortran-built
     * program started through libomp's GOMP wrapper, the wrapper's argument ({@link GnuWrappers}). Name it
     * through {@link FunctionNames#ofCode(long)}, which checks that a function starts there.
     *
     * @throws OmpdException {@code unavailable} with the reason when the wrapper's argument cannot be read
     *                       with confidence (a serialized level, an unexpected layout)
     */
    public long outlinedFunction() {
        long entry = function();
        java.util.Optional<String> wrapper = GnuWrappers.wrapperAt(space(), entry);
        if (wrapper.isEmpty()) {
            return entry;
        }
        if (lightweight != 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "serialized region run by " + wrapper.get()
                    + ": libomp keeps no argument for it");
        }
        return GnuWrappers.outlinedFunction(space(), t(), wrapper.get());
    }

    /** ompd_parallel_handle_compare: by team address, then lightweight team, all 64 bits. */
    public int compareTo(ParallelHandle other) {
        int byTeam = Long.compareUnsigned(team, other.team);
        return byTeam != 0 ? byTeam : Long.compareUnsigned(lightweight, other.lightweight);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ParallelHandle other && other.team == team && other.lightweight == lightweight
                && other.stop == stop;
    }

    @Override
    public int hashCode() {
        return Objects.hash(team, lightweight, stop.generation());
    }

    @Override
    public String toString() {
        return "parallel @0x" + Long.toHexString(team) + (lightweight != 0 ? "/lw 0x" + Long.toHexString(lightweight) : "");
    }
}
