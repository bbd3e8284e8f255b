package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import dev.jompd.testkit.SupportedRuntimes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TaskQueueLayout}'s data against each runtime's DWARF (gdb evaluating offsetof and sizeof in our builds
 * of libomp: the group naming the runtime's version, the members every version shares, where th_task_team lies),
 * and {@link RuntimeTaskQueues} against what deferred_tasks recorded about itself (how many tasks it created and
 * where) and what gdb reads of the same core: each deque's {@code td_deque_ntasks} and its entries, each waiting
 * task's dependence node.
 */
class TaskQueueLayoutIT {

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void theTaskQueueLayoutIsWhatTheRuntimesDwarfSays(int version) {
        TaskQueueLayout layout = TaskQueueLayout.shipped();
        String upstream = SupportedRuntimes.upstream(version);
        List<TaskQueueLayout.Group> named = layout.groups().stream().filter(g -> g.versions().contains(upstream)).toList();
        assertThat(named).as("groups naming " + upstream).hasSize(1);
        Map<String, Member> members = new LinkedHashMap<>(layout.members());
        members.putAll(named.getFirst().members());
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").onRuntime(version));
        String before = "(long)&((kmp_base_info_t*)0)->th_current_task - (long)&((kmp_base_info_t*)0)->th_task_team";
        Map<String, GdbProbe.Value> truth = LayoutMembersAgainstDwarf.check(fixture, members,
                List.of(before, "(long)sizeof(kmp_thread_data_t)", "(long)sizeof(((kmp_base_info_t*)0)->th_task_team)"));
        assertThat(truth.get(before).asLong()).as("th_task_team before th_current_task").isEqualTo(layout.taskTeamBefore());
        assertThat(truth.get("(long)sizeof(kmp_thread_data_t)").asLong()).isEqualTo(layout.threadDataSize());
        assertThat(truth.get("(long)sizeof(((kmp_base_info_t*)0)->th_task_team)").asLong()).isEqualTo(8);
    }

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void theDequesHoldTheTasksTheProgramCreatedAsGdbReadsThem(int version) {
        // thread and task counts varied between runtimes
        boolean even = version % 2 == 0;
        String n0 = even ? "5" : "9", n1 = even ? "3" : "1", m = even ? "4" : "2", threads = even ? "3" : "4";
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.DEFERRED_TASKS, n0, n1, m, threads).onRuntime(version));
        Facts facts = fixture.facts();
        AddressSpaceHandle space = Targets.process(fixture);
        ProcessSnapshot snapshot = ProcessSnapshot.take(space);
        assertThat(snapshot.problems()).isEmpty();
        ProcessSnapshot.ThreadView thread0 = thread(snapshot, facts, 0);
        ProcessSnapshot.ThreadView thread1 = thread(snapshot, facts, 1);

        // gdb, through libomp's DWARF: each deque of the team's task team, its count and its entries from the head
        String teamData = "__kmp_threads[" + thread0.gtid() + "]->th.th_task_team->tt.tt_threads_data";
        List<String> expressions = new ArrayList<>();
        int nthreads = Integer.parseInt(threads);
        for (int k = 0; k < nthreads; k++) {
            expressions.add("(long)" + teamData + "[" + k + "].td.td_deque_ntasks");
            expressions.add("(long)" + teamData + "[" + k + "].td.td_thr->th.th_info.ds.ds_gtid");
        }
        int maxQueued = Integer.parseInt(n0) + 1;
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < maxQueued; i++) {
                expressions.add(entry(teamData, k, i));
            }
        }
        Map<String, GdbProbe.Value> truth = fixture.gdb().evaluate(expressions);
        Map<Long, Long> gdbCounts = new LinkedHashMap<>();
        for (int k = 0; k < nthreads; k++) {
            long count = truth.get("(long)" + teamData + "[" + k + "].td.td_deque_ntasks").asLong();
            if (count > 0) {
                gdbCounts.put(truth.get("(long)" + teamData + "[" + k + "].td.td_thr->th.th_info.ds.ds_gtid").asLong(), count);
            }
        }
        long queued0 = facts.number("deferred.t0.count") + facts.number("deferred.p.count");
        assertThat(gdbCounts).isEqualTo(Map.of(thread0.gtid(), queued0, thread1.gtid(), facts.number("deferred.t1.count")));
        assertThat(snapshot.deferred().queuedByGtid()).isEqualTo(gdbCounts);
        assertThat(snapshot.deferred().notListed()).isZero();

        // the tasks, in order: thread 0's deque from its head, thread 1's, then those waiting for P
        List<ProcessSnapshot.DeferredTaskView> tasks = snapshot.deferred().tasks();
        assertThat(tasks).hasSize((int) facts.number("deferred.total"));
        List<RuntimeTaskQueues.Wait> expected = new ArrayList<>();
        List<Long> expectedAddresses = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
            ProcessSnapshot.ThreadView owner = k == 0 ? thread0 : thread1;
            long count = k == 0 ? queued0 : facts.number("deferred.t1.count");
            for (int i = 0; i < count; i++) {
                expected.add(new RuntimeTaskQueues.Wait.Queued(owner.gtid(), owner.threadNum(), i));
                expectedAddresses.add(truth.get(entry(teamData, k, i)).asLong());
            }
        }
        long p = expectedAddresses.get((int) queued0 - 1);
        for (int i = 0; i < facts.number("deferred.d.count"); i++) {
            expected.add(new RuntimeTaskQueues.Wait.Dependences(p, 1));
        }
        assertThat(tasks.stream().map(ProcessSnapshot.DeferredTaskView::reason).toList()).isEqualTo(expected);
        assertThat(tasks.stream().limit(expectedAddresses.size()).map(t -> t.task().address()).toList())
                .isEqualTo(expectedAddresses);
        // every one created by the implicit task of the thread that made it, none started
        long implicit0 = thread0.tasks().getFirst().address();
        long implicit1 = thread1.tasks().getFirst().address();
        assertThat(tasks.stream().map(ProcessSnapshot.DeferredTaskView::creator).toList()).isEqualTo(
                tasks.stream().map(t -> t.reason() instanceof RuntimeTaskQueues.Wait.Queued q && q.gtid() == thread1.gtid()
                        ? implicit1 : implicit0).toList());
        assertThat(tasks).allSatisfy(t -> assertThat(t.task().flags().orElseThrow().started()).isFalse());

        // gdb: each waiting task's dependence node lists it among P's successors, with P's node as the one it waits on
        List<String> waiting = new ArrayList<>();
        for (ProcessSnapshot.DeferredTaskView task : tasks.subList(expectedAddresses.size(), tasks.size())) {
            waiting.add("(long)*(int*)&((kmp_taskdata_t*)" + task.task().address() + ")->td_depnode->dn.npredecessors");
        }
        // KMP_TASK_TO_TASKDATA of the first successor's task
        waiting.add("(long)(((kmp_taskdata_t*)((kmp_taskdata_t*)" + p + ")->td_depnode->dn.successors->node->dn.task) - 1)");
        Map<String, GdbProbe.Value> depTruth = fixture.gdb().evaluate(waiting);
        for (String expression : waiting.subList(0, waiting.size() - 1)) {
            assertThat(depTruth.get(expression).asLong()).as(expression).isEqualTo(1);
        }
        assertThat(tasks.stream().skip(expectedAddresses.size()).map(t -> t.task().address()).toList())
                .contains(depTruth.get(waiting.getLast()).asLong());
    }

    private static String entry(String teamData, int k, int i) {
        return "(long)(" + i + " < " + teamData + "[" + k + "].td.td_deque_ntasks ? " + teamData + "[" + k + "].td.td_deque[("
                + teamData + "[" + k + "].td.td_deque_head + " + i + ") & (" + teamData + "[" + k + "].td.td_deque_size - 1)] : 0)";
    }

    private static ProcessSnapshot.ThreadView thread(ProcessSnapshot snapshot, Facts facts, int k) {
        long lwp = facts.thread(k).lwp();
        return snapshot.threads().stream().filter(t -> t.lwp().isPresent() && t.lwp().getAsLong() == lwp).findFirst()
                .orElseThrow();
    }
}
