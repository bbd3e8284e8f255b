package dev.jompd.core.ompd;

import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The place of {@code t_argv} and {@code t_argc} that {@link GnuWrappers} derives from the breadcrumbs
 * ({@code t_pkfn} − 16 and − 8, with {@code t_nproc} at − 4), checked against each runtime's DWARF.
 */
class GnuWrapperLayoutIT {

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void teamArgumentsSitWhereTheWrapperResolutionReadsThem(int version) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").onRuntime(version));
        RuntimeLayout layout = Targets.process(fixture).layout();
        String argv = "(long)&((kmp_base_team_t*)0)->t_argv";
        String argc = "(long)&((kmp_base_team_t*)0)->t_argc";
        String argvSize = "(long)sizeof(((kmp_base_team_t*)0)->t_argv)";
        String argcSize = "(long)sizeof(((kmp_base_team_t*)0)->t_argc)";
        Map<String, GdbProbe.Value> truth = fixture.gdb().evaluate(List.of(argv, argc, argvSize, argcSize));

        long pkfn = layout.offset("kmp_base_team_t", "t_pkfn");
        assertThat(layout.offset("kmp_base_team_t", "t_nproc")).isEqualTo(pkfn - GnuWrappers.NPROC_BEFORE_PKFN);
        assertThat(truth.get(argv).asLong()).isEqualTo(pkfn - GnuWrappers.ARGV_BEFORE_PKFN);
        assertThat(truth.get(argc).asLong()).isEqualTo(pkfn - GnuWrappers.ARGC_BEFORE_PKFN);
        assertThat(truth.get(argvSize).asLong()).isEqualTo(8);
        assertThat(truth.get(argcSize).asLong()).isEqualTo(4);
    }
}
