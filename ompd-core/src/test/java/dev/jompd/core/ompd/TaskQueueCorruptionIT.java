package dev.jompd.core.ompd;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Damaged task teams, deques and dependence nodes (a real core of deferred_tasks seen through an address space
 * that damages chosen bytes, located by gdb through libomp's DWARF): each gives a problem line naming what does
 * not fit and leaves out what it would have given, never a wrong task, never a hang; what is intact is still read.
 */
class TaskQueueCorruptionIT {
    private static final String DATA = "__kmp_threads[0]->th.th_task_team->tt.tt_threads_data";
    private final StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.DEFERRED_TASKS, "4", "2", "3", "3"));
    private final Facts facts = fixture.facts();

    private record Damaged(ProcessSnapshot snapshot, long gtid0, long gtid1) {}

    private Damaged damaged(String addressExpression, java.util.function.Function<Map<String, GdbProbe.Value>, Long> value, int size) {
        Map<String, GdbProbe.Value> truth = fixture.gdb().evaluate(List.of("(long)" + addressExpression,
                "(long)" + DATA + "[0].td.td_thr->th.th_info.ds.ds_gtid", "(long)" + DATA + "[1].td.td_thr->th.th_info.ds.ds_gtid",
                "(long)" + DATA + "[0].td.td_deque_ntasks", "(long)" + DATA + "[0].td.td_deque[" + DATA + "[0].td.td_deque_head]",
                "(long)__kmp_threads[0]->th.th_current_task"));
        DamagingAddressSpace target = new DamagingAddressSpace(Targets.core(fixture));
        AddressSpaceHandle process = Ompd.processInitialize(target);
        target.overwrite(truth.get("(long)" + addressExpression).asLong(), value.apply(truth), size);
        ProcessSnapshot snapshot = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> ProcessSnapshot.take(process));
        return new Damaged(snapshot, truth.get("(long)" + DATA + "[0].td.td_thr->th.th_info.ds.ds_gtid").asLong(),
                truth.get("(long)" + DATA + "[1].td.td_thr->th.th_info.ds.ds_gtid").asLong());
    }

    @Test
    void aDequeWhoseCountDisagreesWithItsEndsIsLeftOutAndSaysSo() {
        Damaged d = damaged("&" + DATA + "[0].td.td_deque_ntasks", truth -> 3L, 4);
        // thread 1's deque is intact; P and the tasks waiting for it were behind the damaged one
        assertThat(d.snapshot().deferred().tasks().stream().map(ProcessSnapshot.DeferredTaskView::reason).toList())
                .isEqualTo(List.of(new RuntimeTaskQueues.Wait.Queued(d.gtid1(), 1, 0), new RuntimeTaskQueues.Wait.Queued(d.gtid1(), 1, 1)));
        assertThat(d.snapshot().problems()).singleElement().asString()
                .startsWith("task deque of gtid " + d.gtid0() + ": size ").endsWith("3 tasks do not agree: not libomp's deque, its tasks are not shown");
    }

    @Test
    void aDequeEntryThatIsNoTaskWaitingToStartIsLeftOutAndNamed() {
        // the head entry of thread 0's deque made to point at thread 0's implicit task (running, not explicit)
        Damaged d = damaged("&" + DATA + "[0].td.td_deque[" + DATA + "[0].td.td_deque_head]",
                truth -> truth.get("(long)__kmp_threads[0]->th.th_current_task").asLong(), 8);
        long queued0 = facts.number("deferred.t0.count") + 1;
        List<RuntimeTaskQueues.Wait> reasons = d.snapshot().deferred().tasks().stream().map(ProcessSnapshot.DeferredTaskView::reason).toList();
        assertThat(reasons.stream().filter(r -> r instanceof RuntimeTaskQueues.Wait.Queued q && q.gtid() == d.gtid0())
                .map(r -> ((RuntimeTaskQueues.Wait.Queued) r).position()).toList()).isEqualTo(List.of(1, 2, 3, 4));
        assertThat(reasons).hasSize((int) (queued0 - 1 + facts.number("deferred.t1.count") + facts.number("deferred.d.count")));
        assertThat(d.snapshot().problems()).singleElement().asString().startsWith("task deque of gtid " + d.gtid0() + ": entry ")
                .endsWith("is no explicit task: not shown");
        // libomp's own count still says how many the deque holds
        assertThat(d.snapshot().deferred().queuedByGtid().get(d.gtid0())).isEqualTo(queued0);
    }

    @Test
    void aTaskTeamSlotNamingNoThreadOfTheTeamShowsNoDequeTask() {
        Damaged d = damaged("&" + DATA + "[1].td.td_thr", truth -> 0x1000L, 8);
        assertThat(d.snapshot().deferred().tasks()).isEmpty();
        assertThat(d.snapshot().problems()).singleElement().asString()
                .startsWith("task deques: the task teams fit no checked layout of kmp_base_task_team_t")
                .contains("slot 1 of the task team at 0x").contains("names 0x1000, no thread of __kmp_threads");
    }

    @Test
    void aSuccessorListThatLoopsEndsAndListsEachTaskOnce() {
        // P is the last task of thread 0's deque; the last entry of its successor list made to point at the first
        String pExpression = DATA + "[0].td.td_deque[(" + DATA + "[0].td.td_deque_head + " + facts.number("deferred.t0.count")
                + ") & (" + DATA + "[0].td.td_deque_size - 1)]";
        String list = "((kmp_taskdata_t*)" + pExpression + ")->td_depnode->dn.successors";
        String last = list + "->next".repeat((int) facts.number("deferred.d.count") - 1);
        Map<String, GdbProbe.Value> truth = fixture.gdb().evaluate(List.of("(long)" + list, "(long)" + last + "->next"));
        assertThat(truth.get("(long)" + last + "->next").asLong()).isZero();
        Damaged d = damaged("&" + last + "->next", t -> truth.get("(long)" + list).asLong(), 8);
        assertThat(d.snapshot().deferred().tasks()).hasSize((int) facts.number("deferred.total"));
        assertThat(d.snapshot().deferred().tasks().stream().map(t -> t.task().address()).distinct().count())
                .isEqualTo(facts.number("deferred.total"));
        assertThat(d.snapshot().problems()).singleElement().asString().startsWith("tasks waiting for dependences: the successors of the task at 0x")
                .contains(" loop or exceed ");
    }
}
