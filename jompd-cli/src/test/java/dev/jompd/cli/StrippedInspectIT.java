package dev.jompd.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StockRuntimes;
import dev.jompd.testkit.StoppedFixture;
import dev.jompd.testkit.SupportedRuntimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.jompd.cli.InspectCommandIT.jompd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jompd inspect --json} on cores of programs running on a stripped OMPD-enabled libomp: Debian's
 * own libomp5-14/15/16/19 (truth: what the program recorded about itself) and our builds after
 * {@code strip --strip-all} (truth: the same core read through the unstripped file, field for field);
 * each of them where its path names no version, or the wrong one (truth: what the program recorded).
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

    /** A stripped runtime this run has: Debian's stock build, or ours after {@code strip --strip-all}. */
    record StrippedRuntime(String name, int version, Path file) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<StrippedRuntime> strippedRuntimes() {
        Stream<StrippedRuntime> debian = SupportedRuntimes.testedWithStockBuild().map(version ->
                new StrippedRuntime("Debian libomp5-" + version, version, StockRuntimes.debian(version).resolve("libomp.so.5")));
        Stream<StrippedRuntime> ours = SupportedRuntimes.tested().map(version -> {
            try {
                return new StrippedRuntime("our libomp " + version + ", stripped", version,
                        StockRuntimes.strippedCopy(version).resolve("libomp.so"));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        return Stream.concat(debian, ours);
    }

    /**
     * A stripped runtime where its path names no version, as distributions install it
     * ({@code /usr/lib/x86_64-linux-gnu/libomp.so.5}) and applications ship it in their own {@code lib/}: the
     * profile is chosen by what fits its memory, and the core and the live process show every thread the
     * program recorded, no other, each with its thread number, level and team size.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("strippedRuntimes")
    void aStrippedRuntimeWhosePathNamesNoVersionIsInspectedAsTheProgramSawItself(StrippedRuntime runtime,
                                                                                 @TempDir Path directory) throws IOException {
        Path library = installed(runtime, directory.resolve("app").resolve("lib"));
        assertThat(library.toString()).as("a path that names no version").doesNotContainPattern("(llvm|libomp)-[0-9]");
        String reading = inspectedAsTheProgramSawItself(runtime, library, directory);
        System.out.println(runtime + " in " + library + ": read by " + reading);
        assertThat(reading).startsWith("profile libomp " + runtime.version() + ".");
    }

    /**
     * Debian's libomp5-19 in a directory whose name says another version: one whose profile does not fit it
     * (16), one no profile covers (99). The path is only a hint: the profile that fits is taken, and the
     * reading says the path was wrong.
     */
    @ParameterizedTest(name = "Debian libomp5-19 in {0}/lib")
    @ValueSource(strings = {"llvm-16", "llvm-99"})
    void aStrippedRuntimeInADirectoryNamingAnotherVersionIsInspectedAsTheProgramSawItself(String misleading,
                                                                                        @TempDir Path directory) throws IOException {
        StrippedRuntime runtime = new StrippedRuntime("Debian libomp5-19", 19, StockRuntimes.debian(19).resolve("libomp.so.5"));
        Path library = installed(runtime, directory.resolve(misleading).resolve("lib"));
        String reading = inspectedAsTheProgramSawItself(runtime, library, directory);
        System.out.println(runtime + " in " + library + ": read by " + reading);
        assertThat(reading).startsWith("profile libomp 19.1.7").contains("its path names " + misleading);
    }

    /** The runtime's file copied into {@code library} under its own name (Debian's with the libomp.so link beside it). */
    private static Path installed(StrippedRuntime runtime, Path library) throws IOException {
        Files.createDirectories(library);
        Path file = library.resolve(runtime.file().getFileName());
        Files.copy(runtime.file(), file);
        if (!file.getFileName().toString().equals("libomp.so")) {
            Files.createSymbolicLink(library.resolve("libomp.so"), file.getFileName());
        }
        return library;
    }

    /**
     * The nested fixture run on the runtime in {@code library}, inspected from its core and live: each report
     * holds exactly the threads the program recorded, each as it saw itself. Answers how the runtime was read.
     */
    private static String inspectedAsTheProgramSawItself(StrippedRuntime runtime, Path library, Path directory) {
        FixtureRun run = FixtureRun.of(Fixture.NESTED, "2", "3").onRuntime(runtime.version())
                .withEnvironment("LD_LIBRARY_PATH", library.toString());
        StoppedFixture fixture = Fixtures.makeCore(run, directory.resolve("core"));
        assertThat(Path.of(fixture.facts().get("runtime_library")).getParent()).as("the program ran on the copy")
                .isEqualTo(library);
        String coreReading = sameAsTheProgramSaw(jompd("inspect", "--core", fixture.core().toString(), "--json"),
                fixture.facts(), runtime + ", core");
        try (LiveFixture live = Fixtures.live(run)) {
            assertThat(Path.of(live.facts().get("runtime_library")).getParent()).isEqualTo(library);
            String liveReading = sameAsTheProgramSaw(jompd("inspect", "--pid", Long.toString(live.pid()), "--json"),
                    live.facts(), runtime + ", live");
            assertThat(liveReading).isEqualTo(coreReading);
        }
        return coreReading;
    }

    /** The report's threads are the recorded ones, each with its number, level and team size; answers its reading. */
    private static String sameAsTheProgramSaw(InspectCommandIT.Result result, Facts facts, String what) {
        assertThat(result.exitCode()).as(what + ": " + result.err()).isZero();
        JsonObject report = JsonParser.parseString(result.out()).getAsJsonObject();
        Map<String, JsonObject> regions = InspectCommandIT.regionsById(report);
        JsonArray threads = report.getAsJsonArray("threads");
        List<String> reported = new java.util.ArrayList<>();
        threads.forEach(thread -> reported.add(thread.getAsJsonObject().has("lwp")
                ? "LWP " + thread.getAsJsonObject().get("lwp").getAsLong() : "no LWP: " + thread));
        assertThat(reported).as(what + ": the OpenMP threads").containsExactlyInAnyOrderElementsOf(
                facts.threads().stream().map(recorded -> "LWP " + recorded.lwp()).toList());
        for (Facts.ThreadFacts recorded : facts.threads()) {
            JsonObject thread = InspectCommandIT.threadWithLwp(threads, recorded.lwp());
            assertThat(thread.get("threadNum").getAsInt()).as(what + ": " + recorded).isEqualTo(recorded.threadNum());
            JsonObject region = regions.get(thread.get("region").getAsString());
            assertThat(region.get("level").getAsInt()).as(what + ": " + recorded).isEqualTo(recorded.level());
            assertThat(region.get("teamSize").getAsInt()).as(what + ": " + recorded).isEqualTo(recorded.teamSize());
        }
        return report.getAsJsonObject("target").get("runtimeRead").getAsString();
    }

    /** The JSON without the line saying how the runtime was read (symbols, or profile libomp V). */
    private static String withoutReadingLine(String json) {
        return json.lines().filter(line -> !line.contains("profile libomp") && !line.contains("\"symbols\"")
                        && !line.contains("debuginfod "))
                .collect(Collectors.joining("\n"));
    }



}
