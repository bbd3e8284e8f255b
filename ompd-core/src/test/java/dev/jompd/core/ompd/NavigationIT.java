package dev.jompd.core.ompd;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Handles reached any way lead everywhere: teams to threads and tasks and back, ids of every kind. */
class NavigationIT {

    @Test
    void everyThreadAndImplicitTaskOfATeamLeadsBackToThatTeam() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3", "4"));
        AddressSpaceHandle process = Targets.process(fixture);
        Set<ParallelHandle> innermost = new HashSet<>();
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            innermost.add(Ompd.threadHandle(process, ThreadIdKind.LWP, facts.lwp()).currentParallel());
        }
        assertThat(innermost).hasSize(2 * 3);
        for (ParallelHandle team : innermost) {
            for (int i = 0; i < team.teamSize(); i++) {
                ThreadHandle member = team.threadInParallel(i);
                // The reference answers stale_handle here: its team-reached thread handles lack context.
                assertThat(member.currentParallel()).isEqualTo(team);
                assertThat(member.threadNum()).isEqualTo(i);
                TaskHandle implicit = team.taskInParallel(i);
                assertThat(implicit.flags().implicit()).isTrue();
                assertThat(implicit.parallel()).isEqualTo(team);
                assertThat(member.currentTask()).isEqualTo(implicit);
                assertThat(member.gtid()).isEqualTo(member.threadId(ThreadIdKind.GTID));
                assertThat(Ompd.threadHandle(process, ThreadIdKind.GTID, member.gtid())).isEqualTo(member);
                assertThat(Ompd.threadHandle(process, ThreadIdKind.LWP, member.threadId(ThreadIdKind.LWP)))
                        .isEqualTo(member);
            }
            assertThatThrownBy(() -> team.threadInParallel((int) team.teamSize()))
                    .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.BAD_INPUT));
            assertThatThrownBy(() -> team.taskInParallel(-1))
                    .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.BAD_INPUT));
        }
    }

    @Test
    void handlesCompareByAllSixtyFourBits() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4"));
        AddressSpaceHandle process = Targets.process(fixture);
        List<ThreadHandle> threads = Ompd.threads(process);
        // Worker kmp_info_t live in heaps far apart (0x5555… vs 0x7fff…): an int difference would wrap.
        ThreadHandle low = threads.stream().min(ThreadHandle::compareTo).orElseThrow();
        ThreadHandle high = threads.stream().max(ThreadHandle::compareTo).orElseThrow();
        assertThat(Long.compareUnsigned(low.address(), high.address())).isNegative();
        assertThat(low.compareTo(high)).isNegative();
        assertThat(high.compareTo(low)).isPositive();
        assertThat(low.compareTo(low)).isZero();
        ParallelHandle a = low.currentParallel();
        ParallelHandle b = high.currentParallel();
        assertThat(Integer.signum(a.compareTo(b))).isEqualTo(-Integer.signum(b.compareTo(a)));
    }

    @Test
    void handlesOfAFinishedStopAreStale() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "3"));
        AddressSpaceHandle process = Targets.process(fixture);
        ThreadHandle thread = Ompd.threads(process).getFirst();
        ParallelHandle region = thread.currentParallel();
        TaskHandle task = thread.currentTask();
        process.resumed();
        for (Runnable use : List.<Runnable>of(thread::currentParallel, region::teamSize, task::flags,
                () -> Icvs.value(thread, Scope.THREAD, Icv.DYN_VAR))) {
            assertThatThrownBy(use::run).isInstanceOfSatisfying(OmpdException.class,
                    e -> assertThat(e.rc()).isEqualTo(OmpdRc.STALE_HANDLE));
        }
        // The address space handle itself lives on: the new stop answers again.
        assertThat(Ompd.threads(process).getFirst().currentParallel().teamSize()).isEqualTo(3);
    }

    @Test
    void scopesAndIdsAreValidated() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2"));
        AddressSpaceHandle process = Targets.process(fixture);
        ThreadHandle thread = Ompd.threads(process).getFirst();
        assertThatThrownBy(() -> Icvs.value(thread, Scope.TASK, Icv.DYN_VAR))
                .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.BAD_INPUT));
        assertThatThrownBy(() -> Icvs.value(process, Scope.THREAD, Icv.DYN_VAR))
                .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.BAD_INPUT));
        assertThatThrownBy(() -> Ompd.threadHandle(process, ThreadIdKind.PTHREAD, 0x1234))
                .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.UNAVAILABLE));
        assertThatThrownBy(() -> Ompd.threadHandle(process, ThreadIdKind.GTID, 1 << 24))
                .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.BAD_INPUT));
        assertThatThrownBy(() -> Ompd.deviceInitialize(process, 1))
                .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.UNAVAILABLE));
        assertThatThrownBy(() -> thread.threadId(ThreadIdKind.WINTHREAD))
                .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.UNSUPPORTED));
    }
}
