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
 *
 * <p>A teams construct's league ({@link TeamsRegions}) is one libomp team for what OpenMP sees as one implicit
 * parallel region per team: the handle of team k's region is the league's team with {@link #TEAM_OF_LEAGUE}
 * and k in place of a lightweight team (no lightweight team is ever at such an address: user space ends far
 * below bit 63). It is what OpenMP 6.0's {@code ompd_scope_teams} takes.
 */
public final class ParallelHandle implements OmpdHandle {
    /** Bound on lightweight-team chains and team-parent walks: far beyond any real nesting. */
    static final int MAX_NESTING = 4096;

    /** The tag of a team-of-a-league identity in the lightweight word: the team number is in the low bits. */
    static final long TEAM_OF_LEAGUE = 1L << 63;

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
    public boolean serves(Scope scope) {
        return scope == Scope.PARALLEL || scope == Scope.TEAMS && isTeamOfLeague();
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
        return lightweight != 0 && !isTeamOfLeague();
    }

    /**
     * Whether this handle names the implicit parallel region of one team of a teams construct (its identity
     * says so; {@link #teams()} checks the league behind it).
     */
    public boolean isTeamOfLeague() {
        return (lightweight & TEAM_OF_LEAGUE) != 0;
    }

    /** The team number of a team-of-a-league handle. */
    long leagueTeamNumber() {
        return lightweight & ~TEAM_OF_LEAGUE;
    }

    /** Team {@code k}'s implicit parallel region of the league {@code league} (a team's kmp_base_team_t). */
    static ParallelHandle teamOfLeague(Stop stop, long league, long k) {
        return new ParallelHandle(stop, league, TEAM_OF_LEAGUE | k);
    }

    /**
     * What OpenMP 6.0's teams scope says of this region: its team number and the league's size, read and checked
     * through {@link TeamsRegions}.
     *
     * @throws OmpdException {@code incompatible_handle} when this is not the implicit parallel region of a
     *                       team of a teams construct; {@code unsupported}/{@code unavailable} when the runtime's
     *                       teams state cannot be read with certainty, with why
     */
    public Teams teams() {
        if (!isTeamOfLeague()) {
            throw new OmpdException(OmpdRc.INCOMPATIBLE_HANDLE, this + " is not the implicit parallel region of a teams "
                    + "construct's team");
        }
        TeamsRegions.League league = TeamsRegions.league(space(), t(), leagueTeamNumber());
        if (leagueTeamNumber() >= league.leagueSize()) {
            throw new OmpdException(OmpdRc.STALE_HANDLE, "team " + leagueTeamNumber() + " outside the league of "
                    + league.leagueSize() + " at 0x" + Long.toHexString(team));
        }
        return new Teams(leagueTeamNumber(), league.leagueSize(), league.threadsPerTeam(), league.microtask());
    }

    /**
     * OpenMP 6.0's teams-scope ICVs of a team's implicit parallel region, with what libomp keeps beside them.
     *
     * @param teamNumber     team-num-var: {@code omp_get_team_num()} in the team
     * @param leagueSize     league-size-var: {@code omp_get_num_teams()}
     * @param threadsPerTeam the construct's limit on each team's threads ({@code th_teams_size.nth})
     * @param teamsBody      the user's outlined teams body ({@code th_teams_microtask})
     */
    public record Teams(long teamNumber, long leagueSize, long threadsPerTeam, long teamsBody) {}

    /**
     * A serialized level that is libomp's record of a team's implicit parallel region, as that region's handle;
     * any other handle is itself. With OMPT on, the first parallel region inside team k of a league reuses the
     * team libomp made for team k and links a lightweight team holding the team's region's OMPT data
     * ({@code __kmp_fork_in_teams}, {@code __ompt_lw_taskteam_link}): the last level on the team's chain, at the
     * league's level, with the league as the team's parent.
     */
    ParallelHandle asTeamRecord() {
        if (!isSerializedLevel() || lightweightParent(lightweight) != 0) {
            return this;
        }
        long parent = t().field("kmp_base_team_t", "t_parent").pointerValue();
        if (parent == 0) {
            return this;
        }
        ParallelHandle league = new ParallelHandle(stop, parent + space().layout().offset("kmp_team_p", "t"), 0);
        if (!TeamsRegions.runsTeamsMaster(space(), league.t()) || league.level() != level()) {
            return this;
        }
        ParallelHandle seen = league.asSeenBy(t().field("kmp_base_team_t", "t_master_tid").asLong());
        return seen.isTeamOfLeague() ? seen : this;
    }

    /**
     * The handle of this region as OpenMP sees it: a league's own team becomes team {@code threadNum}'s implicit
     * parallel region (a thread or an implicit task there is in its own team's region), when the runtime's
     * teams state says it is a league; any other region is itself.
     */
    ParallelHandle asSeenBy(long threadNum) {
        if (lightweight != 0 || threadNum < 0 || !TeamsRegions.runsTeamsMaster(space(), t())) {
            return this;
        }
        try {
            TeamsRegions.League league = TeamsRegions.league(space(), t(), threadNum);
            return threadNum < league.leagueSize() ? teamOfLeague(stop, team, threadNum) : this;
        } catch (OmpdException notALeague) {
            return this; // libomp's team as it is: the reason is in teams() of a team's handle
        }
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
        if (lightweight == 0 || isTeamOfLeague()) {
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
            return 1; // a serialized level, or one team's implicit parallel region: its initial thread alone
        }
        return t().field("kmp_base_team_t", "t_nproc").asLong();
    }

    /** ompd_get_enclosing_parallel_handle: the region this one is nested in. */
    public ParallelHandle enclosing() {
        // A lightweight level's enclosing level is the next on the chain; past the chain, t_parent.
        long nextLightweight = isTeamOfLeague() ? 0 : lightweight == 0 ? chainHead() : lightweightParent(lightweight);
        if (nextLightweight != 0) {
            return new ParallelHandle(stop, team, nextLightweight).asTeamRecord();
        }
        long parent = t().field("kmp_base_team_t", "t_parent").pointerValue();
        if (parent == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "region " + this + " is the outermost one");
        }
        long parentBase = parent + space().layout().offset("kmp_team_p", "t");
        if (parentBase == team) {
            throw new OmpdException(OmpdRc.ERROR, "team 0x" + Long.toHexString(team) + " is its own parent");
        }
        // A region inside team k of a league is nested in team k's implicit parallel region, not in the league's
        // team as a whole (libomp: t_master_tid is k, __kmp_aux_get_team_num).
        ParallelHandle parentRegion = new ParallelHandle(stop, parentBase, 0);
        if (!isTeamOfLeague() && TeamsRegions.runsTeamsMaster(space(), parentRegion.t())) {
            return parentRegion.asSeenBy(t().field("kmp_base_team_t", "t_master_tid").asLong());
        }
        return parentRegion;
    }

    /** ompd_get_thread_in_parallel: the thread with this OpenMP thread number in the team. */
    public ThreadHandle threadInParallel(int threadNum) {
        long size = teamSize();
        if (threadNum < 0 || threadNum >= size) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "thread number " + threadNum + " outside team of " + size);
        }
        if (isTeamOfLeague()) {
            threadNum = Math.toIntExact(leagueTeamNumber()); // the team's initial thread is the league's thread k
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
        long taskLightweight = lightweight;
        if (isTeamOfLeague()) {
            threadNum = Math.toIntExact(leagueTeamNumber()); // the implicit task of the team's initial thread
            taskLightweight = 0;
        }
        // libomp: &t.t_implicit_task_taskdata[threadNum]
        long array = t().field("kmp_base_team_t", "t_implicit_task_taskdata").pointerValue();
        if (array == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "team 0x" + Long.toHexString(team) + " has no implicit tasks");
        }
        long task = array + threadNum * space().layout().typeSize("kmp_taskdata_t");
        return new TaskHandle(stop, task, taskLightweight);
    }

    /** ompd_get_tool_data for the parallel scope: {@code ompt_team_info.parallel_data}. */
    public ToolData toolData() {
        RemoteValue info = isSerializedLevel()
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
        long enclosingLightweight = isTeamOfLeague() ? 0 : lightweight == 0 ? chainHead() : lightweightParent(lightweight);
        if (enclosingLightweight != 0) {
            return 0;
        }
        if (!isTeamOfLeague() && t().field("kmp_base_team_t", "t_parent").pointerValue() != 0
                && enclosing().isTeamOfLeague()) {
            return 0; // team k's initial thread is thread 0 of its team's implicit parallel region (t_master_tid is k)
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
        if (isTeamOfLeague()) {
            return teams().teamsBody(); // the league runs __kmp_teams_master, which calls the user's teams body
        }
        long entry = function();
        java.util.Optional<String> wrapper = GnuWrappers.wrapperAt(space(), entry);
        if (wrapper.isEmpty()) {
            return entry;
        }
        if (isSerializedLevel()) {
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
        return "parallel @0x" + Long.toHexString(team) + (isTeamOfLeague() ? "/team " + leagueTeamNumber()
                : lightweight != 0 ? "/lw 0x" + Long.toHexString(lightweight) : "");
    }
}
