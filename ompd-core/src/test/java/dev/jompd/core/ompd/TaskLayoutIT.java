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

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TaskLayout}'s data against each runtime's DWARF (gdb evaluating offsetof, sizeof and the cancel
 * kinds in our builds of libomp), and {@link RuntimeTasks} against what taskwait_blocked recorded about
 * itself (how many children it made) and what gdb reads from the same core.
 */
class TaskLayoutIT {

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void theTaskLayoutIsWhatTheRuntimesDwarfSays(int version) {
        TaskLayout layout = TaskLayout.shipped();
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").onRuntime(version));
        Map<String, GdbProbe.Value> truth = LayoutMembersAgainstDwarf.check(fixture, layout.members(),
                List.of("(long)cancel_noreq", "(long)cancel_taskgroup"));
        assertThat(layout.members()).containsKeys("kmp_taskdata_t.td_incomplete_child_tasks", "kmp_taskdata_t.td_taskgroup",
                "kmp_taskgroup_t.count", "kmp_taskgroup_t.parent");
        assertThat(truth.get("(long)cancel_noreq").asLong()).isZero();
        assertThat(truth.get("(long)cancel_taskgroup").asLong()).isEqualTo(layout.cancelMax());
    }

    /** Each tested runtime with a taskwait and a taskgroup (thread and child counts varied between runtimes). */
    static Stream<Arguments> countRuns() {
        return SupportedRuntimes.tested().flatMap(version -> version % 2 == 0
                ? Stream.of(Arguments.of(version, "2", 5, "taskwait"), Arguments.of(version, "3", 4, "taskgroup"))
                : Stream.of(Arguments.of(version, "3", 3, "taskwait"), Arguments.of(version, "2", 6, "taskgroup")));
    }

    @ParameterizedTest(name = "libomp {0}: {1} threads, {2} children, {3}")
    @MethodSource("countRuns")
    void theCountsAreTheChildrenTheProgramMadeAndWhatGdbReads(int version, String threads, int children, String construct) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TASKWAIT_BLOCKED, threads,
                Integer.toString(children), construct).onRuntime(version));
        Facts facts = fixture.facts();
        assertThat(facts.number("hang.children")).isEqualTo(children);
        AddressSpaceHandle space = Targets.process(fixture);
        Facts.ThreadFacts waiter = facts.thread((int) facts.number("hang.waiter"));
        ProcessSnapshot.ThreadView thread = ProcessSnapshot.take(space).threads().stream()
                .filter(t -> t.lwp().equals(OptionalLong.of(waiter.lwp()))).findFirst().orElseThrow();
        long task = thread.tasks().getFirst().address();
        // gdb, through libomp's DWARF: the waiting thread's current task, its counters
        String current = "__kmp_threads[" + thread.gtid() + "]->th.th_current_task";
        Map<String, GdbProbe.Value> truth = fixture.gdb().evaluate(List.of("(long)" + current,
                "(long)*(int*)&" + current + "->td_incomplete_child_tasks", "(long)" + current + "->td_taskgroup",
                "(long)(" + current + "->td_taskgroup ? *(int*)&" + current + "->td_taskgroup->count : -1)"));
        assertThat(truth.get("(long)" + current).asLong()).isEqualTo(task);

        RuntimeTasks.Count incomplete = RuntimeTasks.incompleteChildren(space, task);
        assertThat(incomplete).isInstanceOf(RuntimeTasks.Count.Known.class);
        assertThat(((RuntimeTasks.Count.Known) incomplete).count()).as(incomplete.toString()).isEqualTo(children)
                .isEqualTo(truth.get("(long)*(int*)&" + current + "->td_incomplete_child_tasks").asLong());

        RuntimeTasks.Count group = RuntimeTasks.taskgroupTasks(space, task);
        if (construct.equals("taskgroup")) {
            RuntimeTasks.Count.Known known = (RuntimeTasks.Count.Known) group;
            assertThat(known.count()).as(known.evidence()).isEqualTo(children)
                    .isEqualTo(truth.get("(long)(" + current + "->td_taskgroup ? *(int*)&" + current + "->td_taskgroup->count : -1)").asLong());
            assertThat(known.taskgroup()).isEqualTo(truth.get("(long)" + current + "->td_taskgroup").asLong());
            assertThat(RuntimeTasks.taskgroups(space, task)).first().isEqualTo(known.taskgroup());
        } else {
            // an implicit task outside any taskgroup
            assertThat(truth.get("(long)" + current + "->td_taskgroup").asLong()).isZero();
            assertThat(group).isInstanceOf(RuntimeTasks.Count.Unknown.class);
            assertThat(((RuntimeTasks.Count.Unknown) group).why()).contains("in no taskgroup");
            assertThat(RuntimeTasks.taskgroups(space, task)).isEmpty();
        }
    }
}
