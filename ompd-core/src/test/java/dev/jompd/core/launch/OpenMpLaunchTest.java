package dev.jompd.core.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where jompd's runtime is found, the links that offer it under the runtimes' names, the environment. */
class OpenMpLaunchTest {

    @Test
    void environmentPutsTheAliasesFirstAndKeepsTheUsersLibraryPath() {
        Path aliases = Path.of("/cache/run/libomp-1");
        assertThat(OpenMpLaunch.environment(Map.of("LD_LIBRARY_PATH", "/opt/lib", "HOME", "/h"), aliases))
                .containsEntry("LD_LIBRARY_PATH", "/cache/run/libomp-1:/opt/lib")
                .containsEntry("OMP_DEBUG", "enabled").containsEntry("HOME", "/h");
        assertThat(OpenMpLaunch.environmentChanges(Map.of("HOME", "/h", "OMP_DEBUG", "enabled"), aliases))
                .containsOnlyKeys("LD_LIBRARY_PATH").containsEntry("LD_LIBRARY_PATH", "/cache/run/libomp-1");
    }

    @Test
    void cacheDirectoryFollowsTheScriptsRules() {
        assertThat(OpenMpLaunch.cacheDirectory(Map.of("JOMPD_CACHE", "/c", "XDG_CACHE_HOME", "/x", "HOME", "/h")))
                .isEqualTo(Path.of("/c"));
        assertThat(OpenMpLaunch.cacheDirectory(Map.of("XDG_CACHE_HOME", "/x", "HOME", "/h"))).isEqualTo(Path.of("/x/jompd"));
        assertThat(OpenMpLaunch.cacheDirectory(Map.of("HOME", "/h"))).isEqualTo(Path.of("/h/.cache/jompd"));
    }

    @Test
    void runtimeComesFromJompdRuntimeAsFileDirectoryOrPrefix(@TempDir Path prefix) throws Exception {
        Path library = Files.createDirectories(prefix.resolve("lib")).resolve("libomp.so");
        Files.write(library, new byte[] {0x7f, 'E', 'L', 'F'});
        for (Path given : new Path[] {library, library.getParent(), prefix}) {
            assertThat(OpenMpLaunch.findRuntime(Map.of("JOMPD_RUNTIME", given.toString()))).contains(library);
        }
        assertThatThrownBy(() -> OpenMpLaunch.findRuntime(Map.of("JOMPD_RUNTIME", prefix.resolve("none").toString())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds no libomp.so");
    }

    @Test
    void cachedRuntimeCountsOnlyWhenTheBuildCompleted(@TempDir Path cache) throws Exception {
        Path prefix = Files.createDirectories(cache.resolve("llvm-" + OpenMpLaunch.RUNTIME_VERSION + "/lib")).getParent();
        Files.write(prefix.resolve("lib/libomp.so"), new byte[] {1});
        Map<String, String> environment = Map.of("JOMPD_CACHE", cache.toString());
        assertThat(OpenMpLaunch.findRuntime(environment)).isEmpty();
        Files.createFile(prefix.resolve(OpenMpLaunch.COMPLETE_STAMP));
        assertThat(OpenMpLaunch.findRuntime(environment)).contains(prefix.resolve("lib/libomp.so"));
    }

    @Test
    void aliasDirectoryLinksEveryRuntimeNameToTheLibraryAndIsReused(@TempDir Path cache) throws Exception {
        Path library = Files.write(cache.resolve("libomp.so"), new byte[] {1});
        Map<String, String> environment = Map.of("JOMPD_CACHE", cache.toString());
        Path aliases = OpenMpLaunch.aliasDirectory(library, environment);
        for (String name : OpenMpLaunch.RUNTIME_ALIASES) {
            assertThat(aliases.resolve(name).toRealPath()).isEqualTo(library.toRealPath());
        }
        assertThat(OpenMpLaunch.aliasDirectory(library, environment)).isEqualTo(aliases);
    }
}
