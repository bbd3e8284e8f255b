package dev.jompd.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StockRuntimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.jompd.cli.InspectCommandIT.jompd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jompd inspect --json} on cores of programs running on a stripped OMPD-enabled libomp: Debian's
 * own libomp5-14/15/16/19 (truth: what the program recorded about itself) and our builds after
 * {@code strip --strip-all} (truth: the same core read through the unstripped file, field for field);
 * a version no profile covers exits 5 naming it.
 */
class StrippedInspectIT {

    // none when the run tests no runtime with a stock build here (JOMPD_RUNTIMES=21,22, say)
    @ParameterizedTest(name = "Debian libomp5-{0}", allowZeroInvocations = true)
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#testedWithStockBuild")
    void debiansStockRuntimeIsInspectedAsTheProgramSawItself(int version) throws IOException {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3").onRuntime(version)
                .withEnvironment("LD_LIBRARY_PATH", StockRuntimes.debian(version).toString()));
        InspectCommandIT.Result result = jompd("inspect", "--core", fixture.core().toString(), "--json");
        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonObject report = JsonParser.parseString(result.out()).getAsJsonObject();
        Map<String, JsonObject> regions = InspectCommandIT.regionsById(report);
        JsonArray threads = report.getAsJsonArray("threads");
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            JsonObject thread = InspectCommandIT.threadWithLwp(threads, facts.lwp());
            assertThat(thread).as(facts + " in the JSON report").isNotNull();
            assertThat(thread.get("threadNum").getAsInt()).isEqualTo(facts.threadNum());
            JsonObject region = regions.get(thread.get("region").getAsString());
            assertThat(region.get("level").getAsInt()).isEqualTo(facts.level());
            assertThat(region.get("teamSize").getAsInt()).isEqualTo(facts.teamSize());
        }
    }

    @ParameterizedTest(name = "our libomp {0}, stripped")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void ourStrippedBuildGivesTheUnstrippedJson(int version) throws IOException {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3").onRuntime(version));
        InspectCommandIT.Result bySymbols = jompd("inspect", "--core", fixture.core().toString(), "--json");
        InspectCommandIT.Result byProfile = jompd("inspect", "--core", fixture.core().toString(), "--json",
                "--solib-search-path", StockRuntimes.strippedCopy(version).toString());
        assertThat(bySymbols.exitCode()).as(bySymbols.err()).isZero();
        assertThat(byProfile.exitCode()).as(byProfile.err()).isZero();
        assertThat(withoutReadingLine(byProfile.out())).isEqualTo(withoutReadingLine(bySymbols.out()));
    }

    /**
     * {@code DEBUGINFOD_URLS} pointing at a real Debian debuginfod on loopback that serves the
     * {@code objcopy --only-keep-debug} file of our libomp 19: the stripped copy's JSON equals the unstripped one,
     * the download's progress is on stderr and lands in {@code DEBUGINFOD_CACHE_PATH}.
     */
    @Test
    void debuginfodUrlsGiveAStrippedRuntimeTheUnstrippedJson(@TempDir Path directory) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/debuginfod")),
                "debuginfod is not installed (scripts/setup-system.sh installs it)");
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3"));
        Path served = Files.createDirectories(directory.resolve("served"));
        Commands.Result debug = Commands.run(List.of("objcopy", "--only-keep-debug",
                Runtimes.libraryDirectory(19).resolve("libomp.so").toString(), served.resolve("libomp.so.debug").toString()),
                Map.of(), null, Duration.ofMinutes(1));
        assertThat(debug.exitCode()).as(debug.output()).isZero();
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Process server = new ProcessBuilder("debuginfod", "-F", served.toString(), "-p", Integer.toString(port),
                "-d", directory.resolve("db.sqlite").toString(), "-t", "1")
                .redirectErrorStream(true).redirectOutput(directory.resolve("debuginfod.log").toFile()).start();
        try {
            String url = "http://127.0.0.1:" + port;
            Path cache = directory.resolve("cache");
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Jompd.class.getName(),
                    "inspect", "--core", fixture.core().toString(), "--json", "--solib-search-path", StockRuntimes.strippedCopy(19).toString());
            Commands.Result result = null;
            for (int attempt = 0; attempt < 60; attempt++) { // until debuginfod has indexed the directory
                result = Commands.run(command, Map.of("DEBUGINFOD_URLS", url, "DEBUGINFOD_CACHE_PATH", cache.toString()),
                        null, Duration.ofMinutes(2));
                if (result.output().contains("downloading debug info")) {
                    break;
                }
                Thread.sleep(500);
            }
            assertThat(result.output()).contains("downloading debug info for libomp.so from " + url);
            assertThat(cache).isDirectoryRecursivelyContaining("glob:**/debuginfo");
            InspectCommandIT.Result bySymbols = jompd("inspect", "--core", fixture.core().toString(), "--json");
            String json = result.output().substring(result.output().indexOf('{'), result.output().lastIndexOf('}') + 1);
            assertThat(withoutReadingLine(json)).isEqualTo(withoutReadingLine(bySymbols.out().strip()));
        } finally {
            server.destroy();
        }
    }

    @Test
    void aVersionNoProfileCoversExitsFiveNamingIt(@TempDir Path directory) throws IOException {
        // Debian's libomp as a newer LLVM's would be installed: /usr/lib/llvm-NN/lib.
        Path unknown = Files.createDirectories(directory.resolve("llvm-99").resolve("lib"));
        Files.copy(StockRuntimes.debian(19).resolve("libomp.so.5"), unknown.resolve("libomp.so"));
        StoppedFixture fixture = Fixtures.makeCore(FixtureRun.of(Fixture.PARALLEL, "2")
                .withEnvironment("LD_LIBRARY_PATH", unknown.toString()), directory.resolve("run"));
        InspectCommandIT.Result result = jompd("inspect", "--core", fixture.core().toString(), "--json");
        assertThat(result.exitCode()).as(result.out() + result.err()).isEqualTo(5);
        assertThat(result.err()).contains("no runtime profile covers libomp 99");
        assertThat(result.out()).isEmpty();
    }

    /** The JSON without the line saying how the runtime was read (symbols, or profile libomp V). */
    private static String withoutReadingLine(String json) {
        return json.lines().filter(line -> !line.contains("profile libomp") && !line.contains("\"symbols\"")
                        && !line.contains("debuginfod "))
                .collect(Collectors.joining("\n"));
    }



}
