package dev.jompd.core.ompd;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.jompd.testkit.Commands;
import dev.jompd.testkit.GdbProbe;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Address-space ICVs, display control variables and versions against what the program saw and set. */
class ProcessIcvsIT {

    static FixtureRun icvsFromEnvironment(int version) {
        return FixtureRun.of(Fixture.ICVS)
                .withEnvironment("OMP_NUM_THREADS", "4,3,2")
                .withEnvironment("OMP_STACKSIZE", "3M")
                .withEnvironment("OMP_CANCELLATION", "true")
                .withEnvironment("OMP_MAX_TASK_PRIORITY", "7")
                .withEnvironment("OMP_DISPLAY_AFFINITY", "false")
                .withEnvironment("OMP_AFFINITY_FORMAT", "jompd %n/%N")
                .withEnvironment("OMP_DEFAULT_DEVICE", "0")
                .withEnvironment("OMP_TOOL_LIBRARIES", "/nonexistent/libtool.so")
                .withEnvironment("OMP_WAIT_POLICY", "active")
                .withEnvironment("OMP_PROC_BIND", "spread,close")
                // two process-wide numbers the program reads back (omp_get_max_teams, omp_get_teams_thread_limit),
                // different from each other and from the defaults
                .withEnvironment("OMP_NUM_TEAMS", "3")
                .withEnvironment("OMP_TEAMS_THREAD_LIMIT", "5")
                .onRuntime(version);
    }

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void addressSpaceIcvsEqualWhatTheProgramSet(int version, @TempDir Path scratch) throws IOException {
        StoppedFixture fixture = Fixtures.core(icvsFromEnvironment(version));
        Facts facts = fixture.facts();
        AddressSpaceHandle process = Targets.process(fixture);

        assertThat(value(process, Icv.STACKSIZE_VAR)).isEqualTo(3L * 1024 * 1024);
        assertThatThrownBy(() -> Icvs.value(process, Scope.ADDRESS_SPACE, Icv.AFFINITY_FORMAT_VAR))
                .isInstanceOfSatisfying(OmpdException.class, e -> assertThat(e.rc()).isEqualTo(OmpdRc.INCOMPATIBLE));
        // Every ICV of the address space, its number and its words, each against a truth jompd did not read: what
        // the program asked the OpenMP API (its facts), the environment the test set, or gdb's value of the
        // runtime's global (its DWARF type); a string ICV has no number (incompatible).
        GdbProbe gdb = fixture.gdb();
        Map<Icv, IcvTruth> truth = new LinkedHashMap<>();
        truth.put(Icv.STACKSIZE_VAR, IcvTruth.number(global(gdb, "__kmp_stksize"), "3145728")); // OMP_STACKSIZE=3M
        truth.put(Icv.CANCEL_VAR, IcvTruth.number(facts.number("icv.cancellation"), "true")); // OMP_CANCELLATION=true
        truth.put(Icv.MAX_TASK_PRIORITY_VAR, IcvTruth.number(facts.number("icv.max_task_priority"),
                facts.get("env.OMP_MAX_TASK_PRIORITY")));
        truth.put(Icv.DEBUG_VAR, IcvTruth.number(global(gdb, "ompd_state != 0"), "true")); // OMP_DEBUG=enabled
        truth.put(Icv.DISPLAY_AFFINITY_VAR, IcvTruth.number(global(gdb, "__kmp_display_affinity"),
                facts.get("env.OMP_DISPLAY_AFFINITY")));
        truth.put(Icv.AFFINITY_FORMAT_VAR, IcvTruth.text(facts.get("icv.affinity_format")));
        truth.put(Icv.TOOL_VAR, IcvTruth.number(global(gdb, "__kmp_tool"), "true")); // OMP_TOOL unset: enabled
        truth.put(Icv.TOOL_LIBRARIES_VAR, IcvTruth.text(facts.get("env.OMP_TOOL_LIBRARIES")));
        // OMP_TOOL_VERBOSE_INIT unset: the runtime's pointer is null, the ICV empty
        assertThat(global(gdb, "__kmp_tool_verbose_init == 0")).as("__kmp_tool_verbose_init is null").isEqualTo(1);
        truth.put(Icv.TOOL_VERBOSE_INIT_VAR, IcvTruth.text(""));
        truth.put(Icv.NUM_PROCS_VAR, IcvTruth.number(facts.number("icv.num_procs"), facts.get("icv.num_procs")));
        truth.put(Icv.OMPD_NUM_PROCS_VAR, IcvTruth.number(facts.number("icv.num_procs"), facts.get("icv.num_procs")));
        // no OMP_SCHEDULE: libomp's default static schedule (kmp_sch_static_balanced in gdb's enum)
        assertThat(gdb.evaluate("__kmp_static == kmp_sch_static_balanced").asLong()).isEqualTo(1);
        truth.put(Icv.DEF_SCHED_VAR, IcvTruth.number(global(gdb, "__kmp_static"), "static"));
        truth.put(Icv.WAIT_POLICY_VAR, IcvTruth.number(global(gdb, "__kmp_library"), facts.get("env.OMP_WAIT_POLICY")));
        // no OMP_TARGET_OFFLOAD, no OMP_ALLOCATOR: the defaults, as gdb's enums name them
        assertThat(gdb.evaluate("__kmp_target_offload == tgt_default").asLong()).isEqualTo(1);
        truth.put(Icv.TARGET_OFFLOAD_VAR, IcvTruth.number(global(gdb, "__kmp_target_offload"), "default"));
        assertThat(gdb.evaluate("__kmp_def_allocator == omp_default_mem_alloc").asLong()).isEqualTo(1);
        truth.put(Icv.DEF_ALLOCATOR_VAR, IcvTruth.number(global(gdb, "__kmp_def_allocator"), "omp_default_mem_alloc"));
        assertThat(List.of(facts.number("icv.num_teams"), facts.number("icv.teams_thread_limit")))
                .as("OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT as the program read them").containsExactly(3L, 5L);
        truth.put(Icv.NTEAMS_VAR, IcvTruth.number(facts.number("icv.num_teams"), facts.get("icv.num_teams")));
        truth.put(Icv.TEAMS_THREAD_LIMIT_VAR, IcvTruth.number(facts.number("icv.teams_thread_limit"),
                facts.get("icv.teams_thread_limit")));
        assertThat(Icv.ALL.stream().filter(icv -> icv.scope() == Scope.ADDRESS_SPACE).toList())
                .as("the address space's ICVs, each with its truth above").containsExactlyElementsOf(truth.keySet());
        Map<String, String> read = new LinkedHashMap<>();
        Map<String, String> expected = new LinkedHashMap<>();
        truth.forEach((icv, known) -> {
            expected.put(icv.name(), known.value().map(Object::toString).orElse("incompatible") + " " + known.string());
            String number;
            try {
                number = Long.toString(Icvs.value(process, Scope.ADDRESS_SPACE, icv).value());
            } catch (OmpdException e) {
                number = e.rc() == OmpdRc.INCOMPATIBLE ? "incompatible" : e.getMessage();
            }
            String string;
            try {
                string = Icvs.string(process, Scope.ADDRESS_SPACE, icv);
            } catch (OmpdException e) {
                string = e.getMessage();
            }
            read.put(icv.name(), number + " " + string);
        });
        assertThat(read).as("libomp %d: value and string of each address-space ICV", version).isEqualTo(expected);
        assertThat(Ompd.ompVersion(process)).isIn(201611L, 201811L, 202011L);
        assertThat(Ompd.ompVersionString(process)).contains(Long.toString(Ompd.ompVersion(process)));

        // libomp fills ompd_env_block in __kmp_do_serial_initialize *before* it parses the environment,
        // so the block shows the defaults (OMP_NUM_THREADS=undefined), not the user's settings. jompd
        // reports the block as the runtime holds it; the truth is gdb's reading of the same bytes: its text up to
        // the first NUL, one display control variable a line.
        Path dump = scratch.resolve("ompd_env_block");
        Commands.Result gdbDump = Commands.run(List.of("gdb", "-batch", "-nx", "-ex",
                "dump binary memory " + dump + " ompd_env_block ompd_env_block+ompd_env_block_size",
                fixture.executable().toString(), fixture.core().toString()), Map.of(), null, Duration.ofSeconds(120));
        assertThat(Files.exists(dump)).as("gdb dumped the block:\n" + gdbDump.output()).isTrue();
        byte[] block = Files.readAllBytes(dump);
        assertThat((long) block.length).isEqualTo(fixture.gdb().evaluate("ompd_env_block_size").asLong());
        int end = 0;
        while (end < block.length && block[end] != 0) {
            end++;
        }
        List<String> gdbLines = List.of(new String(block, 0, end, StandardCharsets.UTF_8).split("\n")).stream()
                .filter(line -> !line.isEmpty()).toList();
        assertThat(Ompd.displayControlVariables(process)).isEqualTo(gdbLines);
    }

    /** What an address-space ICV must read: its number (none for a string ICV) and its words. */
    private record IcvTruth(Optional<Long> value, String string) {
        static IcvTruth number(long value, String string) {
            return new IcvTruth(Optional.of(value), string);
        }

        static IcvTruth text(String string) {
            return new IcvTruth(Optional.empty(), string);
        }
    }

    /** gdb's value of a runtime global (or an expression over them), read with its DWARF type. */
    private static long global(GdbProbe gdb, String expression) {
        return gdb.evaluate(expression).asLong();
    }

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void nestedListsFollowTheLevels(int version) {
        StoppedFixture fixture = Fixtures.core(icvsFromEnvironment(version));
        AddressSpaceHandle process = Targets.process(fixture);
        ThreadHandle initial = Ompd.threadHandle(process, ThreadIdKind.GTID, 0);
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            ThreadHandle thread = Ompd.threadHandle(process, ThreadIdKind.LWP, facts.lwp());
            String nthreads = Icvs.string(thread, Scope.THREAD, Icv.NTHREADS_VAR);
            // The list's head is what omp_get_max_threads() answered; its tail the environment's levels below this
            // thread's level (OMP_NUM_THREADS above).
            assertThat(nthreads).as(facts + " nthreads-var").isEqualTo(levelList(facts.get("max_threads"),
                    List.of("4", "3", "2"), facts.level()));
            Icvs.IcvValue head = Icvs.value(thread, Scope.THREAD, Icv.NTHREADS_VAR);
            assertThat(head.value()).isEqualTo(facts.number("max_threads"));
            assertThat(head.incomplete()).isEqualTo(nthreads.contains(","));
            // bind-var likewise: omp_get_proc_bind()'s answer (OpenMP's omp_proc_bind_t names), then OMP_PROC_BIND's
            String bind = Icvs.string(thread.currentTask(), Scope.TASK, Icv.BIND_VAR);
            assertThat(bind).as(facts + " bind-var").isEqualTo(levelList(
                    List.of("false", "true", "primary", "close", "spread").get((int) facts.number("proc_bind")),
                    List.of("spread", "close"), facts.level()));
        }
        // gtid 0 is the initial thread: the process's own (its LWP is the pid)
        assertThat(initial.threadId(ThreadIdKind.LWP)).isEqualTo(fixture.facts().number("pid"));
    }

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void toolDataIsWhatTheProgramsToolStored(int version) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.OMPT_TOOL, "3").onRuntime(version));
        AddressSpaceHandle process = Targets.process(fixture);
        // ompt_tool 3: 3 outer threads of 2 inner ones each, every one of them records what its tool inquiry answered
        // for its thread, its parallel region and its task (a missing fact is a failure, not a thread skipped)
        assertThat(fixture.facts().threadCount()).isEqualTo(3 * 2);
        Map<Long, List<Long>> read = new LinkedHashMap<>();
        Map<Long, List<Long>> recorded = new LinkedHashMap<>();
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            ThreadHandle thread = Ompd.threadHandle(process, ThreadIdKind.LWP, facts.lwp());
            recorded.put(facts.lwp(), List.of(facts.number("tool.thread_data"), facts.number("tool.parallel_data"),
                    facts.number("tool.task_data")));
            read.put(facts.lwp(), List.of(thread.toolData().value(), thread.currentParallel().toolData().value(),
                    thread.currentTask().toolData().value()));
        }
        assertThat(read).as("thread, parallel and task data of each LWP").hasSize(3 * 2).isEqualTo(recorded);
    }

    /** A nested-level list as the ICV's words: {@code head}, then the environment's entries below {@code level}. */
    private static String levelList(String head, List<String> environment, int level) {
        List<String> list = new java.util.ArrayList<>(List.of(head));
        list.addAll(environment.subList(Math.min(level + 1, environment.size()), environment.size()));
        return String.join(",", list);
    }

    private static long value(AddressSpaceHandle process, Icv icv) {
        return Icvs.value(process, Scope.ADDRESS_SPACE, icv).value();
    }

    private static String string(AddressSpaceHandle process, Icv icv) {
        return Icvs.string(process, Scope.ADDRESS_SPACE, icv);
    }
}
