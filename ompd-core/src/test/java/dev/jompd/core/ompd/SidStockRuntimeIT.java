package dev.jompd.core.ompd;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StockRuntimes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stock runtime of the newest Debian: sid's {@code libomp5} (LLVM 23, stripped), which needs glibc 2.38 and
 * so runs only in a sid chroot (scripts/sid-chroot.sh, debootstrap). The nested fixture is built inside with
 * sid's own clang and run there, held at its marker; jompd on the host reads its live process (ptrace,
 * modules through /proc/PID/root) and a core of it (the chroot's libraries as the solib search path), through
 * a runtime profile, against the facts the program recorded about itself.
 *
 * <p>Costly (a 450 MB chroot made once): it runs with {@code JOMPD_SID_CHROOT=1}, which
 * scripts/test-all-runtimes.sh sets; CI does not.
 */
class SidStockRuntimeIT {
    private static Path root;
    private static Process holder;
    private static long pid;
    private static Facts facts;
    private static Path core;
    private static Path executable;

    @BeforeAll
    static void runTheFixtureInsideSid() throws Exception {
        Assumptions.assumeTrue("1".equals(System.getenv("JOMPD_SID_CHROOT")),
                "the sid chroot test runs with JOMPD_SID_CHROOT=1 (scripts/test-all-runtimes.sh)");
        root = Path.of(StockRuntimes.script("sid-chroot.sh"));
        Path source = Runtimes.repositoryRoot().resolve("test-programs/src/main/c");
        Path inside = root.resolve("jompd");
        Files.createDirectories(inside);
        for (String file : List.of("nested.c", "fixture.c", "fixture.h")) {
            Files.copy(source.resolve(file), inside.resolve(file), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        Files.deleteIfExists(inside.resolve("facts.properties"));
        Commands.Result compiled = Commands.run(List.of("bash", script(), "run", "clang", "-fopenmp", "-g", "-O0",
                "-fno-omit-frame-pointer", "-o", "/jompd/nested", "/jompd/nested.c", "/jompd/fixture.c", "-lpthread"),
                Map.of(), null, Duration.ofMinutes(3));
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        executable = inside.resolve("nested");

        // sh between the JVM and the program: the JDK's reaper must not take the tracee's stops (as LiveFixture)
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", "exec 3<&0; \"$@\" <&3 3<&- & wait $!", "sh",
                "bash", script(), "run", "/usr/bin/env", "OMP_DEBUG=enabled", "JOMPD_HOLD=1",
                "JOMPD_FACTS=/jompd/facts.properties", "/jompd/nested", "2", "3")
                .redirectError(inside.resolve("stderr.txt").toFile());
        holder = builder.start();
        BufferedReader stdout = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Long> announced = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line; (line = stdout.readLine()) != null; ) {
                    if (line.startsWith("JOMPD_AT_MARKER")) {
                        return Long.parseLong(line.split("\\s+")[1]);
                    }
                }
                throw new IllegalStateException("the fixture ended before its marker");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        pid = announced.get(120, TimeUnit.SECONDS);
        facts = Facts.read(inside.resolve("facts.properties"));
        core = inside.resolve("core");
        Files.deleteIfExists(core);
        Commands.Result gcore = Commands.run(List.of("gdb", "-batch", "-nx", "-ex", "set debuginfod enabled off",
                "-ex", "set sysroot " + root, "-p", Long.toString(pid), "-ex", "gcore " + core, "-ex", "detach"),
                Map.of(), null, Duration.ofMinutes(3));
        assertThat(core).as(gcore.output()).isRegularFile();
    }

    @AfterAll
    static void release() throws Exception {
        if (holder != null) {
            try (OutputStream in = holder.getOutputStream()) {
                in.write('\n');
            } catch (IOException ignored) {
                // already gone
            }
            if (!holder.waitFor(30, TimeUnit.SECONDS)) {
                holder.destroyForcibly();
            }
        }
    }

    private static String script() {
        return Runtimes.repositoryRoot().resolve("scripts/sid-chroot.sh").toString();
    }

    /** The runtime really is sid's stripped stock libomp 23, not one of ours. */
    @Test
    void theProgramRunsOnSidsStrippedLibomp() throws IOException {
        String maps = Files.readString(Path.of("/proc", Long.toString(pid), "maps"));
        String libomp = maps.lines().filter(l -> l.contains("libomp.so")).findFirst().orElseThrow();
        // the kernel shows the mapped file's path as the reader (the host) sees it: inside the chroot's root
        Path path = Path.of(libomp.substring(libomp.indexOf('/')));
        assertThat(path).startsWith(root);
        Commands.Result symbols = Commands.run(List.of("nm", path.toString()), Map.of(), null, Duration.ofMinutes(1));
        assertThat(symbols.output()).as(path.toString()).contains("no symbols");
        Commands.Result version = Commands.run(List.of("bash", script(), "run", "dpkg-query", "-W", "libomp5"), Map.of(),
                null, Duration.ofMinutes(1));
        assertThat(version.output()).as("sid's libomp5 package").contains("1:23.");
        System.out.println("sid's libomp: " + path.toRealPath() + ", " + version.output().strip());
    }

    @Test
    void itsLiveProcessIsReadThroughAProfile() {
        try (LiveProcessAddressSpace target = LiveProcessAddressSpace.attach(pid)) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            System.out.println("sid live: " + process.layout().reading());
            assertThat(process.layout().reading().source()).isEqualTo(RuntimeReading.Source.PROFILE);
            assertThat(process.layout().reading().toString()).startsWith("profile libomp 23.");
            threadsAreWhatTheProgramRecorded(ProcessSnapshot.take(process));
        }
    }

    @Test
    void itsCoreIsReadThroughAProfile() {
        try (AddressSpace target = CoreFileAddressSpace.builder(core).withExecutable(executable)
                .withSolibSearchPath(List.of(root.resolve("usr/lib/x86_64-linux-gnu"), root.resolve("lib/x86_64-linux-gnu")))
                .open()) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            System.out.println("sid core: " + process.layout().reading());
            assertThat(process.layout().reading().source()).isEqualTo(RuntimeReading.Source.PROFILE);
            assertThat(process.layout().reading().toString()).startsWith("profile libomp 23.");
            ProcessSnapshot snapshot = ProcessSnapshot.take(process);
            for (String global : dev.jompd.core.ompd.profile.ProfileDeriver.PROFILED_GLOBALS) {
                System.out.println("sid libomp5 " + global + ": " + process.layout().symbol(global)
                        .map(s -> "by " + process.layout().profilePlacement(global).orElse("its exported symbol"))
                        .orElse("unavailable: " + process.layout().whyAbsent(global).orElse("?")));
            }
            threadsAreWhatTheProgramRecorded(snapshot);
        }
    }

    private static void threadsAreWhatTheProgramRecorded(ProcessSnapshot snapshot) {
        assertThat(StrippedRuntimeIT.pthreads(snapshot)).as("the OpenMP threads")
                .isEqualTo(StrippedRuntimeIT.recordedPthreads(facts));
        for (Facts.ThreadFacts recorded : facts.threads()) {
            ProcessSnapshot.ThreadView thread = snapshot.threads().stream()
                    .filter(t -> t.pthread() == recorded.pthread()).findFirst()
                    .orElseThrow(() -> new AssertionError("no OpenMP thread with pthread " + recorded));
            assertThat(thread.lwp()).as("lwp of " + recorded).isEqualTo(OptionalLong.of(recorded.lwp()));
            assertThat(thread.threadNum()).as("thread num of " + recorded).isEqualTo(recorded.threadNum());
            recorded.find("gtid").ifPresent(gtid -> assertThat(thread.gtid()).isEqualTo(Long.decode(gtid)));
        }
    }
}
