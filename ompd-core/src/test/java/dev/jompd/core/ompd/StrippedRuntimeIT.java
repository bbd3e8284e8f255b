package dev.jompd.core.ompd;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.ompd.profile.RuntimeProfile;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StockRuntimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Stripped OMPD-enabled libomp read through runtime profiles: Debian's own libomp5-14/15/16/19 (truth: the
 * facts the fixture recorded about itself) and our builds after {@code strip --strip-all} (truth: the same
 * core read through the unstripped file, which must give the same snapshot field for field).
 */
class StrippedRuntimeIT {

    @ParameterizedTest(name = "our libomp {0}, stripped")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void strippedBuildReadsAsTheUnstrippedOne(int version) throws IOException {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3").onRuntime(version));
        ProcessSnapshot bySymbols;
        try (AddressSpace unstripped = CoreFileAddressSpace.open(fixture.core())) {
            AddressSpaceHandle process = Ompd.processInitialize(unstripped);
            assertThat(process.layout().reading()).isEqualTo(RuntimeReading.symbols());
            bySymbols = ProcessSnapshot.take(process);
        }
        try (AddressSpace stripped = CoreFileAddressSpace.builder(fixture.core())
                .withSolibSearchPath(List.of(StockRuntimes.strippedCopy(version))).open()) {
            AddressSpaceHandle process = Ompd.processInitialize(stripped);
            assertThat(process.layout().reading().source()).isEqualTo(RuntimeReading.Source.PROFILE);
            assertThat(process.layout().reading().toString()).startsWith("profile libomp " + version + ".");
            assertThat(ProcessSnapshot.take(process)).isEqualTo(bySymbols);
        }
    }

    /**
     * A teams construct on a stripped runtime, which does not name {@code __kmp_teams_master}: the league is known by
     * its threads' teams state alone (the teams layout chosen by the breadcrumbs the profile found), and the
     * snapshot, each team's implicit parallel region with its number and the league's size, is the one the
     * symbols give.
     */
    @ParameterizedTest(name = "our libomp {0}, stripped: teams 2 2")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void aTeamsConstructReadsOnAStrippedBuildAsOnTheUnstrippedOne(int version) throws IOException {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TEAMS, "2", "2").onRuntime(version));
        ProcessSnapshot bySymbols;
        try (AddressSpace unstripped = CoreFileAddressSpace.open(fixture.core())) {
            bySymbols = ProcessSnapshot.take(Ompd.processInitialize(unstripped));
        }
        assertThat(bySymbols.regions().values().stream().filter(r -> r.teams().isPresent())
                .map(r -> r.teams().get().teamNumber())).as(bySymbols.problems().toString()).containsExactlyInAnyOrder(0L, 1L);
        try (AddressSpace stripped = CoreFileAddressSpace.builder(fixture.core())
                .withSolibSearchPath(List.of(StockRuntimes.strippedCopy(version))).open()) {
            AddressSpaceHandle process = Ompd.processInitialize(stripped);
            assertThat(process.layout().reading().source()).isEqualTo(RuntimeReading.Source.PROFILE);
            assertThat(process.layout().symbol("__kmp_teams_master")).isEmpty();
            assertThat(ProcessSnapshot.take(process)).isEqualTo(bySymbols);
        }
    }

    /** A teams construct on Debian's own stripped libomp5-NN: each team's region as the program's threads say. */
    @ParameterizedTest(name = "Debian libomp5-{0}: teams 3 2", allowZeroInvocations = true)
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#testedWithStockBuild")
    void debiansStockRuntimeShowsEachTeamAsTheProgramSawIt(int version) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TEAMS, "3", "2").onRuntime(version)
                .withEnvironment("LD_LIBRARY_PATH", StockRuntimes.debian(version).toString()));
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            assertThat(process.layout().reading().toString()).startsWith("profile libomp " + version + ".");
            for (Facts.ThreadFacts thread : fixture.facts().threads()) {
                ParallelHandle inner = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp()).currentParallel();
                ParallelHandle team = inner.enclosing();
                assertThat(team.teams().teamNumber()).as(thread.toString()).isEqualTo(thread.number("team_num"));
                assertThat(team.teams().leagueSize()).isEqualTo(thread.number("num_teams")).isEqualTo(3);
                assertThat(team.teamSize()).isEqualTo(1);
                assertThat(inner.teamSize()).isEqualTo(thread.teamSize());
            }
        }
    }

    // none when the run tests no runtime with a stock build here (JOMPD_RUNTIMES=21,22, say)
    @ParameterizedTest(name = "Debian libomp5-{0}", allowZeroInvocations = true)
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#testedWithStockBuild")
    void debiansStockRuntimeIsReadThroughItsProfile(int version) {
        StoppedFixture fixture = debianCore(version);
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            assertThat(process.layout().reading().toString()).startsWith("profile libomp " + version + ".");
            ProcessSnapshot snapshot = ProcessSnapshot.take(process);
            // Measured facts for the record: where each global was placed, or why not.
            for (String global : dev.jompd.core.ompd.profile.ProfileDeriver.PROFILED_GLOBALS) {
                System.out.println("libomp5-" + version + " " + global + ": " + process.layout().symbol(global)
                        .map(s -> "by " + process.layout().profilePlacement(global).orElse("its exported symbol")).orElse("unavailable: " + process.layout().whyAbsent(global).orElse("?")));
            }
            System.out.println("libomp5-" + version + " problems: " + snapshot.problems());
            Facts facts = fixture.facts();
            assertThat(pthreads(snapshot)).as("the OpenMP threads").isEqualTo(recordedPthreads(facts));
            for (Facts.ThreadFacts recorded : facts.threads()) {
                ProcessSnapshot.ThreadView thread = snapshot.threads().stream()
                        .filter(t -> t.pthread() == recorded.pthread()).findFirst()
                        .orElseThrow(() -> new AssertionError("no OpenMP thread with pthread " + recorded));
                assertThat(thread.lwp()).as("lwp of " + recorded).hasValue(recorded.lwp());
                assertThat(thread.threadNum()).as("thread num of " + recorded).isEqualTo(recorded.threadNum());
                recorded.find("gtid").ifPresent(gtid -> assertThat(thread.gtid()).isEqualTo(Long.decode(gtid)));
            }
        }
    }

    /**
     * Process ICVs set through the environment, on Debian's runtime: each one shown equals what the program
     * read through the OpenMP API; one whose global no placement validated is absent, never wrong.
     */
    // none when the run tests no runtime with a stock build here (JOMPD_RUNTIMES=21,22, say)
    @ParameterizedTest(name = "Debian libomp5-{0}", allowZeroInvocations = true)
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#testedWithStockBuild")
    void debiansStockRuntimeShowsProcessIcvsAsTheProgramSawThemOrNone(int version) {
        FixtureRun run = FixtureRun.of(Fixture.ICVS).onRuntime(version)
                .withEnvironment("LD_LIBRARY_PATH", StockRuntimes.debian(version).toString())
                .withEnvironment("OMP_STACKSIZE", "3M")
                .withEnvironment("OMP_CANCELLATION", "true")
                .withEnvironment("OMP_MAX_TASK_PRIORITY", "7")
                .withEnvironment("OMP_AFFINITY_FORMAT", "jompd %n/%N")
                .withEnvironment("OMP_NUM_TEAMS", "3")
                .withEnvironment("OMP_TEAMS_THREAD_LIMIT", "5");
        StoppedFixture fixture = Fixtures.core(run);
        Facts facts = fixture.facts();
        Map<String, String> globals = Map.of("stacksize-var", "__kmp_stksize", "cancel-var", "__kmp_omp_cancellation",
                "max-task-priority-var", "__kmp_max_task_priority", "num-procs-var", "__kmp_avail_proc",
                "affinity-format-var", "__kmp_affinity_format", "nteams-var", "__kmp_nteams",
                "teams-thread-limit-var", "__kmp_teams_thread_limit");
        Map<String, String> truth = new java.util.LinkedHashMap<>();
        truth.put("stacksize-var", Long.toString(3L << 20));
        truth.put("cancel-var", facts.number("icv.cancellation") != 0 ? "true" : "false");
        truth.put("max-task-priority-var", facts.get("icv.max_task_priority"));
        truth.put("num-procs-var", facts.get("icv.num_procs"));
        truth.put("affinity-format-var", facts.get("icv.affinity_format"));
        truth.put("nteams-var", facts.get("icv.num_teams"));
        truth.put("teams-thread-limit-var", facts.get("icv.teams_thread_limit"));
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            ProcessSnapshot snapshot = ProcessSnapshot.take(process);
            truth.forEach((icv, expected) -> {
                IcvReading shown = snapshot.processIcvs().get(icv);
                if (shown instanceof IcvReading.Failed(OmpdRc rc, String reason) && rc == OmpdRc.UNAVAILABLE) {
                    System.out.println("libomp5-" + version + " " + icv + " unavailable");
                    assertThat(process.layout().whyAbsent(globals.get(icv))).as("why " + icv + " is missing")
                            .hasValueSatisfying(why -> assertThat(why).contains("content check"));
                } else {
                    assertThat(shown).as(icv).isEqualTo(new IcvReading.Value(expected));
                }
            });
        }
    }

    /**
     * Lock holders on Debian's stripped libomp5-NN: the profile places {@code __kmp_i_lock_table} (checked by
     * its content; in 16 and 19 Debian's lock unit sits 8 bytes from where ours does, and the one place nearby
     * whose locks point to themselves is taken), and the nest-lock deadlock's locks name the holders, depths and
     * waiters the program recorded.
     */
    // none when the run tests no runtime with a stock build here (JOMPD_RUNTIMES=21,22, say)
    @ParameterizedTest(name = "Debian libomp5-{0}", allowZeroInvocations = true)
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#testedWithStockBuild")
    void debiansStockRuntimeNamesTheNestLocksHolders(int version) {
        StoppedFixture fixture = Fixtures.core(StockRuntimes.onDebian(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest"), version));
        Facts facts = fixture.facts();
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            assertThat(process.layout().reading().toString()).startsWith("profile libomp " + version + ".");
            assertThat(process.layout().symbol("__kmp_i_lock_table")).as(process.layout().whyAbsent("__kmp_i_lock_table")
                    .orElse("")).isPresent();
            RuntimeLocks locks = RuntimeLocks.read(process);
            assertThat(locks.unavailable()).isEmpty();
            List<ProcessSnapshot.ThreadView> threads = ProcessSnapshot.take(process).threads();
            java.util.function.Function<Facts.ThreadFacts, Long> gtid = thread -> threads.stream()
                    .filter(t -> t.lwp().equals(java.util.OptionalLong.of(thread.lwp()))).findFirst().orElseThrow().gtid();
            for (String name : List.of("A", "B")) {
                RuntimeLocks.Lock lock = RuntimeLocks.userLock(process, Long.decode(facts.get("hang.lock." + name + ".address")));
                assertThat(lock.kind()).isEqualTo(LockKind.NESTED_QUEUING);
                assertThat(lock.holder()).as(lock.evidence()).isEqualTo(new RuntimeLocks.Holder.Owner(
                        gtid.apply(facts.thread((int) facts.number("hang.lock." + name + ".holder"))),
                        java.util.OptionalLong.of(facts.number("hang.lock." + name + ".depth"))));
                Facts.ThreadFacts waiter = facts.threads().stream()
                        .filter(t -> t.find("waits_for").orElse("").equals(name)).findFirst().orElseThrow();
                assertThat(lock.waiters()).containsExactly(gtid.apply(waiter));
                assertThat(locks.byObject(lock.object())).contains(lock);
            }
        }
    }

    /**
     * Our builds after strip --strip-all: the profile places the lock table where the unstripped file's symbol is,
     * and its locks are the table's entries as gdb reads them through the unstripped file (index and lock object).
     */
    @ParameterizedTest(name = "our libomp {0}, stripped")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void theLockTableIsPlacedWhereTheSymbolIs(int version) throws IOException {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest").onRuntime(version));
        long bySymbol;
        try (AddressSpace unstripped = CoreFileAddressSpace.open(fixture.core())) {
            bySymbol = Ompd.processInitialize(unstripped).layout().symbolAddress("__kmp_i_lock_table");
        }
        // libomp: __kmp_i_lock_table.table[row][col].lock for each used index (< next), KMP_I_LOCK_CHUNK a row
        dev.jompd.testkit.GdbProbe gdb = fixture.gdb();
        assertThat(gdb.evaluate("(long)__kmp_i_lock_table.next_table").asLong()).as("one table").isZero();
        long used = gdb.evaluate("__kmp_i_lock_table.next").asLong();
        long chunk = LockLayout.shipped().chunk();
        List<String> entries = new java.util.ArrayList<>();
        for (long index = 0; index < used; index++) {
            entries.add("(long)__kmp_i_lock_table.table[" + index / chunk + "][" + index % chunk + "].lock");
        }
        Map<String, dev.jompd.testkit.GdbProbe.Value> objects = gdb.evaluate(entries);
        Map<Long, Long> truth = new java.util.TreeMap<>();
        for (long index = 0; index < used; index++) {
            long object = objects.get(entries.get((int) index)).asLong();
            if (object != 0) {
                truth.put(index, object);
            }
        }
        try (AddressSpace stripped = CoreFileAddressSpace.builder(fixture.core())
                .withSolibSearchPath(List.of(StockRuntimes.strippedCopy(version))).open()) {
            AddressSpaceHandle process = Ompd.processInitialize(stripped);
            assertThat(process.layout().reading().source()).isEqualTo(RuntimeReading.Source.PROFILE);
            assertThat(process.layout().symbolAddress("__kmp_i_lock_table")).isEqualTo(bySymbol);
            Map<Long, Long> read = new java.util.TreeMap<>();
            RuntimeLocks.read(process).locks().forEach(lock -> read.put(lock.index().orElseThrow(), lock.object()));
            assertThat(read).as("index -> lock object").isEqualTo(truth).hasSizeGreaterThanOrEqualTo(2);
        }
    }

    /** A live process on Debian's libomp5-19, attached with ptrace: the thread array validates against its threads. */
    @Test
    void aLiveProcessOnDebiansRuntimeIsReadThroughItsProfile() {
        FixtureRun run = FixtureRun.of(Fixture.NESTED, "2", "3").onRuntime(19)
                .withEnvironment("LD_LIBRARY_PATH", StockRuntimes.debian(19).toString());
        try (LiveFixture live = Fixtures.live(run)) {
            try (LiveProcessAddressSpace target = LiveProcessAddressSpace.attach(live.pid())) {
                AddressSpaceHandle process = Ompd.processInitialize(target);
                assertThat(process.layout().reading().toString()).isEqualTo("profile libomp 19.1.7");
                ProcessSnapshot snapshot = ProcessSnapshot.take(process);
                for (Facts.ThreadFacts recorded : live.facts().threads()) {
                    assertThat(snapshot.threads()).as(recorded.toString())
                            .anyMatch(t -> t.pthread() == recorded.pthread() && t.lwp().equals(java.util.OptionalLong.of(recorded.lwp()))
                                    && t.threadNum() == recorded.threadNum());
                }
            }
        }
    }

    /** ompd_init() fills the breadcrumbs at start-up whether or not OMP_DEBUG is set: the profile still applies. */
    @Test
    void withoutOmpDebugDebiansRuntimeIsStillReadAndSaysStateTrackingIsOff() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "3").onRuntime(19)
                .withEnvironment("LD_LIBRARY_PATH", StockRuntimes.debian(19).toString()).withEnvironment("OMP_DEBUG", "disabled"));
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            AddressSpaceHandle process = Ompd.processInitialize(target);
            assertThat(process.layout().reading().source()).isEqualTo(RuntimeReading.Source.PROFILE);
            ProcessSnapshot snapshot = ProcessSnapshot.take(process);
            assertThat(snapshot.processIcvs().get("debug-var")).isEqualTo(new IcvReading.Value("false"));
            assertThat(pthreads(snapshot)).as("the OpenMP threads").isEqualTo(recordedPthreads(fixture.facts()));
        }
    }

    /** Stopped at main, before the first OpenMP call: said to be not initialised (exit 4), not refused. */
    @Test
    void beforeStartUpDebiansRuntimeIsSaidNotInitialised(@org.junit.jupiter.api.io.TempDir Path directory) throws IOException {
        Path executable = dev.jompd.testkit.FixtureBuilder.executable(Fixture.PARALLEL, 19);
        Path core = directory.resolve("core");
        Commands.Result result = Commands.run(List.of("gdb", "-batch", "-nx", "-ex", "set debuginfod enabled off",
                        "-ex", "set startup-with-shell off", "-ex", "break main", "-ex", "run", "-ex", "gcore " + core, "-ex", "kill",
                        "--args", executable.toString(), "2"),
                Map.of("LD_LIBRARY_PATH", StockRuntimes.debian(19).toString()), directory, Duration.ofMinutes(2));
        assertThat(core).as(result.output()).isRegularFile();
        try (AddressSpace target = CoreFileAddressSpace.open(core)) {
            assertThatThrownBy(() -> Ompd.processInitialize(target))
                    .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.UNAVAILABLE))
                    .hasMessageContaining("not initialised yet");
        }
    }

    @Test
    void aVersionNoProfileCoversIsRefusedNamingIt() {
        StoppedFixture fixture = debianCore(19);
        List<RuntimeProfile> others = RuntimeProfile.shipped().stream().filter(p -> !p.majorVersion().equals("19")).toList();
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            assertThatThrownBy(() -> RuntimeLayout.locate(target, new TargetMemory(target), others))
                    .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.INCOMPATIBLE))
                    .hasMessageContaining("no runtime profile covers libomp 19");
        }
    }

    @Test
    void aProfileWhoseBreadcrumbsDoNotMatchIsRefused() {
        StoppedFixture fixture = debianCore(19);
        RuntimeProfile genuine = profile("19");
        RuntimeProfile.Breadcrumb first = genuine.breadcrumbs().getFirst();
        RuntimeProfile tampered = RuntimeProfile.parse(genuine.format().replace(
                "breadcrumb." + first.name() + "=" + first.offset() + " " + first.value() + "\n",
                "breadcrumb." + first.name() + "=" + first.offset() + " " + (first.value() + 1) + "\n"));
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            assertThatThrownBy(() -> RuntimeLayout.locate(target, new TargetMemory(target), List.of(tampered)))
                    .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.INCOMPATIBLE))
                    .hasMessageContaining("validation failed");
        }
    }

    @Test
    void aThreadArrayPlacedWrongFailsValidationAndIsRefused() {
        StoppedFixture fixture = debianCore(19);
        RuntimeProfile genuine = profile("19");
        String text = genuine.format().replaceAll("(?m)^global\\.__kmp_threads=.*$", "global.__kmp_threads=__kmp_thread_pool:-64");
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            assertThatThrownBy(() -> RuntimeLayout.locate(target, new TargetMemory(target), List.of(RuntimeProfile.parse(text))))
                    .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.INCOMPATIBLE))
                    .hasMessageContaining("failed validation").hasMessageContaining("__kmp_threads");
        }
    }

    /**
     * Two profiles that fit Debian's 19 equally well (every core global validates, as many globals placed) but
     * place one global apart, each place passing its check (the copy reads a word of the breadcrumb block that
     * holds 0, a valid cancel-var): which is right cannot be told, so that global is withheld, and the reading
     * says so; the others are read. (From a directory naming no version: the path decides nothing.)
     */
    @Test
    void twoProfilesThatFitEquallyButPlaceAGlobalApartWithholdItAndSaySo(@org.junit.jupiter.api.io.TempDir Path directory)
            throws IOException {
        Path library = Files.createDirectories(directory.resolve("lib"));
        Files.copy(StockRuntimes.debian(19).resolve("libomp.so.5"), library.resolve("libomp.so.5"));
        Files.createSymbolicLink(library.resolve("libomp.so"), Path.of("libomp.so.5"));
        StoppedFixture fixture = Fixtures.makeCore(FixtureRun.of(Fixture.NESTED, "2", "3")
                .withEnvironment("LD_LIBRARY_PATH", library.toString()), directory.resolve("run"));
        RuntimeProfile genuine = profile("19");
        RuntimeProfile.Breadcrumb zero = genuine.breadcrumbs().stream().filter(crumb -> crumb.value() == 0).findFirst().orElseThrow();
        RuntimeProfile other = RuntimeProfile.parse(genuine.format().replace("version=19.1.7", "version=19.9.9")
                .replaceAll("(?m)^global\\.__kmp_omp_cancellation=.*$",
                        "global.__kmp_omp_cancellation=" + RuntimeProfile.BREADCRUMB_ANCHOR + ":" + zero.offset()));
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            RuntimeLayout layout = RuntimeLayout.locate(target, new TargetMemory(target), List.of(genuine, other));
            assertThat(layout.reading().toString()).isEqualTo("profile libomp 19.1.7 (the profile of libomp 19.9.9 fits "
                    + "its memory as well, but places __kmp_omp_cancellation elsewhere: not shown, as which place is "
                    + "right cannot be told)");
            assertThat(layout.symbol("__kmp_omp_cancellation")).isEmpty();
            assertThat(layout.whyAbsent("__kmp_omp_cancellation")).hasValueSatisfying(why ->
                    assertThat(why).contains("19.1.7 and 19.9.9").contains("cannot be told"));
            try (AddressSpace unchosen = CoreFileAddressSpace.open(fixture.core())) {
                RuntimeLayout alone = RuntimeLayout.locate(unchosen, new TargetMemory(unchosen), List.of(genuine));
                assertThat(layout.symbolAddress("__kmp_threads")).isEqualTo(alone.symbolAddress("__kmp_threads"));
                assertThat(alone.symbol("__kmp_omp_cancellation")).isPresent();
            }
        }
    }

    @Test
    void anIcvGlobalPlacedWrongIsUnavailableWithWhyNeverWrong() {
        StoppedFixture fixture = debianCore(19);
        String text = profile("19").format().replaceAll("(?m)^global\\.__kmp_omp_cancellation=.*$",
                "global.__kmp_omp_cancellation=__kmp_thread_pool:-72"); // the thread array's pointer: no 0/1 flag
        try (AddressSpace target = CoreFileAddressSpace.open(fixture.core())) {
            TargetMemory memory = new TargetMemory(target);
            RuntimeLayout layout = RuntimeLayout.locate(target, memory, List.of(RuntimeProfile.parse(text)));
            assertThat(layout.symbol("__kmp_omp_cancellation")).isEmpty();
            assertThat(layout.whyAbsent("__kmp_omp_cancellation")).hasValueSatisfying(why ->
                    assertThat(why).contains("content check").contains("outside 0..1"));
        }
    }

    /** The pthread ids of the OpenMP threads a snapshot shows. */
    static java.util.Set<Long> pthreads(ProcessSnapshot snapshot) {
        return new java.util.TreeSet<>(snapshot.threads().stream().map(ProcessSnapshot.ThreadView::pthread).toList());
    }

    /** The pthread ids of the threads the program recorded: every OpenMP thread of the fixtures used here. */
    static java.util.Set<Long> recordedPthreads(Facts facts) {
        return new java.util.TreeSet<>(facts.threads().stream().map(Facts.ThreadFacts::pthread).toList());
    }

    private static RuntimeProfile profile(String major) {
        return RuntimeProfile.shipped().stream().filter(p -> p.majorVersion().equals(major)).findFirst().orElseThrow();
    }

    /** A core of the nested fixture (built on our libomp of that version) running on Debian's libomp5-NN. */
    static StoppedFixture debianCore(int version) {
        return Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3").onRuntime(version)
                .withEnvironment("LD_LIBRARY_PATH", StockRuntimes.debian(version).toString()));
    }




}
