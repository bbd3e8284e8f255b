package dev.jompd.core.ompd;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The one table of OpenMP versions: what a runtime's yyyymm says, and which OMPD chapter a debugger's api version names. */
class OpenMpVersionTest {
    @Test
    void aRuntimesDateIsAReleaseOrAPreview() {
        assertThat(OpenMpVersion.of(201611)).hasValue(OpenMpVersion.V5_0_TR4);
        assertThat(OpenMpVersion.V5_0_TR4.words()).isEqualTo("OpenMP 5.0 preview (TR4)");
        assertThat(OpenMpVersion.V5_0_TR4.preview()).isTrue();
        assertThat(OpenMpVersion.of(202011).map(OpenMpVersion::number)).isEqualTo(Optional.of("5.1"));
        assertThat(OpenMpVersion.V5_1.preview()).isFalse();
        assertThat(OpenMpVersion.of(202611)).isEmpty();
    }

    @Test
    void aDebuggersApiVersionNamesTheLatestOmpdChapterAtOrBeforeIt() {
        assertThat(OpenMpVersion.ofApiVersion(201811)).isEqualTo(OpenMpVersion.V5_0);
        assertThat(OpenMpVersion.ofApiVersion(202011)).isEqualTo(OpenMpVersion.V5_1);
        assertThat(OpenMpVersion.ofApiVersion(202111)).isEqualTo(OpenMpVersion.V5_2);
        assertThat(OpenMpVersion.ofApiVersion(202410)).isEqualTo(OpenMpVersion.V5_2);
        assertThat(OpenMpVersion.ofApiVersion(202411)).isEqualTo(OpenMpVersion.V6_0);
        // the versions before 5.0 (the runtime's own 201611 among them) have no OMPD chapter: 5.0's
        assertThat(OpenMpVersion.ofApiVersion(201611)).isEqualTo(OpenMpVersion.V5_0);
        assertThat(OpenMpVersion.ofApiVersion(0)).isEqualTo(OpenMpVersion.V5_0);
    }
}
