package dev.jompd.core.ompd;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import dev.jompd.testkit.SupportedRuntimes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * OpenMP 6.0's teams scope: {@link TeamsLayout}'s groups against each runtime's DWARF (gdb evaluating offsetof
 * and sizeof in our builds of libomp), the group each runtime's own breadcrumbs select, and the implicit parallel
 * region of each team of a teams construct against what the program recorded about itself (omp_get_team_num,
 * omp_get_num_teams, omp_get_level, omp_get_team_size).
 */
class TeamsIT {

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void eachRuntimesBreadcrumbsSelectTheGroupItsDwarfDescribes(int version) {
        TeamsLayout layout = TeamsLayout.shipped();
        String upstream = SupportedRuntimes.upstream(version);
        List<TeamsLayout.Group> named = layout.groups().stream().filter(g -> g.versions().contains(upstream)).toList();
        assertThat(named).as("groups naming " + upstream).hasSize(1);
        TeamsLayout.Group group = named.getFirst();
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TEAMS, "2", "2").onRuntime(version));
        Map<String, LockLayout.Member> members = new HashMap<>(group.members());
        members.putAll(layout.teamsSize());
        List<String> where = group.where().keySet().stream()
                .map(m -> "(long)&((" + m.substring(0, m.indexOf('.')) + "*)0)->" + m.substring(m.indexOf('.') + 1))
                .toList();
        Map<String, GdbProbe.Value> truth = LayoutMembersAgainstDwarf.check(fixture, members, where);
        group.where().forEach((member, offset) -> assertThat(truth.get(
                "(long)&((" + member.substring(0, member.indexOf('.')) + "*)0)->" + member.substring(member.indexOf('.') + 1))
                .asLong()).as(member + " in DWARF").isEqualTo(offset));
        // the runtime's own breadcrumbs pick this group, and no other group's key fits them
        AddressSpaceHandle process = Targets.process(fixture);
        assertThat(layout.groupFor(process.layout())).isEqualTo(group);
        assertThat(layout.groups().stream().filter(g -> g.where().equals(group.where()))).hasSize(1);
    }

    static Stream<Arguments> leagues() {
        return Stream.of(Arguments.of(SupportedRuntimes.defaultMajor(), "2", "2"),
                Arguments.of(SupportedRuntimes.defaultMajor(), "3", "2"),
                Arguments.of(14, "2", "3"), Arguments.of(16, "3", "1"));
    }

    @ParameterizedTest(name = "libomp {0}: teams {1} {2}")
    @MethodSource("leagues")
    void eachTeamsParallelRegionIsNestedInItsTeamsImplicitParallelRegion(int version, String nteams, String nthreads) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TEAMS, nteams, nthreads).onRuntime(version));
        Facts facts = fixture.facts();
        AddressSpaceHandle process = Targets.process(fixture);
        int teams = Integer.parseInt(nteams);
        assertThat(facts.threadCount()).isEqualTo(teams * Integer.parseInt(nthreads));
        for (Facts.ThreadFacts thread : facts.threads()) {
            String who = "thread " + thread.index();
            ThreadHandle handle = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp());
            ParallelHandle inner = handle.currentParallel();
            assertThat(inner.level()).as(who).isEqualTo(thread.level()).isEqualTo(1);
            assertThat(inner.teamSize()).as(who).isEqualTo(thread.teamSize());
            assertThat(inner.isTeamOfLeague()).isFalse();
            assertThat(inner.encounteringThreadNum()).as(who + ": omp_get_ancestor_thread_num(0)").isZero();
            assertThatThrownBy(inner::teams).isInstanceOfSatisfying(OmpdException.class,
                    e -> assertThat(e.rc()).isEqualTo(OmpdRc.INCOMPATIBLE_HANDLE));
            assertThatThrownBy(() -> Icvs.value(inner, Scope.TEAMS, Icv.TEAM_NUM_VAR))
                    .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.BAD_INPUT));

            // level 0 of the program is its team's implicit parallel region: one thread, team-num, league size
            ParallelHandle team = inner.enclosing();
            assertThat(team.isTeamOfLeague()).as(who + ": " + team).isTrue();
            assertThat(team.level()).isZero();
            assertThat(team.teamSize()).as(who + ": omp_get_team_size(0)").isEqualTo(1);
            ParallelHandle.Teams seen = team.teams();
            assertThat(seen.teamNumber()).as(who + " team_num").isEqualTo(thread.number("team_num"));
            assertThat(seen.leagueSize()).as(who + " num_teams").isEqualTo(thread.number("num_teams")).isEqualTo(teams);
            assertThat(Icvs.value(team, Scope.TEAMS, Icv.TEAM_NUM_VAR).value()).isEqualTo(thread.number("team_num"));
            assertThat(Icvs.string(team, Scope.TEAMS, Icv.LEAGUE_SIZE_VAR)).isEqualTo(nteams);
            assertThatThrownBy(() -> Icvs.value(team, Scope.TEAMS, Icv.TEAM_GENERATOR_VAR))
                    .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.UNSUPPORTED));
            assertThat(Icvs.value(team, Scope.PARALLEL, Icv.TEAM_SIZE_VAR).value()).isEqualTo(1);
            // its one thread is the team's initial thread, the thread number 0 of the team's parallel region
            ThreadHandle initial = team.threadInParallel(0);
            assertThat(initial).isEqualTo(inner.threadInParallel(0));
            assertThat(team.taskInParallel(0).parallel()).isEqualTo(team);
            assertThatThrownBy(() -> team.threadInParallel(1)).isInstanceOfSatisfying(OmpdException.class,
                    e -> assertThat(e.rc()).isEqualTo(OmpdRc.BAD_INPUT));
            // the teams body the league runs, and beyond the league the program's initial region
            assertThat(team.outlinedFunction()).isNotZero().isNotEqualTo(team.function());
            ParallelHandle initialRegion = team.enclosing();
            assertThat(initialRegion.isTeamOfLeague()).isFalse();
            assertThat(initialRegion.level()).isZero();
            assertThatThrownBy(initialRegion::enclosing).isInstanceOfSatisfying(OmpdException.class,
                    e -> assertThat(e.rc()).isEqualTo(OmpdRc.UNAVAILABLE));
        }
    }
}
