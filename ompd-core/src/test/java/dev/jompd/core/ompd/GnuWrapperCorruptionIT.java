package dev.jompd.core.ompd;

import dev.jompd.core.target.Symbolizer;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The user's function behind libomp's GOMP wrapper is never named wrongly: with the team's argument count
 * or its function pointer damaged, the entry point (the wrapper) is shown with the reason instead.
 */
class GnuWrapperCorruptionIT {
    private static StoppedFixture fixture;

    @BeforeAll
    static void gccProgramOnLibomp() {
        fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED_GCC, "2")
                .withEnvironment("LD_LIBRARY_PATH", Runtimes.gompAliasDirectory(Runtimes.DEFAULT_VERSION).toString()));
    }

    @Test
    void intactTeamNamesTheOutlinedFunction() {
        try (DamagingAddressSpace target = new DamagingAddressSpace(Targets.core(fixture));
             Symbolizer symbols = new Symbolizer(target); FunctionNames names = new FunctionNames(symbols)) {
            TaskHandle task = markerTask(Ompd.processInitialize(target));
            CodeLocation code = names.ofTask(task);
            assertThat(code.resolution()).isEqualTo(CodeLocation.Resolution.GOMP_WRAPPER_ARGUMENT);
            assertThat(code.symbol()).contains("region._omp_fn.0");
        }
    }

    @Test
    void aWrongArgumentCountLeavesTheWrapperShownWithTheReason() {
        try (DamagingAddressSpace target = new DamagingAddressSpace(Targets.core(fixture));
             Symbolizer symbols = new Symbolizer(target); FunctionNames names = new FunctionNames(symbols)) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            TaskHandle task = markerTask(process);
            long team = task.parallel().teamAddress();
            long pkfn = process.layout().offset("kmp_base_team_t", "t_pkfn");
            target.overwrite(team + pkfn - GnuWrappers.ARGC_BEFORE_PKFN, 5, 4);
            process.resumed();
            CodeLocation code = names.ofTask(markerTask(process));
            assertThat(code.resolution()).isEqualTo(CodeLocation.Resolution.ENTRY_POINT);
            assertThat(code.symbol().orElseThrow()).startsWith("__kmp_GOMP_");
            assertThat(code.note().orElseThrow()).contains("t_argc is 5");
        }
    }

    @Test
    void aPointerIntoTheMiddleOfAFunctionIsNotNamed() {
        try (DamagingAddressSpace target = new DamagingAddressSpace(Targets.core(fixture));
             Symbolizer symbols = new Symbolizer(target); FunctionNames names = new FunctionNames(symbols)) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            TaskHandle task = markerTask(process);
            long outlined = task.outlinedFunction();
            long team = task.parallel().teamAddress();
            long pkfn = process.layout().offset("kmp_base_team_t", "t_pkfn");
            long argv = process.at(team + pkfn - GnuWrappers.ARGV_BEFORE_PKFN, null, "t_argv").asUnsigned(8);
            target.overwrite(argv, outlined + 3, 8);
            process.resumed();
            CodeLocation code = names.ofTask(markerTask(process));
            assertThat(code.resolution()).isEqualTo(CodeLocation.Resolution.ENTRY_POINT);
            assertThat(code.note().orElseThrow()).contains("is not the start of a function");
        }
    }

    private static TaskHandle markerTask(AddressSpaceHandle process) {
        long lwp = fixture.facts().thread((int) fixture.facts().number("marker_thread")).lwp();
        return Ompd.threadHandle(process, ThreadIdKind.LWP, lwp).currentTask();
    }
}
