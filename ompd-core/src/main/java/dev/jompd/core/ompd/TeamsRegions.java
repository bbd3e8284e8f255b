package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.util.Optional;

/**
 * A teams construct's league as libomp keeps it. {@code __kmpc_fork_teams} forks one team (the league) whose
 * {@code t_pkfn} is {@code __kmp_teams_master} and whose thread k is the initial thread of team k; each of those
 * threads keeps the construct's state in its {@code kmp_base_info_t} ({@code th_teams_microtask}: the user's
 * teams body, {@code th_teams_level}: the level the construct was met at, {@code th_teams_size}: nteams and
 * threads per team; {@code __kmp_aux_get_team_info} walks them). A parallel region inside team k is a team whose
 * {@code t_parent} is the league and whose {@code t_master_tid} is k. libomp keeps the league's t_level at the
 * construct's level: the program's levels-var does not count it.
 *
 * <p>OpenMP sees nteams implicit parallel regions there, one per team, each of one thread (the team's initial
 * thread), at the construct's level: {@link ParallelHandle#isTeamOfLeague()}. None of these members has a
 * breadcrumb: their places come from {@link TeamsLayout}, chosen by the breadcrumbs, and what is read through
 * them is believed only when it fits: the league's team runs {@code __kmp_teams_master} (by the runtime's own
 * symbol; a stripped runtime, which does not name it, by the rest alone), its initial threads have a teams microtask, their teams level is the league's level, their nteams
 * the league's size, their threads per team in range, and team k's initial thread is the league's thread k.
 */
final class TeamsRegions {
    /** Bound on nteams and threads per team believed (libomp caps both far below). */
    static final long MAX_TEAMS = 1 << 20;

    private TeamsRegions() {}

    /**
     * What a validated league says.
     *
     * @param leagueSize     the number of teams (the league's {@code t_nproc} = {@code th_teams_size.nteams})
     * @param threadsPerTeam {@code th_teams_size.nth}
     * @param level          the level the teams construct was met at ({@code th_teams_level})
     * @param microtask      the user's teams body ({@code th_teams_microtask})
     */
    record League(long leagueSize, long threadsPerTeam, long level, long microtask) {}

    /**
     * Whether {@code team} is a league: its {@code t_pkfn} is {@code __kmp_teams_master} where the runtime names that
     * function; in a stripped runtime, which does not, whether its first thread's teams state fits it as a league's
     * ({@link #league}: a teams microtask, the league's level and size). Any read failing: not a league.
     */
    static boolean runsTeamsMaster(AddressSpaceHandle space, RemoteValue team) {
        try {
            long pkfn = team.field("kmp_base_team_t", "t_pkfn").pointerValue();
            if (pkfn == 0) {
                return false;
            }
            Optional<Long> master = space.layout().symbol(TeamsLayout.shipped().leagueFunction()).map(s -> s.address());
            if (master.isPresent()) {
                return pkfn == master.get();
            }
            league(space, team, -1);
            return true;
        } catch (OmpdException notRead) {
            return false;
        }
    }

    /**
     * The league {@code team} is, validated through its initial threads' teams state.
     *
     * @param teamNumber a team whose initial thread to check as well (−1: only thread 0)
     * @throws OmpdException {@code unsupported} when no teams layout fits the runtime, {@code unavailable} with the
     *                       reason when {@code team} is not a league or its state does not fit
     */
    static League league(AddressSpaceHandle space, RemoteValue team, long teamNumber) {
        String where = team.path();
        long pkfn = team.field("kmp_base_team_t", "t_pkfn").pointerValue();
        Optional<Long> master = space.layout().symbol(TeamsLayout.shipped().leagueFunction()).map(s -> s.address());
        if (pkfn == 0 || master.isPresent() && pkfn != master.get()) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, where + " is not a teams construct's league (its t_pkfn is not "
                    + TeamsLayout.shipped().leagueFunction() + ")");
        }
        TeamsLayout.Group group = TeamsLayout.shipped().groupFor(space.layout());
        long nproc = team.field("kmp_base_team_t", "t_nproc").asLong();
        long level = team.field("kmp_base_team_t", "t_level").asLong();
        if (nproc < 1 || nproc > MAX_TEAMS) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, where + ".t_nproc " + nproc + " is no league size");
        }
        League league = initialThread(space, team, 0, group, nproc, level);
        if (master.isEmpty() && league.microtask() == pkfn) {
            // a stripped runtime: the league runs __kmp_teams_master, never the teams body itself
            throw new OmpdException(OmpdRc.UNAVAILABLE, where + " runs its threads' teams microtask: a team inside a "
                    + "teams construct, not its league");
        }
        if (teamNumber > 0) {
            if (teamNumber >= nproc) {
                throw new OmpdException(OmpdRc.UNAVAILABLE, "team " + teamNumber + " outside a league of " + nproc);
            }
            League other = initialThread(space, team, teamNumber, group, nproc, level);
            if (other.microtask() != league.microtask() || other.threadsPerTeam() != league.threadsPerTeam()) {
                throw new OmpdException(OmpdRc.UNAVAILABLE, where + ": team " + teamNumber
                        + "'s initial thread runs another teams construct than team 0's");
            }
        }
        return league;
    }

    /** The teams state of the league's thread {@code k}, checked against the league. */
    private static League initialThread(AddressSpaceHandle space, RemoteValue team, long k, TeamsLayout.Group group,
                                        long nproc, long level) {
        // libomp: team->t.t_threads[k]->th
        RemoteValue slot = team.field("kmp_base_team_t", "t_threads").deref(null)
                .element(k, space.memory().architecture().pointerSize(), null);
        long info = slot.pointerValue();
        if (info == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, slot.path() + " is NULL");
        }
        RemoteValue th = space.at(Ompd.infoToBase(space, info), "kmp_base_info_t", slot.path() + "->th");
        Member microtaskMember = group.member("kmp_base_info_t", "th_teams_microtask");
        Member levelMember = group.member("kmp_base_info_t", "th_teams_level");
        Member sizeMember = group.member("kmp_base_info_t", "th_teams_size");
        TeamsLayout layout = TeamsLayout.shipped();
        // libomp: th.th_teams_microtask, th.th_teams_level, th.th_teams_size.{nteams,nth}
        long microtask = th.field("th_teams_microtask", microtaskMember).asUnsigned(microtaskMember.size());
        long teamsLevel = th.field("th_teams_level", levelMember).asLong(levelMember.size());
        RemoteValue size = th.field("th_teams_size", sizeMember);
        Member nteamsMember = layout.teamsSizeMember("nteams");
        Member nthMember = layout.teamsSizeMember("nth");
        long nteams = size.field("nteams", nteamsMember).asLong(nteamsMember.size());
        long nth = size.field("nth", nthMember).asLong(nthMember.size());
        String who = th.path();
        if (microtask == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, who + ".th_teams_microtask is NULL: not in a teams construct");
        }
        if (teamsLevel != level) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, who + ".th_teams_level " + teamsLevel
                    + " is not the league's level " + level);
        }
        if (nteams != nproc) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, who + ".th_teams_size.nteams " + nteams
                    + " is not the league's size " + nproc);
        }
        if (nth < 1 || nth > MAX_TEAMS) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, who + ".th_teams_size.nth " + nth + " is no team size");
        }
        return new League(nproc, nth, teamsLevel, microtask);
    }
}
