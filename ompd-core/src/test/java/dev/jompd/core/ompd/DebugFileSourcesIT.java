package dev.jompd.core.ompd;

import com.sun.net.httpserver.HttpServer;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.debug.DebuginfodClient;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StockRuntimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Debug files wherever they are, for our libomp 19 after {@code strip --strip-all}: from a real Debian
 * {@code debuginfod} on loopback serving the {@code objcopy --only-keep-debug} file, through the stripped
 * file's {@code .gnu_debuglink}; and the failures (a server that never answers, one that is down, one
 * serving another build's file, a debuglink whose CRC does not match) said, with nothing wrong shown: the
 * runtime is then read through its profile. Truth: the same core read through the unstripped file.
 */
class DebugFileSourcesIT {
    private static final int VERSION = 19;
    private static Process debuginfod;
    private static URI debuginfodUrl;
    private static Path served;
    private static StoppedFixture fixture;
    private static ProcessSnapshot bySymbols;
    private static String buildId;

    @BeforeAll
    static void serveTheDebugFileOfOurStrippedBuild(@TempDir Path directory) throws Exception {
        fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3").onRuntime(VERSION));
        try (AddressSpace unstripped = CoreFileAddressSpace.open(fixture.core())) {
            bySymbols = ProcessSnapshot.take(Ompd.processInitialize(unstripped));
            buildId = unstripped.modules().stream().filter(m -> m.path().getFileName().toString().equals("libomp.so"))
                    .findFirst().orElseThrow().buildId().orElseThrow();
        }
        served = Files.createDirectories(directory.resolve("served"));
        run("objcopy", "--only-keep-debug", Runtimes.libraryDirectory(VERSION).resolve("libomp.so").toString(),
                served.resolve("libomp.so.debug").toString());
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/debuginfod")), "debuginfod is not installed (scripts/setup-system.sh installs it)");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        debuginfod = new ProcessBuilder("debuginfod", "-F", served.toString(), "-p", Integer.toString(port),
                "-d", directory.resolve("debuginfod.sqlite").toString(), "-t", "1")
                .redirectErrorStream(true).redirectOutput(directory.resolve("debuginfod.log").toFile()).start();
        debuginfodUrl = URI.create("http://127.0.0.1:" + port);
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(debuginfodUrl + "/buildid/" + buildId
                        + "/debuginfo")).GET().build(), HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    break;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            assertThat(System.nanoTime()).as("debuginfod indexed " + served + " within 60 s (log: "
                    + directory.resolve("debuginfod.log") + ")").isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    @AfterAll
    static void stopTheServer() {
        if (debuginfod != null) {
            debuginfod.destroy();
        }
    }

    @Test
    void debuginfodGivesTheStrippedRuntimeItsSymbolsAndTheSameSnapshot(@TempDir Path cache) throws IOException {
        List<String> messages = new CopyOnWriteArrayList<>();
        DebuginfodClient client = new DebuginfodClient(List.of(debuginfodUrl), cache, Duration.ofSeconds(30), messages::add);
        try (AddressSpace stripped = openStripped(client)) {
            AddressSpaceHandle process = Ompd.processInitialize(stripped);
            assertThat(process.layout().reading()).isEqualTo(
                    new RuntimeReading(RuntimeReading.Source.DEBUGINFOD, Optional.of(debuginfodUrl.toString())));
            assertThat(ProcessSnapshot.take(process)).isEqualTo(bySymbols);
        }
        assertThat(cache.resolve(buildId).resolve("debuginfo")).as("gdb's cache layout").isRegularFile();
        assertThat(messages).as("a large download reports its progress")
                .anyMatch(m -> m.startsWith("downloading debug info for libomp.so from " + debuginfodUrl));
    }

    @Test
    void aServerThatNeverAnswersTimesOutAndTheProfileReadsTheRuntime(@TempDir Path cache) throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread holder = Thread.ofVirtual().start(() -> {
                try (Socket held = silent.accept()) {
                    Thread.sleep(Duration.ofSeconds(30));
                } catch (IOException | InterruptedException ignored) {
                    // the test is over
                }
            });
            List<String> messages = new CopyOnWriteArrayList<>();
            URI url = URI.create("http://127.0.0.1:" + silent.getLocalPort());
            long started = System.nanoTime();
            assertReadThroughProfile(new DebuginfodClient(List.of(url), cache, Duration.ofSeconds(2), messages::add));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
            assertThat(messages).anyMatch(m -> m.equals("debuginfod " + url + " did not answer within 2 s (DEBUGINFOD_TIMEOUT) "
                    + "for libomp.so build-id " + buildId));
            holder.interrupt();
        }
    }

    @Test
    void aServerThatIsDownIsSaidSo(@TempDir Path cache) throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        List<String> messages = new CopyOnWriteArrayList<>();
        URI url = URI.create("http://127.0.0.1:" + port);
        assertReadThroughProfile(new DebuginfodClient(List.of(url), cache, Duration.ofSeconds(5), messages::add));
        assertThat(messages).anyMatch(m -> m.startsWith("debuginfod " + url + " is unreachable"));
    }

    @Test
    void aServerServingAnotherBuildsFileIsRefused(@TempDir Path cache, @TempDir Path other) throws Exception {
        Path wrong = other.resolve("libomp16.debug");
        run("objcopy", "--only-keep-debug", Runtimes.libraryDirectory(16).resolve("libomp.so").toString(), wrong.toString());
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = Files.readAllBytes(wrong);
            exchange.sendResponseHeaders(200, body.length);
            try (var out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        try {
            List<String> messages = new CopyOnWriteArrayList<>();
            URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
            assertReadThroughProfile(new DebuginfodClient(List.of(url), cache, Duration.ofSeconds(5), messages::add));
            assertThat(messages).anyMatch(m -> m.contains("served a file whose build-id is not " + buildId) && m.contains("refused"));
            assertThat(cache.resolve(buildId).resolve("debuginfo")).as("a refused file is not cached").doesNotExist();
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aDebuglinkBesideTheStrippedFileIsFollowedAndAWrongCrcIsNot(@TempDir Path directory) throws Exception {
        Path debugDirectory = Files.createDirectories(directory.resolve(".debug"));
        Path debugFile = debugDirectory.resolve("libomp.so.debug");
        Files.copy(served.resolve("libomp.so.debug"), debugFile);
        run("objcopy", "--strip-all", "--add-gnu-debuglink=" + debugFile,
                Runtimes.libraryDirectory(VERSION).resolve("libomp.so").toString(), directory.resolve("libomp.so").toString());
        try (AddressSpace linked = CoreFileAddressSpace.builder(fixture.core()).withSolibSearchPath(List.of(directory))
                .withDebugFileDirectories(List.of()).withDebuginfod(Optional.empty()).open()) {
            AddressSpaceHandle process = Ompd.processInitialize(linked);
            assertThat(process.layout().reading()).isEqualTo(
                    new RuntimeReading(RuntimeReading.Source.DEBUG_FILE, Optional.of(debugFile.toString())));
            assertThat(ProcessSnapshot.take(process)).isEqualTo(bySymbols);
        }
        Files.write(debugFile, new byte[] {0}, java.nio.file.StandardOpenOption.APPEND); // CRC no longer matches
        try (AddressSpace linked = CoreFileAddressSpace.builder(fixture.core()).withSolibSearchPath(List.of(directory))
                .withDebugFileDirectories(List.of()).withDebuginfod(Optional.empty()).open()) {
            assertThat(Ompd.processInitialize(linked).layout().reading().source()).isEqualTo(RuntimeReading.Source.PROFILE);
        }
    }

    private static void assertReadThroughProfile(DebuginfodClient client) throws IOException {
        try (AddressSpace stripped = openStripped(client)) {
            AddressSpaceHandle process = Ompd.processInitialize(stripped);
            assertThat(process.layout().reading().source()).isEqualTo(RuntimeReading.Source.PROFILE);
            assertThat(ProcessSnapshot.take(process)).isEqualTo(bySymbols);
        }
    }

    private static AddressSpace openStripped(DebuginfodClient client) throws IOException {
        return CoreFileAddressSpace.builder(fixture.core())
                .withSolibSearchPath(List.of(StockRuntimes.strippedCopy(VERSION)))
                .withDebugFileDirectories(List.of())
                .withDebuginfod(Optional.of(client))
                .open();
    }

    private static void run(String... command) throws IOException {
        Commands.Result result = Commands.run(List.of(command), Map.of(), null, Duration.ofMinutes(1));
        assertThat(result.exitCode()).as(String.join(" ", command) + "\n" + result.output()).isZero();
    }
}
