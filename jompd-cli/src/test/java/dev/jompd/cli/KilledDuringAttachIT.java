package dev.jompd.cli;

import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `jompd inspect --pid` killed (SIGKILL, nothing of its own runs) at 50 random moments of its attach to a 64-thread
 * program: after each kill no thread of the program is traced (TracerPid 0) or stopped (state T or t), and at the
 * end the program, released, finishes its work and reports it right (it went on, untouched). The moments are spread
 * over a whole inspection's time (measured first), so most land inside the attach, the reads or the detach.
 */
class KilledDuringAttachIT {
    private static final Path JOMPD = Runtimes.repositoryRoot().resolve("jompd-cli/target/jompd/bin/jompd");
    private static final int KILLS = 50;
    private static final int THREADS = 64;

    @Test
    void killingInspectAtRandomMomentsLeavesNoThreadTracedOrStopped() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(JOMPD), "mvn package builds " + JOMPD);
        try (LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.PARALLEL, Integer.toString(THREADS)))) {
            long pid = live.pid();
            // one whole inspection's time: the kills are spread over it
            long start = System.nanoTime();
            Process whole = inspect(pid);
            assertThat(whole.waitFor(2, TimeUnit.MINUTES)).isTrue();
            assertThat(whole.exitValue()).as(new String(whole.getErrorStream().readAllBytes())).isZero();
            long wholeMillis = Math.max(200, (System.nanoTime() - start) / 1_000_000);
            assertUntouched(pid, "after a whole inspection");

            Random random = new Random(4711);
            List<Long> moments = new ArrayList<>();
            for (int kill = 0; kill < KILLS; kill++) {
                long moment = random.nextLong(wholeMillis);
                moments.add(moment);
                Process inspect = inspect(pid);
                Thread.sleep(moment);
                inspect.destroyForcibly(); // SIGKILL
                assertThat(inspect.waitFor(1, TimeUnit.MINUTES)).isTrue();
                // the launcher's JVM is its child: the kill reaches the shell script's exec'd JVM itself
                inspect.descendants().forEach(ProcessHandle::destroyForcibly);
                waitForDescendants(inspect);
                assertUntouched(pid, "after kill " + (kill + 1) + " at " + moment + " ms of " + wholeMillis);
            }
            assertThat(moments.stream().filter(m -> m > wholeMillis / 3)).as("kills inside the attach and reads")
                    .hasSizeGreaterThan(KILLS / 2);
            String output = live.release();
            assertThat(output).as("the program went on and finished its work").contains("JOMPD_RESULT ok");
        }
    }

    private static Process inspect(long pid) throws IOException {
        return new ProcessBuilder(JOMPD.toString(), "inspect", "--pid", Long.toString(pid), "--json")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static void waitForDescendants(Process process) {
        for (ProcessHandle child : process.descendants().toList()) {
            child.onExit().orTimeout(1, TimeUnit.MINUTES).join();
        }
    }

    /** Every thread of {@code pid}: not traced, not stopped. */
    private static void assertUntouched(long pid, String when) {
        List<String> problems = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                String status;
                try {
                    status = Files.readString(task.resolve("status"));
                } catch (IOException gone) {
                    continue; // a thread that ended meanwhile
                }
                String state = field(status, "State:");
                String tracer = field(status, "TracerPid:");
                if (!tracer.equals("0") || state.startsWith("T") || state.startsWith("t")) {
                    problems.add(task.getFileName() + ": State " + state + ", TracerPid " + tracer);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(problems).as(when).isEmpty();
    }

    private static String field(String status, String name) {
        return status.lines().filter(l -> l.startsWith(name)).map(l -> l.substring(name.length()).strip())
                .findFirst().orElse("?");
    }
}
