package dev.jompd.core.ompd;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Thread states, wait ids, explicit task chains, task functions and frames on real fixtures. */
class TasksAndStatesIT {

    @Test
    void waitingThreadsReportTheStateAndWaitIdTheProgramObserved() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.WAITS));
        AddressSpaceHandle process = Targets.process(fixture);
        Facts facts = fixture.facts();
        SoftAssertions soft = new SoftAssertions();
        int checked = 0;
        for (Facts.ThreadFacts thread : facts.threads()) {
            ThreadHandle handle = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp());
            ThreadHandle.ThreadStateInfo state = handle.state();
            if (thread.find("omp_state_value").isPresent()) {
                checked++;
                soft.assertThat(state.code()).as(thread + " " + thread.role()).isEqualTo(thread.number("omp_state_value"));
                soft.assertThat(state.name()).isEqualTo("ompt_state_" + thread.get("omp_state"));
            }
            // The tool's callbacks saw each wait id. For omp_set_lock libomp puts the internal (indirect)
            // lock's address in the thread's wait_id but the user's omp_lock_t address in the callback,
            // so only critical and ordered are comparable; GroundTruthIT checks every wait_id via DWARF.
            String waitKey = "ompt_wait_id." + thread.role();
            if (facts.find(waitKey).isPresent() && !thread.role().equals("lock")) {
                soft.assertThat(state.waitId()).as(thread + " wait id").isEqualTo(facts.number(waitKey));
            }
        }
        soft.assertAll();
        assertThat(checked).isGreaterThanOrEqualTo(5);
        assertThat(Ompd.threads(process).stream().map(t -> t.state().name()))
                .contains("ompt_state_wait_barrier_explicit", "ompt_state_wait_lock", "ompt_state_wait_ordered");
    }

    @Test
    void explicitTaskChainHasTheFlagsTheProgramGaveIt() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TASKS, "200"));
        AddressSpaceHandle process = Targets.process(fixture);
        Facts facts = fixture.facts();
        Facts.ThreadFacts markerThread = facts.thread((int) facts.number("marker_thread"));
        ThreadHandle thread = Ompd.threadHandle(process, ThreadIdKind.LWP, markerThread.lwp());

        TaskHandle c = thread.currentTask();
        TaskHandle b = c.generating();
        TaskHandle a = b.generating();
        TaskHandle implicit = a.generating();
        assertThat(c.flags().explicit()).isTrue();
        assertThat(c.flags().isFinal()).isEqualTo(facts.number("task.C.in_final") == 1);
        assertThat(Icvs.value(c, Scope.TASK, Icv.FINAL_TASK_VAR).value()).isEqualTo(facts.number("task.C.in_final"));
        assertThat(b.flags().explicit()).isTrue();
        assertThat(b.flags().tied()).as("B is untied").isFalse();
        assertThat(a.flags().explicit()).isTrue();
        assertThat(a.flags().tied()).as("A is tied").isTrue();
        assertThat(implicit.flags().implicit()).isTrue();
        assertThat(Icvs.string(implicit, Scope.TASK, Icv.IMPLICIT_TASK_VAR)).isEqualTo("true");
        assertThat(implicit.parallel()).isEqualTo(thread.currentParallel());
        assertThat(c.parallel()).isEqualTo(thread.currentParallel());

        // The chain ends at the initial task: walking on answers unavailable, never loops.
        TaskHandle at = implicit;
        int steps = 0;
        while (true) {
            try {
                at = at.generating();
                steps++;
            } catch (OmpdException end) {
                assertThat(end.rc()).isEqualTo(OmpdRc.UNAVAILABLE);
                break;
            }
        }
        assertThat(steps).isEqualTo(1);
        assertThat(at.flags().implicit()).isTrue();
        assertThatThrownBy(at::generating).isInstanceOf(OmpdException.class);
    }

    @Test
    void taskFunctionsAndFramesMatchTheRuntimesDebugInfo() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TASKS, "200"));
        AddressSpaceHandle process = Targets.process(fixture);
        List<String> expressions = new ArrayList<>();
        List<ThreadHandle> threads = Ompd.threads(process);
        for (ThreadHandle thread : threads) {
            String task = "__kmp_threads[" + thread.gtid() + "]->th.th_current_task";
            expressions.add(task + "->td_flags.tasktype");
            expressions.add("(long)((kmp_task_t *)(" + task + " + 1))->routine");
            expressions.add("(long)" + task + "->td_team->t.t_pkfn");
            expressions.add("(long)" + task + "->ompt_task_info.frame.exit_frame.ptr");
            expressions.add("(long)" + task + "->ompt_task_info.frame.enter_frame.ptr");
            expressions.add(task + "->ompt_task_info.frame.exit_frame_flags");
            expressions.add(task + "->ompt_task_info.frame.enter_frame_flags");
            expressions.add("(long)" + task + "->ompt_task_info.task_data.value");
        }
        Map<String, GdbProbe.Value> truth = fixture.gdb().evaluate(expressions);
        SoftAssertions soft = new SoftAssertions();
        for (ThreadHandle thread : threads) {
            String task = "__kmp_threads[" + thread.gtid() + "]->th.th_current_task";
            TaskHandle current = thread.currentTask();
            boolean explicit = truth.get(task + "->td_flags.tasktype").asLong() == 1;
            long function = explicit ? truth.get("(long)((kmp_task_t *)(" + task + " + 1))->routine").asLong()
                    : truth.get("(long)" + task + "->td_team->t.t_pkfn").asLong();
            soft.assertThat(current.function()).as("gtid %d task function", thread.gtid()).isEqualTo(function);
            TaskHandle.TaskFrames frames = current.frames();
            soft.assertThat(frames.exitFrame()).isEqualTo(truth.get("(long)" + task + "->ompt_task_info.frame.exit_frame.ptr").asLong());
            soft.assertThat(frames.enterFrame()).isEqualTo(truth.get("(long)" + task + "->ompt_task_info.frame.enter_frame.ptr").asLong());
            soft.assertThat((long) frames.exitFrameFlags()).as("exit frame flags")
                    .isEqualTo(truth.get(task + "->ompt_task_info.frame.exit_frame_flags").asLong());
            soft.assertThat((long) frames.enterFrameFlags()).as("enter frame flags")
                    .isEqualTo(truth.get(task + "->ompt_task_info.frame.enter_frame_flags").asLong());
            soft.assertThat(current.toolData().value())
                    .isEqualTo(truth.get("(long)" + task + "->ompt_task_info.task_data.value").asLong());
        }
        soft.assertAll();
    }

    @Test
    void withoutOmpDebugStateQueriesSayStateTrackingIsNeededAndTheRestStillWorks() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").withEnvironment("OMP_DEBUG", "disabled"));
        AddressSpaceHandle process = Targets.process(fixture);
        ThreadHandle thread = Ompd.threads(process).getFirst();
        assertThatThrownBy(thread::state).isInstanceOfSatisfying(OmpdException.class,
                e -> assertThat(e.rc()).isEqualTo(OmpdRc.NEEDS_STATE_TRACKING));
        assertThatThrownBy(() -> thread.currentTask().frames()).isInstanceOfSatisfying(OmpdException.class,
                e -> assertThat(e.rc()).isEqualTo(OmpdRc.NEEDS_STATE_TRACKING));
        assertThat(thread.currentParallel().teamSize()).isEqualTo(2);
        assertThat(Icvs.value(process, Scope.ADDRESS_SPACE, Icv.DEBUG_VAR).value()).isZero();
    }
}
