package dev.jompd.cli;

import dev.jompd.core.launch.OpenMpLaunch;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.sources.RankInspector;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two users on one machine: root runs jompd, {@code nobody} owns a home with a libomp in it. The training of the
 * job cache (JobTraining) loads the runtime a job's ranks used into a process of its own: it must never load one
 * that another user can change, nor learn one from another user's rank — root reading user B's job would run B's
 * code as root. The ranks are real OpenMP processes (lib/jompd-aot-team, which holds a team on the libomp it is
 * given), and what each maps comes from its /proc/PID/maps.
 */
class JobTrainingIT {
    private static final int NOBODY = 65534;

    private static Path work;
    private static Path team;
    /** A copy of libomp 19 that root owns, in a directory only root can write. */
    private static Path rootsRuntime;
    /** The same library in nobody's home: nobody can replace it. */
    private static Path nobodysRuntime;
    private final List<Long> ranks = new ArrayList<>();

    @BeforeAll
    static void twoUsers() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")) && Commands.available("setpriv"),
                "needs root and setpriv, to run a rank as user nobody");
        Path built = Runtimes.repositoryRoot().resolve("jompd-cli/target/jompd/lib/jompd-aot-team");
        Assumptions.assumeTrue(Files.isExecutable(built), built + " is not built (mvn package builds it)");
        Path libomp = Runtimes.libraryDirectory(19).resolve("libomp.so");
        work = Files.createTempDirectory(Path.of("/tmp"), "jompd-training-");
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path lib = Files.createDirectories(work.resolve("dist/lib"));
        team = Files.copy(built, lib.resolve("jompd-aot-team"));
        Files.setPosixFilePermissions(team, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path roots = Files.createDirectories(work.resolve("root"));
        rootsRuntime = Files.copy(libomp, roots.resolve("libomp.so"));
        Path home = Files.createDirectories(work.resolve("home-of-nobody"));
        nobodysRuntime = Files.copy(libomp, home.resolve("libomp.so"));
        for (Path path : List.of(work.resolve("dist"), lib, roots, home, rootsRuntime, nobodysRuntime)) {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(
                    Files.isDirectory(path) ? "rwxr-xr-x" : "rw-r--r--"));
        }
        chown(home, NOBODY);
        chown(nobodysRuntime, NOBODY);
        System.setProperty("jompd.home", work.resolve("dist").toString());
    }

    @AfterAll
    static void cleanUp() throws IOException {
        System.clearProperty("jompd.cache");
        System.clearProperty("jompd.home");
        if (work != null) {
            try (Stream<Path> all = Files.walk(work)) {
                all.sorted((a, b) -> b.compareTo(a)).forEach(path -> path.toFile().delete());
            }
        }
    }

    @AfterEach
    void endRanks() {
        ranks.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        ranks.clear();
    }

    @Test
    void aRanksRuntimeOnlyRootCanChangeIsRememberedAsTheRankMapsIt() throws Exception {
        long rank = startRank(rootsRuntime, false);
        Path cache = freshCache("own");
        JobTraining.rememberRuntime(List.of(inspect(rank)), said -> { throw new AssertionError(said); });
        assertThat(remembered(cache)).isEqualTo(Optional.of(mapped(rank, "libomp.so")));
        assertThat(mapped(rank, "libomp.so")).isEqualTo(rootsRuntime.toRealPath().toString());
    }

    @Test
    void aLibompInAnotherUsersHomeIsNeverRemembered() throws Exception {
        long rank = startRank(nobodysRuntime, false);
        assertThat(mapped(rank, "libomp.so")).isEqualTo(nobodysRuntime.toRealPath().toString());
        Path cache = freshCache("theirs");
        List<String> said = new ArrayList<>();
        JobTraining.rememberRuntime(List.of(inspect(rank)), said::add);
        assertThat(remembered(cache)).isEqualTo(ownRuntime());
        assertThat(said).isEqualTo(ownRuntime().isPresent() ? List.of() : List.of("jompd: the job cache's training will "
                + "run without an OpenMP process: the ranks' runtime is not loaded by jompd (" + nobodysRuntime.toRealPath()
                + " belongs to user nobody (uid 65534), not to root, that jompd runs as) and jompd's own libomp is not "
                + "built"));
    }

    @Test
    void aRankOfAnotherUserTeachesNothing() throws Exception {
        long rank = startRank(rootsRuntime, true);
        assertThat(Files.getAttribute(Path.of("/proc/" + rank), "unix:uid")).isEqualTo(NOBODY);
        Path cache = freshCache("their-rank");
        JobTraining.rememberRuntime(List.of(inspect(rank)), said -> { });
        assertThat(remembered(cache)).isEqualTo(ownRuntime());
    }

    @Test
    void aRememberedRuntimeAnotherUserCanChangeIsNeverLoaded() throws Exception {
        Path cache = freshCache("planted");
        Files.writeString(cache.resolve(JobTraining.RUNTIME_FILE), nobodysRuntime.toString());
        StringWriter err = new StringWriter();
        Optional<JobTraining.Team> started = JobTraining.startTeam(new PrintWriter(err, true));
        started.ifPresent(JobTraining.Team::close);
        assertThat(started).isEmpty();
        assertThat(err.toString()).isEqualTo("jompd: the training does not load " + nobodysRuntime + ": "
                + nobodysRuntime + " belongs to user nobody (uid 65534), not to root, that jompd runs as"
                + System.lineSeparator());
        assertThat(processesMapping(nobodysRuntime)).isEmpty();
    }

    @Test
    void aRememberedRuntimeInADirectoryOthersMayWriteIsNeverLoaded() throws Exception {
        Path open = Files.createDirectories(work.resolve("open-to-all"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path runtime = Files.copy(rootsRuntime, open.resolve("libomp.so"));
        Path cache = freshCache("open");
        Files.writeString(cache.resolve(JobTraining.RUNTIME_FILE), runtime.toString());
        StringWriter err = new StringWriter();
        Optional<JobTraining.Team> started = JobTraining.startTeam(new PrintWriter(err, true));
        started.ifPresent(JobTraining.Team::close);
        assertThat(started).isEmpty();
        assertThat(err.toString()).isEqualTo("jompd: the training does not load " + runtime + ": its directory " + open
                + " can be written by its group or others (mode 0777)" + System.lineSeparator());
        assertThat(processesMapping(runtime)).isEmpty();
    }

    @Test
    void aRememberedRuntimeOnlyRootCanChangeStartsTheTeam() throws Exception {
        Path cache = freshCache("team");
        Files.writeString(cache.resolve(JobTraining.RUNTIME_FILE), rootsRuntime.toString());
        StringWriter err = new StringWriter();
        Optional<JobTraining.Team> started = JobTraining.startTeam(new PrintWriter(err, true));
        try {
            assertThat(started).isPresent();
            assertThat(mapped(started.get().pid(), "libomp.so")).isEqualTo(rootsRuntime.toRealPath().toString());
            assertThat(err.toString()).isEmpty();
        } finally {
            started.ifPresent(JobTraining.Team::close);
        }
    }

    /** A rank: jompd-aot-team on {@code runtime}, as root or as nobody, not a child of this JVM; once its team is in place. */
    private long startRank(Path runtime, boolean asNobody) throws Exception {
        Path out = Files.createTempFile(work, "rank-", ".out");
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rw-rw-rw-"));
        String user = asNobody ? "setpriv --reuid=" + NOBODY + " --regid=" + NOBODY + " --clear-groups " : "";
        Commands.Result started = Commands.run(List.of("sh", "-c", "exec " + user + "\"$0\" \"$1\" >\"$2\" 2>&1 & echo $!",
                team.toString(), runtime.toString(), out.toString()), Map.of("OMP_DEBUG", "enabled", "KMP_BLOCKTIME", "0"),
                work, Duration.ofSeconds(30));
        long pid = Long.parseLong(started.output().strip());
        ranks.add(pid);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!Files.readString(out).contains("ready")) {
            assertThat(System.nanoTime()).as("rank %d never said ready: %s", pid, Files.readString(out)).isLessThan(deadline);
            Thread.sleep(20);
        }
        return pid;
    }

    private static RankInspection inspect(long pid) {
        RankInspection inspection = new RankInspector().inspect(RankInspector.Target.live(
                new RankId(OptionalInt.of(0), "here", pid, "pid " + pid)));
        assertThat(inspection).isInstanceOf(RankInspection.Seen.class);
        return inspection;
    }

    private static Path freshCache(String name) throws IOException {
        Path cache = Files.createDirectories(work.resolve("cache-" + name));
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwx------"));
        System.setProperty("jompd.cache", cache.toString());
        return cache;
    }

    private static Optional<String> remembered(Path cache) throws IOException {
        Path file = cache.resolve(JobTraining.RUNTIME_FILE);
        return Files.isRegularFile(file) ? Optional.of(Files.readString(file)) : Optional.empty();
    }

    /** jompd's own libomp, as the training would fall back to it. */
    private static Optional<String> ownRuntime() throws IOException {
        Optional<Path> own = OpenMpLaunch.findRuntime(System.getenv());
        return own.isPresent() ? Optional.of(own.get().toRealPath().toString()) : Optional.empty();
    }

    /** The file process {@code pid} maps under {@code name}, from its /proc/PID/maps. */
    private static String mapped(long pid, String name) throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc/" + pid + "/maps"))) {
            return lines.filter(line -> line.endsWith("/" + name)).map(line -> line.substring(line.indexOf('/')))
                    .findFirst().orElseThrow();
        }
    }

    /** Every process that maps {@code file}. */
    private static List<Long> processesMapping(Path file) throws IOException {
        List<Long> found = new ArrayList<>();
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path process : processes.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try (Stream<String> lines = Files.lines(process.resolve("maps"))) {
                    if (lines.anyMatch(line -> line.endsWith(" " + file))) {
                        found.add(Long.parseLong(process.getFileName().toString()));
                    }
                } catch (IOException | java.io.UncheckedIOException gone) {
                    // ended meanwhile, or not ours to read
                }
            }
        }
        return found;
    }

    private static void chown(Path path, int uid) throws IOException {
        Files.setAttribute(path, "unix:uid", uid);
        Files.setAttribute(path, "unix:gid", uid);
    }
}
