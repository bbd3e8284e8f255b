package dev.jompd.core.launch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
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

    /**
     * A cache others can write (a shared XDG_CACHE_HOME, a group's directory): its libomp and the links programs
     * load it by would be theirs to replace. Never used; the error says whose it is and what to do.
     */
    @Test
    void aCacheOthersCanWriteIsNeitherSearchedNorWritten(@TempDir Path work) throws Exception {
        Path shared = Files.createDirectories(work.resolve("shared"));
        Path prefix = Files.createDirectories(shared.resolve("llvm-" + OpenMpLaunch.RUNTIME_VERSION + "/lib")).getParent();
        Path planted = Files.write(prefix.resolve("lib/libomp.so"), new byte[] {1});
        Files.createFile(prefix.resolve(OpenMpLaunch.COMPLETE_STAMP));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Map<String, String> environment = Map.of("JOMPD_CACHE", shared.toString());
        String refused = "jompd does not use the cache directory " + shared + ": " + shared.toRealPath()
                + " can be written by its group or others (mode 0777) (set JOMPD_CACHE to a directory of yours alone)";
        assertThatThrownBy(() -> OpenMpLaunch.findRuntime(environment)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(refused);
        Path mine = Files.write(work.resolve("libomp.so"), new byte[] {1});
        assertThatThrownBy(() -> OpenMpLaunch.aliasDirectory(mine, environment))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(refused);
        try (var listing = Files.list(shared)) {
            assertThat(listing.map(path -> path.getFileName().toString()).toList()).as("nothing made in it")
                    .isEqualTo(List.of("llvm-" + OpenMpLaunch.RUNTIME_VERSION));
        }
        assertThat(planted).exists();
    }

    @Test
    void aMissingCacheIsMadeForThisUserAlone(@TempDir Path work) throws Exception {
        Path cache = work.resolve("new/jompd");
        Path library = Files.write(work.resolve("libomp.so"), new byte[] {1});
        Path aliases = OpenMpLaunch.aliasDirectory(library, Map.of("JOMPD_CACHE", cache.toString()));
        assertThat(aliases.getParent().getParent()).isEqualTo(cache);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cache))).isEqualTo("rwx------");
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
