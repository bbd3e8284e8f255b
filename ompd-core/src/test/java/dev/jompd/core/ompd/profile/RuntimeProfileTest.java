package dev.jompd.core.ompd.profile;

import dev.jompd.core.ompd.LayoutCatalogue;
import dev.jompd.core.ompd.SupportedRuntimes;
import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RuntimeProfileTest {

    @Test
    void theJarShipsAProfileForEachSupportedRuntimeNewestFirst() {
        assertThat(RuntimeProfile.shipped()).extracting(RuntimeProfile::version)
                .containsExactlyElementsOf(SupportedRuntimes.all().stream().map(SupportedRuntimes.Runtime::upstream)
                        .sorted(Comparator.comparing((String v) -> Runtime.Version.parse(v)).reversed()).toList());
    }

    @Test
    void everyShippedProfileCarriesEveryBreadcrumbTheCatalogueReads() {
        for (RuntimeProfile profile : RuntimeProfile.shipped()) {
            Set<String> names = profile.breadcrumbs().stream().map(RuntimeProfile.Breadcrumb::name).collect(Collectors.toSet());
            assertThat(names).as(profile.version()).containsAll(LayoutCatalogue.breadcrumbSymbols());
            assertThat(profile.globals()).as(profile.version()).containsKeys("__kmp_threads", "ompd_state", "__kmp_threads_capacity");
        }
    }

    @Test
    void aProfileReadsBackAsItWasWritten() {
        RuntimeProfile profile = RuntimeProfile.shipped().getFirst();
        assertThat(RuntimeProfile.parse(profile.format())).isEqualTo(profile);
    }

    @Test
    void aProfileWithoutVersionOrBreadcrumbsIsRefused() {
        assertThatThrownBy(() -> RuntimeProfile.parse("breadcrumb.x=0 1\n")).hasMessageContaining("without version");
        assertThatThrownBy(() -> RuntimeProfile.parse("version=1.2.3\n")).hasMessageContaining("no breadcrumbs");
    }
}
