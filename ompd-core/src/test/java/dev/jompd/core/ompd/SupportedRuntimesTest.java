package dev.jompd.core.ompd;

import dev.jompd.core.ompd.profile.RuntimeProfile;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one list of supported runtimes: well formed, and what the shipped data and the testkit's reading say. */
class SupportedRuntimesTest {

    @Test
    void theListIsOrderedWithOneDefaultAndItsReleasesMatchTheirMajors() {
        List<SupportedRuntimes.Runtime> all = SupportedRuntimes.all();
        assertThat(all).extracting(SupportedRuntimes.Runtime::major).isSorted().doesNotHaveDuplicates();
        assertThat(all).allSatisfy(runtime -> {
            assertThat(runtime.upstream()).startsWith(runtime.major() + ".");
            assertThat(runtime.source()).startsWith("llvm-toolchain-" + runtime.major());
        });
        assertThat(SupportedRuntimes.defaultRuntime().major()).isEqualTo(dev.jompd.core.launch.OpenMpLaunch.RUNTIME_VERSION);
        assertThat(all.stream().filter(r -> r.roles().contains("ci"))).as("CI runs the oldest and the newest")
                .extracting(SupportedRuntimes.Runtime::major).contains(all.getFirst().major(), all.getLast().major());
    }

    @Test
    void everySupportedReleaseShipsItsRuntimeProfile() {
        List<String> profiled = RuntimeProfile.shipped().stream().map(RuntimeProfile::version).toList();
        assertThat(profiled).as("scripts/derive-profiles.sh MAJOR makes the missing ones")
                .containsAll(SupportedRuntimes.all().stream().map(SupportedRuntimes.Runtime::upstream).toList());
    }

    @Test
    void theTestkitReadsTheSameList() {
        assertThat(dev.jompd.testkit.SupportedRuntimes.all()).extracting(dev.jompd.testkit.SupportedRuntimes.Runtime::major)
                .isEqualTo(SupportedRuntimes.all().stream().map(SupportedRuntimes.Runtime::major).toList());
        assertThat(dev.jompd.testkit.SupportedRuntimes.defaultMajor()).isEqualTo(SupportedRuntimes.defaultRuntime().major());
    }

    @Test
    void messagesNameEverySupportedMajor() {
        String described = SupportedRuntimes.described();
        assertThat(described).startsWith("libomp ").endsWith(" and " + SupportedRuntimes.all().getLast().major());
        SupportedRuntimes.all().forEach(runtime -> assertThat(described).contains(Integer.toString(runtime.major())));
    }

    @Test
    void aMalformedListIsRefusedSayingWhy() {
        assertThatThrownBy(() -> SupportedRuntimes.parse("19 19.1.7 llvm-toolchain-19 bookworm openmp -\n"))
                .hasMessageContaining("7 columns");
        assertThatThrownBy(() -> SupportedRuntimes.parse("19 19.1.7 llvm-toolchain-19 bookworm make - default\n"))
                .hasMessageContaining("openmp or runtimes");
        assertThatThrownBy(() -> SupportedRuntimes.parse("19 19.1.7 llvm-toolchain-19 bookworm openmp - ci\n"))
                .hasMessageContaining("default");
    }
}
