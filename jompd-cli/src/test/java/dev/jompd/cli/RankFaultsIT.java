package dev.jompd.cli;

import com.google.gson.JsonParser;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.sources.RankInspector;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The faults of a job's rank that need no MPI job to happen, each with its named outcome, on real processes:
 * a process without OpenMP, a process that cannot stop (uninterruptible sleep: a vfork parent), and another
 * user's process (jompd run as {@code nobody} against root's process: EPERM, said with its owner). The ranks
 * are left running as they were.
 */
class RankFaultsIT {
    /** A process that is not this JVM's child (the JDK's reaper would take its ptrace stops): sh starts it and exits. */
    private static long detached(String command) throws IOException {
        Commands.Result started = Commands.run(List.of("sh", "-c", command + " >/dev/null 2>&1 & echo $!"), Map.of(),
                null, Duration.ofSeconds(30));
        return Long.parseLong(started.output().strip());
    }

    private static void kill(long pid) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    @Test
    void aProcessWithoutOpenMpIsNamedSo() throws Exception {
        long pid = detached("exec sleep 120");
        try {
            RankInspection inspection = new RankInspector().inspect(RankInspector.Target.live(
                    new RankId(OptionalInt.of(0), "here", pid, "pid " + pid)));
            assertThat(inspection).isInstanceOfSatisfying(RankInspection.Missing.class, m -> {
                assertThat(m.reason()).isEqualTo(RankInspection.MissingReason.NOT_OPENMP);
                assertThat(m.detail()).contains("OpenMP");
            });
            assertThat(ProcessHandle.of(pid)).as("left running").hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
        } finally {
            kill(pid);
        }
    }

    @Test
    void aProcessInUninterruptibleSleepIsGivenUpAfterTheStopTimeout() throws Exception {
        Path work = Files.createTempDirectory("jompd-faults");
        Path source = work.resolve("vfork_wait.c");
        // The parent of a vfork waits, uninterruptibly, until its child execs or exits: it cannot reach a ptrace stop.
        Files.writeString(source, """
                #include <unistd.h>
                int main(void) {
                  if (vfork() == 0) { sleep(60); _exit(0); }
                  return 0;
                }
                """);
        Path program = work.resolve("vfork_wait");
        Commands.Result compiled = Commands.run(List.of("clang-19", "-o", program.toString(), source.toString()), Map.of(),
                work, Duration.ofMinutes(1));
        assertThat(compiled.exitCode()).as(compiled.output()).isZero();
        long pid = detached("exec " + program);
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!Files.readString(Path.of("/proc/" + pid + "/stat")).replaceAll("^.*\\) ", "").startsWith("D")
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            long started = System.nanoTime();
            RankInspection inspection = new RankInspector(Duration.ofSeconds(1), 1).inspect(RankInspector.Target.live(
                    new RankId(OptionalInt.of(3), "here", pid, "pid " + pid)));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
            assertThat(inspection).isInstanceOfSatisfying(RankInspection.Missing.class, m -> {
                assertThat(m.reason()).as(m.detail()).isEqualTo(RankInspection.MissingReason.UNINTERRUPTIBLE);
                assertThat(m.detail()).contains("uninterruptible sleep");
            });
            assertThat(ProcessHandle.of(pid)).as("left as it was").hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
        } finally {
            kill(pid);
            dev.jompd.testkit.Fixtures.deleteRecursively(work);
        }
    }

    @Test
    void anotherUsersProcessIsNamedWithItsOwnerAndWhatWouldAllowIt() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")) && Commands.available("runuser"),
                "needs root, to run jompd as user nobody against root's process");
        Path jompd = Runtimes.repositoryRoot().resolve("jompd-cli/target/jompd/bin/jompd");
        for (Path dir = jompd; dir != null; dir = dir.getParent()) {
            boolean reachable = Files.getPosixFilePermissions(dir).containsAll(PosixFilePermissions.fromString("--------x"));
            Assumptions.assumeTrue(reachable || Files.isRegularFile(dir), "user nobody cannot reach " + jompd);
        }
        long pid = detached("exec sleep 120");
        try {
            Commands.Result result = Commands.run(List.of("runuser", "-u", "nobody", "--", "env", "HOME=/tmp",
                    "XDG_CACHE_HOME=/tmp/jompd-nobody-cache", "JOMPD_NO_CDS=1", jompd.toString(), "job", "--pids",
                    Long.toString(pid), "--json"), Map.of("JAVA_HOME", System.getProperty("java.home")), null,
                    Duration.ofMinutes(2));
            assertThat(result.exitCode()).as(result.output()).isZero();
            String json = result.output().lines().filter(l -> l.startsWith("{")).findFirst().orElseThrow();
            assertThat(JsonParser.parseString(json).toString()).contains("\"reason\":\"permission_denied\"");
            // what would allow it: root, never a capability on jompd's JVM (docs/security.md)
            Path scope = Path.of("/proc/sys/kernel/yama/ptrace_scope");
            String yama = Files.isRegularFile(scope) ? "; Yama's ptrace_scope is " + Files.readString(scope).strip()
                    + (Files.readString(scope).strip().equals("1") ? " (only a process's ancestors may attach: a tool "
                    + "step is not one; run jompd as root, set it to 0, or have the program call prctl(PR_SET_PTRACER))" : "")
                    : "";
            String detail = JsonParser.parseString(json).getAsJsonObject().getAsJsonArray("missing").get(0)
                    .getAsJsonObject().get("detail").getAsString();
            assertThat(detail).isEqualTo("pid:" + pid + ": permission denied attaching to process " + pid + ": the process "
                    + "belongs to uid 0, this JVM runs as uid 65534 without CAP_SYS_PTRACE. The process belongs to user "
                    + "root; jompd runs as nobody: run jompd job as root (sudo, through a rule for jompd's installed "
                    + "launcher alone: docs/security.md)" + yama);
        } finally {
            kill(pid);
        }
    }
}
