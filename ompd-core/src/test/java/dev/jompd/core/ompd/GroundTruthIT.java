package dev.jompd.core.ompd;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.SupportedRuntimes;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * For every fixture, every OpenMP thread and every scope: jompd's answer equals (a) what gdb reads
 * through the runtime's DWARF on the same core and (b) what the program itself recorded.
 */
class GroundTruthIT {

    /** Every scenario on every tested runtime (SupportedRuntimes): each must answer right or say unsupported. */
    static Stream<FixtureRun> runs() {
        return SupportedRuntimes.tested().flatMap(version -> scenarios().map(run -> run.onRuntime(version)));
    }

    static Stream<FixtureRun> scenarios() {
        return Stream.of(
                FixtureRun.of(Fixture.SERIAL),
                FixtureRun.of(Fixture.PARALLEL, "4"),
                FixtureRun.of(Fixture.NESTED, "4", "4"),
                FixtureRun.of(Fixture.NESTED, "2", "3", "4"),
                FixtureRun.of(Fixture.SERIALIZED, "3", "3"),
                FixtureRun.of(Fixture.TASKS, "200"),
                FixtureRun.of(Fixture.WAITS),
                FixtureRun.of(Fixture.TEAMS, "2", "3"),
                FixtureRun.of(Fixture.OMPT_TOOL, "3"),
                FixtureRun.of(Fixture.ICVS)
                        .withEnvironment("OMP_NUM_THREADS", "4,3,2")
                        .withEnvironment("OMP_PROC_BIND", "spread,close")
                        .withEnvironment("OMP_SCHEDULE", "nonmonotonic:dynamic,7")
                        .withEnvironment("OMP_MAX_ACTIVE_LEVELS", "3")
                        .withEnvironment("OMP_THREAD_LIMIT", "64")
                        .withEnvironment("OMP_STACKSIZE", "3M")
                        .withEnvironment("OMP_CANCELLATION", "true")
                        .withEnvironment("OMP_MAX_TASK_PRIORITY", "7")
                        .withEnvironment("OMP_DISPLAY_AFFINITY", "false")
                        .withEnvironment("OMP_AFFINITY_FORMAT", "jompd %n/%N")
                        .withEnvironment("OMP_DEFAULT_DEVICE", "0"),
                FixtureRun.of(Fixture.NESTED_FORTRAN, "2", "3"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    void everyOpenMpThreadOfTheRuntimeIsFound(FixtureRun run) {
        StoppedFixture fixture = Fixtures.core(run);
        AddressSpaceHandle process = Targets.process(fixture);
        GdbProbe gdb = fixture.gdb();
        long capacity = gdb.evaluate("__kmp_threads_capacity").asLong();
        List<String> slots = new ArrayList<>();
        for (int gtid = 0; gtid < capacity; gtid++) {
            slots.add("(long)__kmp_threads[" + gtid + "]");
        }
        Map<String, GdbProbe.Value> truth = gdb.evaluate(slots);
        TreeSet<Long> expected = new TreeSet<>();
        for (int gtid = 0; gtid < capacity; gtid++) {
            if (truth.get(slots.get(gtid)).asLong() != 0) {
                expected.add((long) gtid);
            }
        }
        TreeSet<Long> found = new TreeSet<>();
        Ompd.threads(process).forEach(thread -> found.add(thread.gtid()));
        assertThat(found).isEqualTo(expected);
        assertThat(found.size()).as("OpenMP threads vs threads the program recorded")
                .isGreaterThanOrEqualTo(fixture.facts().threadCount());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    void everyThreadMatchesTheRuntimesDebugInfo(FixtureRun run) {
        StoppedFixture fixture = Fixtures.core(run);
        AddressSpaceHandle process = Targets.process(fixture);
        List<ThreadHandle> threads = Ompd.threads(process);
        List<String> expressions = new ArrayList<>();
        for (ThreadHandle thread : threads) {
            String th = "__kmp_threads[" + thread.gtid() + "]->th";
            String icvs = th + ".th_current_task->td_icvs";
            for (String field : List.of(".th_info.ds.ds_tid", ".th_info.ds.ds_thread", ".th_team->t.t_nproc",
                    ".th_team->t.t_level", ".th_team->t.t_active_level", ".ompt_thread_info.state",
                    ".ompt_thread_info.wait_id", ".ompt_thread_info.thread_data.value")) {
                expressions.add(th + field);
            }
            for (String field : List.of(".dynamic", ".nproc", ".max_active_levels", ".thread_limit", ".proc_bind",
                    ".default_device", ".sched.r_sched_type", ".sched.chunk")) {
                expressions.add(icvs + field);
            }
            expressions.add("(long)" + th + ".th_current_task");
            expressions.add(th + ".th_current_task->td_flags.final");
            expressions.add(th + ".th_current_task->td_flags.tasktype");
        }
        Map<String, GdbProbe.Value> truth = fixture.gdb().evaluate(expressions);
        SoftAssertions soft = new SoftAssertions();
        for (ThreadHandle thread : threads) {
            String th = "__kmp_threads[" + thread.gtid() + "]->th";
            String icvs = th + ".th_current_task->td_icvs";
            String who = "gtid " + thread.gtid() + " ";
            soft.assertThat(thread.threadNum()).as(who + "ds_tid").isEqualTo(truth.get(th + ".th_info.ds.ds_tid").asLong());
            soft.assertThat(thread.pthreadId()).as(who + "ds_thread")
                    .isEqualTo(truth.get(th + ".th_info.ds.ds_thread").asLong());
            ParallelHandle region = thread.currentParallel();
            soft.assertThat(region.isSerializedLevel()).isFalse();
            soft.assertThat(Icvs.value(region, Scope.PARALLEL, Icv.TEAM_SIZE_VAR).value()).as(who + "t_nproc")
                    .isEqualTo(truth.get(th + ".th_team->t.t_nproc").asLong());
            soft.assertThat(Icvs.value(region, Scope.PARALLEL, Icv.LEVELS_VAR).value()).as(who + "t_level")
                    .isEqualTo(truth.get(th + ".th_team->t.t_level").asLong());
            soft.assertThat(Icvs.value(region, Scope.PARALLEL, Icv.ACTIVE_LEVELS_VAR).value()).as(who + "t_active_level")
                    .isEqualTo(truth.get(th + ".th_team->t.t_active_level").asLong());
            ThreadHandle.ThreadStateInfo state = thread.state();
            soft.assertThat(state.code()).as(who + "state").isEqualTo(truth.get(th + ".ompt_thread_info.state").asLong());
            soft.assertThat(state.waitId()).as(who + "wait_id").isEqualTo(truth.get(th + ".ompt_thread_info.wait_id").asLong());
            soft.assertThat(thread.toolData().value()).as(who + "thread_data")
                    .isEqualTo(truth.get(th + ".ompt_thread_info.thread_data.value").asLong());
            soft.assertThat(Icvs.value(thread, Scope.THREAD, Icv.DYN_VAR).value()).as(who + "dynamic")
                    .isEqualTo(truth.get(icvs + ".dynamic").asLong());
            soft.assertThat(Icvs.value(thread, Scope.THREAD, Icv.NTHREADS_VAR).value()).as(who + "nproc")
                    .isEqualTo(truth.get(icvs + ".nproc").asLong());
            soft.assertThat(Icvs.value(thread, Scope.THREAD, Icv.DEFAULT_DEVICE_VAR).value()).as(who + "default_device")
                    .isEqualTo(truth.get(icvs + ".default_device").asLong());
            TaskHandle task = thread.currentTask();
            soft.assertThat(task.address()).as(who + "th_current_task")
                    .isEqualTo(truth.get("(long)" + th + ".th_current_task").asLong());
            soft.assertThat(Icvs.value(task, Scope.TASK, Icv.MAX_ACTIVE_LEVELS_VAR).value()).as(who + "max_active_levels")
                    .isEqualTo(truth.get(icvs + ".max_active_levels").asLong());
            soft.assertThat(Icvs.value(task, Scope.TASK, Icv.THREAD_LIMIT_VAR).value()).as(who + "thread_limit")
                    .isEqualTo(truth.get(icvs + ".thread_limit").asLong());
            soft.assertThat(Icvs.value(task, Scope.TASK, Icv.BIND_VAR).value()).as(who + "proc_bind")
                    .isEqualTo(truth.get(icvs + ".proc_bind").asLong());
            soft.assertThat(Icvs.value(task, Scope.TASK, Icv.FINAL_TASK_VAR).value()).as(who + "final")
                    .isEqualTo(truth.get(th + ".th_current_task->td_flags.final").asLong());
            soft.assertThat(Icvs.value(task, Scope.TASK, Icv.IMPLICIT_TASK_VAR).value()).as(who + "implicit")
                    .isEqualTo(1 - truth.get(th + ".th_current_task->td_flags.tasktype").asLong());
            long kind = truth.get(icvs + ".sched.r_sched_type").asLong();
            String schedule = Icvs.string(task, Scope.TASK, Icv.RUN_SCHED_VAR);
            soft.assertThat(schedule).as(who + "run-sched-var " + kind + "/" + truth.get(icvs + ".sched.chunk").orThrow())
                    .endsWith("," + (List.of(34L, 40L, 41L).contains(kind & 0x1fffffff) ? 0 : truth.get(icvs + ".sched.chunk").asLong()));
        }
        soft.assertAll();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    void everyRecordedThreadSeesWhatTheProgramSaw(FixtureRun run) {
        StoppedFixture fixture = Fixtures.core(run);
        AddressSpaceHandle process = Targets.process(fixture);
        SoftAssertions soft = new SoftAssertions();
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            ThreadHandle thread = Ompd.threadHandle(process, ThreadIdKind.LWP, facts.lwp());
            String who = facts + " ";
            soft.assertThat(thread.threadId(ThreadIdKind.PTHREAD)).as(who + "pthread").isEqualTo(facts.pthread());
            soft.assertThat(thread.threadId(ThreadIdKind.LWP)).as(who + "lwp").isEqualTo(facts.lwp());
            soft.assertThat(Ompd.threadHandle(process, ThreadIdKind.PTHREAD, facts.pthread())).isEqualTo(thread);
            soft.assertThat(Icvs.value(thread, Scope.THREAD, Icv.THREAD_NUM_VAR).value()).as(who + "thread num")
                    .isEqualTo(facts.threadNum());
            ParallelHandle region = thread.currentParallel();
            soft.assertThat(region.teamSize()).as(who + "team size").isEqualTo(facts.teamSize());
            soft.assertThat(region.level()).as(who + "level").isEqualTo(facts.level());
            soft.assertThat(region.activeLevel()).as(who + "active level").isEqualTo(facts.activeLevel());
            facts.find("max_threads").ifPresent(max -> soft.assertThat(
                    Icvs.value(thread, Scope.THREAD, Icv.NTHREADS_VAR).value()).as(who + "nthreads-var")
                    .isEqualTo(Long.parseLong(max)));
            facts.find("dynamic").ifPresent(dyn -> soft.assertThat(
                    Icvs.value(thread, Scope.THREAD, Icv.DYN_VAR).value() != 0).as(who + "dyn-var")
                    .isEqualTo(!dyn.equals("0")));
            TaskHandle task = thread.currentTask();
            // omp_sched_t cannot express the nonmonotonic modifier, so the program's view lacks it.
            facts.find("schedule").ifPresent(schedule -> soft.assertThat(
                    Icvs.string(task, Scope.TASK, Icv.RUN_SCHED_VAR).replace("nonmonotonic:", ""))
                    .as(who + "run-sched-var").isEqualTo(schedule));
            facts.find("max_active_levels").ifPresent(v -> soft.assertThat(
                    Icvs.value(task, Scope.TASK, Icv.MAX_ACTIVE_LEVELS_VAR).value()).as(who + "max-active-levels")
                    .isEqualTo(Long.parseLong(v)));
            facts.find("thread_limit").ifPresent(v -> soft.assertThat(
                    Icvs.value(task, Scope.TASK, Icv.THREAD_LIMIT_VAR).value()).as(who + "thread-limit")
                    .isEqualTo(Long.parseLong(v)));
            facts.find("in_final").ifPresent(v -> soft.assertThat(
                    Icvs.value(task, Scope.TASK, Icv.FINAL_TASK_VAR).value()).as(who + "final")
                    .isEqualTo(Long.parseLong(v)));

            // The region at each level, walking outwards: team sizes and the ancestor thread numbers.
            List<Integer> teamSizes = facts.teamSizes();
            List<Integer> ancestors = facts.ancestors();
            ParallelHandle at = region;
            ParallelHandle inner = null;
            for (int level = facts.level(); level >= 1; level--) {
                soft.assertThat(at.level()).as(who + "level of enclosing region").isEqualTo(level);
                soft.assertThat(at.teamSize()).as(who + "team size at level " + level)
                        .isEqualTo((long) teamSizes.get(level - 1));
                // The ancestor at this level has number ancestors[level-1] in this region: this thread
                // at the innermost level, else the primary thread of the region one level in.
                ThreadHandle ancestor = at.threadInParallel(ancestors.get(level - 1));
                if (inner == null) {
                    soft.assertThat(ancestor).as(who + "itself in its team").isEqualTo(thread);
                    soft.assertThat(ancestor.currentParallel()).as(who + "navigates back from its team")
                            .isEqualTo(region);
                } else {
                    soft.assertThat(ancestor).as(who + "ancestor at level " + level)
                            .isEqualTo(inner.threadInParallel(0));
                }
                inner = at;
                at = at.enclosing();
            }
            soft.assertThat(at.level()).as(who + "outermost level").isZero();
        }
        soft.assertAll();
    }
}
