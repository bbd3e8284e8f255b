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
        // the versions before 5.0 have no OMPD chapter: an older api version is 5.0's
        assertThat(OpenMpVersion.ofApiVersion(201611)).isEqualTo(OpenMpVersion.V5_0);
        assertThat(OpenMpVersion.ofApiVersion(0)).isEqualTo(OpenMpVersion.V5_0);
        assertThat(OpenMpVersion.ofApiVersion(202110)).isEqualTo(OpenMpVersion.V5_1);
        assertThat(OpenMpVersion.ofApiVersion(209912)).isEqualTo(OpenMpVersion.V6_0);
    }
}
