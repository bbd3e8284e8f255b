package dev.jompd.core.target.debug;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DebuginfodClientTest {

    @Test
    void serversAreTheSpaceSeparatedUrlsOfTheEnvironment() {
        DebuginfodClient client = DebuginfodClient.fromEnvironment(
                Map.of("DEBUGINFOD_URLS", " https://debuginfod.debian.net/  http://127.0.0.1:8002 "), m -> { });
        assertThat(client.servers()).containsExactly(URI.create("https://debuginfod.debian.net"), URI.create("http://127.0.0.1:8002"));
    }

    @Test
    void theCacheIsWhereGdbKeepsIt() {
        assertThat(DebuginfodClient.fromEnvironment(Map.of("DEBUGINFOD_CACHE_PATH", "/c", "XDG_CACHE_HOME", "/x"), m -> { })
                .cacheDirectory()).isEqualTo(Path.of("/c"));
        assertThat(DebuginfodClient.fromEnvironment(Map.of("XDG_CACHE_HOME", "/x"), m -> { }).cacheDirectory())
                .isEqualTo(Path.of("/x/debuginfod_client"));
        assertThat(DebuginfodClient.fromEnvironment(Map.of(), m -> { }).cacheDirectory())
                .isEqualTo(Path.of(System.getProperty("user.home"), ".cache", "debuginfod_client"));
    }

    @Test
    void withoutUrlsNothingIsAskedAndNothingSaid(@TempDir Path cache) {
        List<String> messages = new ArrayList<>();
        DebuginfodClient offline = DebuginfodClient.fromEnvironment(Map.of("DEBUGINFOD_CACHE_PATH", cache.toString()), messages::add);
        assertThat(offline.servers()).isEmpty();
        assertThat(offline.debugInfo("0a13c151d145c73d9f512313617e3da2ef096d21", "libomp.so")).isEmpty();
        assertThat(messages).isEmpty();
    }

    @Test
    void aBuildIdThatIsNoHexNameIsNeverRequested(@TempDir Path cache) {
        List<String> messages = new ArrayList<>();
        DebuginfodClient client = new DebuginfodClient(List.of(URI.create("http://127.0.0.1:1")), cache,
                java.time.Duration.ofSeconds(1), messages::add);
        assertThat(client.debugInfo("../../etc/passwd", "x")).isEmpty();
        assertThat(messages).isEmpty();
    }
}
