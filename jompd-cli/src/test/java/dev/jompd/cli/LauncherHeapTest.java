package dev.jompd.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bin/jompd gives a node agent a heap cap of its own (it runs inside the job's cgroup, next to the ranks), and
 * nothing else one. The truth is the JVM's own account of its heap (-Xlog:gc+init), printed before any class of
 * jompd's is needed: the launcher is run from the source tree, whose lib/ holds none.
 */
class LauncherHeapTest {
    @TempDir
    Path cache;

    private String heapOf(String options, String... arguments) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("bash", "src/main/dist/bin/jompd"));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> environment = builder.environment();
        environment.put("JOMPD_JAVA", ProcessHandle.current().info().command().orElseThrow());
        environment.put("JOMPD_JAVA_OPTIONS", "-Xlog:gc+init=info:stdout:level,tags " + options);
        environment.put("JOMPD_NO_CDS", "1");
        environment.put("XDG_CACHE_HOME", cache.toString());
        Process launcher = builder.start();
        String output = new String(launcher.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        launcher.waitFor();
        return output.lines().filter(line -> line.startsWith("[info][gc,init] Heap Max Capacity: ")).findFirst()
                .map(line -> line.substring("[info][gc,init] Heap Max Capacity: ".length())).orElse(output);
    }

    @Test
    void aNodeAgentHasAHeapCapOfItsOwnAndItsOptionsWin() throws Exception {
        assertThat(heapOf("", "job-agent", "--step", "1.0", "--node", "n1")).isEqualTo("1G");
        assertThat(heapOf("-Xmx2g", "job-agent", "--step", "1.0", "--node", "n1")).isEqualTo("2G");
        // other commands keep the JVM's own choice: a quarter of the machine's (or cgroup's) memory
        String ergonomic = heapOf("", "inspect", "--pid", "1");
        assertThat(ergonomic).isNotEqualTo("1G").matches("\\d+[MG]");
    }
}
