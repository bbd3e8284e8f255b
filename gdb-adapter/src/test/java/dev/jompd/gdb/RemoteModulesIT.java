package dev.jompd.gdb;

import dev.jompd.gdb.Stops.Backend;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A process behind gdbserver whose runtime is not, as the process runs it, at the same path on gdb's
 * machine: gone (gdb reads a copy under its sysroot), or replaced by another build. The bridge reads
 * the module gdb reads, and never another build's symbols. The program runs on a private copy of libomp
 * (LD_LIBRARY_PATH), which each test then moves away or replaces once the program stopped.
 */
class RemoteModulesIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private record Runtime(Path directory, Path library) {
        static Runtime copy(Path into) throws IOException {
            Path directory = Files.createDirectories(into.resolve("omp"));
            Path library = directory.resolve("libomp.so");
            Files.copy(Runtimes.prefix(Runtimes.DEFAULT_VERSION).resolve("lib/libomp.so"), library);
            return new Runtime(directory, library);
        }
    }

    private static GdbDriver.Output run(Runtime runtime, List<String> before, List<String> changeFiles, Path directory,
                                        List<Facts> facts) {
        FixtureRun run = FixtureRun.of(Fixture.NESTED, "2", "3").withEnvironment("LD_LIBRARY_PATH", runtime.directory().toString());
        List<String> commands = new ArrayList<>(changeFiles);
        commands.addAll(List.of("python print('GDBTHREADS ' + ' '.join('%d:%d' % (t.num, t.ptid[1]) for t in "
                + "gdb.selected_inferior().threads()))", "ompd threads", "ompd json"));
        try (Stops.Stop stop = Stops.at(Backend.REMOTE, run, directory)) {
            List<String> setup = new ArrayList<>(before);
            setup.addAll(stop.setup());
            GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(setup), commands, stop.arguments(),
                    stop.environment(), directory, TIMEOUT);
            facts.add(stop.facts());
            return output;
        }
    }

    private static void checkAgainstTheFacts(GdbDriver.Output output, Facts facts) {
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        GdbBridgeIT.checkThreads(output.section("ompd threads"), facts,
                GdbBridgeIT.gdbNumbers(output.sections().entrySet().stream()
                        .filter(e -> e.getKey().startsWith("python print('GDBTHREADS")).findFirst().orElseThrow().getValue()),
                Backend.REMOTE);
        GdbBridgeIT.checkJson(output.section("ompd json"), facts);
    }

    @Test
    void aRuntimeGoneFromItsPathIsReadFromGdbsSysroot(@TempDir Path directory) throws IOException {
        Runtime runtime = Runtime.copy(directory);
        Path sysroot = directory.resolve("sysroot");
        Path inSysroot = sysroot.resolve(runtime.library().toString().substring(1));
        Files.createDirectories(inSysroot.getParent());
        Files.copy(runtime.library(), inSysroot);
        List<Facts> facts = new ArrayList<>();
        GdbDriver.Output output = run(runtime, List.of("-ex", "set sysroot " + sysroot),
                List.of("shell mv " + runtime.directory() + " " + directory.resolve("moved-away")), directory, facts);
        checkAgainstTheFacts(output, facts.getFirst());
    }

    @Test
    void anotherBuildAtTheRuntimesPathIsNotTrusted(@TempDir Path directory) throws IOException {
        Runtime runtime = Runtime.copy(directory);
        // libomp 16 where the process's libomp 19 was: same path, another build-id, other symbol addresses
        Path other = directory.resolve("libomp-16.so");
        Files.copy(Runtimes.prefix(16).resolve("lib/libomp.so"), other);
        List<Facts> facts = new ArrayList<>();
        GdbDriver.Output output = run(runtime, List.of(), List.of("shell mv " + other + " " + runtime.library()),
                directory, facts);
        checkAgainstTheFacts(output, facts.getFirst());
    }
}
