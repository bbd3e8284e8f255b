package dev.jompd.core.ompd;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Address-space ICVs, display control variables and versions against what the program saw and set. */
class ProcessIcvsIT {

    static FixtureRun icvsFromEnvironment(int version) {
        return FixtureRun.of(Fixture.ICVS)
                .withEnvironment("OMP_NUM_THREADS", "4,3,2")
                .withEnvironment("OMP_STACKSIZE", "3M")
                .withEnvironment("OMP_CANCELLATION", "true")
                .withEnvironment("OMP_MAX_TASK_PRIORITY", "7")
                .withEnvironment("OMP_DISPLAY_AFFINITY", "false")
                .withEnvironment("OMP_AFFINITY_FORMAT", "jompd %n/%N")
                .withEnvironment("OMP_DEFAULT_DEVICE", "0")
                .withEnvironment("OMP_TOOL_LIBRARIES", "/nonexistent/libtool.so")
                .withEnvironment("OMP_WAIT_POLICY", "active")
                .withEnvironment("OMP_PROC_BIND", "spread,close")
                .onRuntime(version);
    }

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void addressSpaceIcvsEqualWhatTheProgramSet(int version) {
        StoppedFixture fixture = Fixtures.core(icvsFromEnvironment(version));
        Facts facts = fixture.facts();
        AddressSpaceHandle process = Targets.process(fixture);

        assertThat(value(process, Icv.STACKSIZE_VAR)).isEqualTo(3L * 1024 * 1024);
        assertThat(value(process, Icv.CANCEL_VAR)).isEqualTo(facts.number("icv.cancellation"));
        assertThat(string(process, Icv.CANCEL_VAR)).isEqualTo("true");
        assertThat(value(process, Icv.MAX_TASK_PRIORITY_VAR)).isEqualTo(facts.number("icv.max_task_priority"));
        assertThat(value(process, Icv.NUM_PROCS_VAR)).isEqualTo(facts.number("icv.num_procs"));
        assertThat(value(process, Icv.OMPD_NUM_PROCS_VAR)).isEqualTo(facts.number("icv.num_procs"));
        assertThat(string(process, Icv.AFFINITY_FORMAT_VAR)).isEqualTo(facts.get("icv.affinity_format"));
        assertThat(string(process, Icv.TOOL_LIBRARIES_VAR)).isEqualTo("/nonexistent/libtool.so");
        assertThat(string(process, Icv.DISPLAY_AFFINITY_VAR)).isEqualTo("false");
        assertThat(string(process, Icv.DEBUG_VAR)).isEqualTo("true");
        assertThat(string(process, Icv.WAIT_POLICY_VAR)).isEqualTo("active");
        assertThatThrownBy(() -> Icvs.value(process, Scope.ADDRESS_SPACE, Icv.AFFINITY_FORMAT_VAR))
                .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.INCOMPATIBLE));
        // Every ICV of the address space has a string form or says why not; none throws otherwise.
        for (Icv icv : Icv.ALL) {
            if (icv.scope() == Scope.ADDRESS_SPACE) {
                try {
                    assertThat(Icvs.string(process, Scope.ADDRESS_SPACE, icv)).as(icv.name()).isNotNull();
                } catch (OmpdException e) {
                    assertThat(e.rc()).as(icv.name()).isIn(OmpdRc.UNSUPPORTED, OmpdRc.UNAVAILABLE);
                }
            }
        }
        assertThat(Ompd.ompVersion(process)).isIn(201611L, 201811L, 202011L);
        assertThat(Ompd.ompVersionString(process)).contains(Long.toString(Ompd.ompVersion(process)));

        // libomp fills ompd_env_block in __kmp_do_serial_initialize *before* it parses the environment,
        // so the block shows the defaults (OMP_NUM_THREADS=undefined), not the user's settings. jompd
        // reports the block as the runtime holds it; the truth is gdb's reading of the same bytes.
        List<String> controls = Ompd.displayControlVariables(process);
        long size = fixture.gdb().evaluate("(long)ompd_env_block_size").asLong();
        assertThat(controls.stream().mapToLong(line -> line.length() + 1).sum()).isBetween(size - 1, size + 1);
        assertThat(controls).anyMatch(line -> line.startsWith("OMP_STACKSIZE="))
                .anyMatch(line -> line.startsWith("OMP_NUM_THREADS="))
                .allMatch(line -> line.matches("[A-Z_0-9]+[=:].*")); // "OMP_NESTED: deprecated; ..." too
    }

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void nestedListsFollowTheLevels(int version) {
        StoppedFixture fixture = Fixtures.core(icvsFromEnvironment(version));
        AddressSpaceHandle process = Targets.process(fixture);
        ThreadHandle initial = Ompd.threadHandle(process, ThreadIdKind.GTID, 0);
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            ThreadHandle thread = Ompd.threadHandle(process, ThreadIdKind.LWP, facts.lwp());
            String nthreads = Icvs.string(thread, Scope.THREAD, Icv.NTHREADS_VAR);
            // The list's head is what omp_get_max_threads() answered; its tail the levels below.
            assertThat(nthreads.split(",")[0]).as(facts + " nthreads-var " + nthreads).isEqualTo(facts.get("max_threads"));
            Icvs.IcvValue head = Icvs.value(thread, Scope.THREAD, Icv.NTHREADS_VAR);
            assertThat(head.incomplete()).isEqualTo(nthreads.contains(","));
            String bind = Icvs.string(thread.currentTask(), Scope.TASK, Icv.BIND_VAR);
            assertThat(bind).matches("[a-z]+(,[a-z]+)*");
        }
        assertThat(initial).isNotNull();
    }

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void toolDataIsWhatTheProgramsToolStored(int version) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.OMPT_TOOL, "3").onRuntime(version));
        AddressSpaceHandle process = Targets.process(fixture);
        int checked = 0;
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            ThreadHandle thread = Ompd.threadHandle(process, ThreadIdKind.LWP, facts.lwp());
            if (facts.find("tool.thread_data").isPresent()) {
                assertThat(thread.toolData().value()).as(facts + " thread data").isEqualTo(facts.number("tool.thread_data"));
                checked++;
            }
            if (facts.find("tool.parallel_data").isPresent()) {
                assertThat(thread.currentParallel().toolData().value()).as(facts + " parallel data")
                        .isEqualTo(facts.number("tool.parallel_data"));
            }
            if (facts.find("tool.task_data").isPresent()) {
                assertThat(thread.currentTask().toolData().value()).as(facts + " task data")
                        .isEqualTo(facts.number("tool.task_data"));
            }
        }
        assertThat(checked).isPositive();
    }

    private static long value(AddressSpaceHandle process, Icv icv) {
        return Icvs.value(process, Scope.ADDRESS_SPACE, icv).value();
    }

    private static String string(AddressSpaceHandle process, Icv icv) {
        return Icvs.string(process, Scope.ADDRESS_SPACE, icv);
    }
}
