package dev.jompd.core.ompd;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Prerequisite;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;
import dev.jompd.testkit.SupportedRuntimes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Differential test against LLVM's reference libompd: for every fixture, the reference answers the
 * OMPD queries through its own gdb plugin ({@code src/test/resources/reference/dump_reference.py});
 * every value it answers must be jompd's value for the same thread, region, task and ICV, except the
 * differences listed in {@link OnPurpose}, each with its reason. A summary table shows per fixture what
 * the reference answered, what it failed on (with its return codes or gdb crashes), and where jompd
 * answers and the reference does not.
 */
public class ReferenceDifferentialIT {

    /** Every scenario on every tested runtime whose LLVM ships the reference gdb plugin, beside that version's reference. */
    static Stream<FixtureRun> runs() {
        return SupportedRuntimes.testedWithReferencePlugin().flatMap(version -> scenarios().map(run -> run.onRuntime(version)));
    }

    static Stream<FixtureRun> scenarios() {
        return Stream.of(
                FixtureRun.of(Fixture.PARALLEL, "4"),
                FixtureRun.of(Fixture.NESTED, "2", "2"),
                FixtureRun.of(Fixture.NESTED, "4", "4"),
                FixtureRun.of(Fixture.SERIALIZED, "3", "3"),
                FixtureRun.of(Fixture.TASKS, "200"),
                FixtureRun.of(Fixture.WAITS),
                FixtureRun.of(Fixture.ICVS, "env")
                        .withEnvironment("OMP_NUM_THREADS", "4,3,2")
                        .withEnvironment("OMP_PROC_BIND", "spread,close")
                        .withEnvironment("OMP_SCHEDULE", "nonmonotonic:dynamic,7")
                        .withEnvironment("OMP_MAX_ACTIVE_LEVELS", "3")
                        .withEnvironment("OMP_THREAD_LIMIT", "64")
                        .withEnvironment("OMP_STACKSIZE", "3M")
                        .withEnvironment("OMP_CANCELLATION", "true")
                        .withEnvironment("OMP_MAX_TASK_PRIORITY", "7")
                        .withEnvironment("OMP_AFFINITY_FORMAT", "jompd %n/%N")
                        .withEnvironment("OMP_TOOL_LIBRARIES", "/nonexistent/libtool.so")
                        .withEnvironment("OMP_DEFAULT_DEVICE", "0"),
                FixtureRun.of(Fixture.OMPT_TOOL, "3"),
                // An inner region of one thread is serialized: settles whose tool data is right there.
                FixtureRun.of(Fixture.OMPT_TOOL, "2", "1"));
    }

    private static final Map<String, Summary> SUMMARIES = new LinkedHashMap<>();
    private static final Map<Path, Reference> REFERENCES = new java.util.concurrent.ConcurrentHashMap<>();

    /** The reference's dump of a fixture's core, once per core and JVM. */
    static Reference referenceOf(StoppedFixture fixture) {
        return REFERENCES.computeIfAbsent(fixture.core(),
                core -> Reference.dump(fixture, core.resolveSibling("reference")));
    }

    @BeforeAll
    static void referencePluginIsThere() {
        Path plugin = Runtimes.referenceGdbPluginDirectory(Runtimes.DEFAULT_VERSION);
        // each other version's plugin is checked where its dump starts (Reference.dump)
        // on CI a missing plugin or gdb fails the run: a skip would pass with nothing compared
        Prerequisite.require(Files.isRegularFile(plugin.resolve("ompd/ompd.py"))
                        && Files.isRegularFile(plugin.resolve("ompd/ompdModule.so")),
                () -> "LLVM's reference gdb plugin is not in " + plugin + " (scripts/build-runtime.sh builds it)");
        Prerequisite.require(Commands.available("gdb"), "gdb is not installed: run scripts/setup-system.sh");
        Prerequisite.require(runs().findAny().isPresent(), "no tested runtime's LLVM ships the reference gdb plugin (16 and later do)");
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true) // none when no tested runtime has the plugin
    @MethodSource("runs")
    void jompdAnswersWhatTheReferenceAnswers(FixtureRun run) {
        StoppedFixture fixture = Fixtures.core(run);
        Reference reference = referenceOf(fixture);
        assertThat(reference.complete()).as("the reference dump finished (after %d gdb runs)", reference.gdbRuns())
                .isTrue();
        // every runtime here ships the plugin (runs()): a reference that cannot initialise is a failure, not a skip
        assertThat(reference.meta("init_failed")).as("the reference could not initialise").isEmpty();

        Summary summary = new Summary(run.label(), reference);
        List<String> unexpected = new ArrayList<>();
        try (AddressSpace core = Targets.core(fixture)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            Jompd jompd = new Jompd(process, false);
            Jompd shaped = new Jompd(process, true);
            for (Record record : reference.records()) {
                Answer answer = jompd.answer(record);
                summary.count(record, answer);
                if (!record.answered()) {
                    continue;
                }
                Optional<OnPurpose> reason = compare(record, answer, reference, shaped, jompd.handle(record.subject()));
                if (reason.isEmpty()) {
                    summary.agreed++;
                } else if (reason.get() == OnPurpose.NONE) {
                    unexpected.add(record.key() + ": reference " + record.describe() + ", jompd " + answer);
                } else {
                    summary.onPurpose.merge(reason.get().name() + (reason.get() == OnPurpose.LIGHTWEIGHT_CHAIN
                            ? " (" + record.query() + ")" : ""), 1, Integer::sum);
                }
            }
        }
        synchronized (SUMMARIES) {
            SUMMARIES.put(run.label(), summary);
        }
        System.out.println(summary.detail());
        // a reference that initialises but answers nothing must not pass with nothing compared: each thread's
        // state, ids, ICVs and its region's and task's are asked, 60 to 100 equal values per thread on 19 and 23
        assertThat(summary.agreed).as("values compared and agreed (%s): %s", run.label(), summary.detail())
                .isGreaterThanOrEqualTo(20 * fixture.facts().threadCount());
        assertThat(unexpected).as("values where jompd and the reference differ without a documented reason "
                + "(%s)", run.label()).isEmpty();
    }

    /**
     * Tool data along the region and task chains is what the program's own OMPT tool saw
     * ({@code ompt_get_parallel_info} / {@code ompt_get_task_info} at each ancestor level), with an active
     * and with a serialized inner region; the reference's answers are printed beside them.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("toolRuns")
    void toolDataAlongTheChainsIsWhatTheProgramsToolSaw(FixtureRun run) {
        StoppedFixture fixture = Fixtures.core(run);
        Reference reference = referenceOf(fixture);
        try (AddressSpace core = Targets.core(fixture)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            List<String> table = new ArrayList<>();
            for (var thread : fixture.facts().threads()) {
                List<String> parallelChain = Arrays.asList(thread.get("tool.parallel_data_chain").split(","));
                String subject = "lwp=" + thread.lwp();
                ThreadHandle handle = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp());
                ParallelHandle region = handle.currentParallel();
                for (int depth = 0; depth < parallelChain.size() - 1; depth++) {
                    String truth = parallelChain.get(depth);
                    String jompd = Long.toString(region.toolData().value());
                    String ref = reference.find("parallel", subject + ":p" + depth, "tool_data.value")
                            .map(Record::describe).orElse("-");
                    table.add("thread " + thread.index() + " region p" + depth + ": program " + truth + ", jompd "
                            + jompd + ", reference " + ref);
                    assertThat(jompd).as("thread %d region p%d tool data", thread.index(), depth).isEqualTo(truth);
                    region = region.enclosing();
                }
                List<String> taskChain = Arrays.asList(thread.get("tool.task_data_chain").split(","));
                TaskHandle task = handle.currentTask();
                for (int depth = 0; depth < taskChain.size(); depth++) {
                    String truth = taskChain.get(depth);
                    String jompd = Long.toString(task.toolData().value());
                    String ref = reference.find("task", subject + ":t" + depth, "tool_data.value")
                            .map(Record::describe).orElse("-");
                    table.add("thread " + thread.index() + " task t" + depth + ": program " + truth + ", jompd "
                            + jompd + ", reference " + ref);
                    assertThat(jompd).as("thread %d task t%d tool data", thread.index(), depth).isEqualTo(truth);
                    if (depth + 1 < taskChain.size()) {
                        task = task.generating();
                    }
                }
            }
            System.out.println("== tool data, " + run.label() + " (the program's own OMPT view vs jompd vs reference)");
            table.forEach(line -> System.out.println("   " + line));
        }
    }

    /**
     * A gdb crash inside a query loses only that query: the dump resumes after it in a new gdb run and
     * records the crash. Simulated with the script's test hook (gdb kills itself when the first
     * {@code state} query of each run starts).
     */
    @Test
    void aGdbCrashLosesOnlyTheCrashingQuery() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "4"));
        Reference clean = referenceOf(fixture);
        Reference crashing = Reference.dump(fixture.executable(), fixture.core(),
                fixture.core().resolveSibling("reference-crashing"), Map.of("JOMPD_REF_CRASH_QUERY", "state"));
        long threads = clean.records().stream().filter(r -> r.query().equals("state")).count();
        assertThat(crashing.complete()).isTrue();
        assertThat(crashing.crashes()).isEqualTo(threads);
        assertThat(crashing.gdbRuns()).isEqualTo((int) threads + 1);
        assertThat(crashing.records()).filteredOn(Record::crashed).extracting(Record::query).containsOnly("state");
        // Everything else is answered as in a clean run (wait_id comes with the state, so it is lost too).
        assertThat(crashing.records()).filteredOn(r -> !r.crashed())
                .containsExactlyInAnyOrderElementsOf(clean.records().stream()
                        .filter(r -> !r.query().equals("state") && !r.query().equals("wait_id")).toList());
    }

    static Stream<FixtureRun> toolRuns() {
        return Stream.of(FixtureRun.of(Fixture.OMPT_TOOL, "2", "1"), FixtureRun.of(Fixture.OMPT_TOOL, "3"));
    }

    @AfterAll
    static void printSummary() {
        synchronized (SUMMARIES) {
            if (SUMMARIES.isEmpty()) {
                return;
            }
            System.out.println(summaryTable(SUMMARIES.values()));
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Differences on purpose

    /**
     * Where jompd answers differently from the reference on purpose. A difference is accepted only when
     * the listed condition holds exactly; everything else fails the test.
     */
    enum OnPurpose {
        /** Not a documented difference. */
        NONE("-"),
        API_VERSION("ompd_get_api_version: the reference implements OMPD of OpenMP 5.0 (TR7, 201811); jompd "
                + "implements OpenMP 5.1's OMPD (202011)"),
        VERSION_STRING("ompd_get_version_string names the implementation: \"LLVM OpenMP 5.0 Debugging Library...\" "
                + "vs \"jompd ...\""),
        OMP_VERSION_STRING("ompd_get_omp_version_string: the reference prints only the number (\"201611\"); jompd "
                + "names the runtime and the OpenMP version it stands for; the number is the same"),
        BIND_VAR_NAMES("bind-var's string form: the reference prints omp_proc_bind_t numbers (\"4,3\"), jompd the "
                + "OpenMP names of the same values (\"spread,close\")"),
        LIST_ICV_INCOMPLETE("nthreads-var/bind-var as an integer: the reference answers ompd_rc_incomplete for a "
                + "one-element list (it computes `level < used - 1` in unsigned arithmetic, so used == 0 wraps); "
                + "jompd answers ok. The value is the same, and the reference's own string form has one element"),
        FRAME_FLAGS_UNSET("ompd_get_task_frame: the reference never writes the frame flags (llvm-project issue "
                + "89058); jompd returns the flags libomp keeps in ompt_frame_t"),
        LIGHTWEIGHT_CHAIN("regions and tasks of a team holding serialized (lightweight) levels: libomp keeps the "
                + "innermost level's OMPT data (tool data, task frames) in the team and its implicit task, and moves "
                + "each outer level's into an ompt_lw_taskteam_t (__ompt_lw_taskteam_link); the reference's "
                + "ompd_get_curr_parallel_handle / ompd_get_curr_task_handle put the first lightweight team (the next "
                + "outer level) into the innermost level's handle, so its current region and task report the "
                + "enclosing level's data and its chains skip the innermost level. Accepted only where the reference's "
                + "value is exactly what jompd reads through the handle the reference built (emulated here); jompd "
                + "answers what omp_get_level/ompt_get_parallel_info answer in the program"),
        SERIALIZED_LEVEL("levels-var of a lightweight level: the reference answers the team's t_level for every level "
                + "the team holds; jompd subtracts the level's depth in the lightweight chain (ground truth: the "
                + "program's omp_get_level, checked in GroundTruthIT). Accepted only where the reference's value is "
                + "the team's t_level");

        final String reason;

        OnPurpose(String reason) {
            this.reason = reason;
        }
    }

    /**
     * Empty when equal; the reason when they differ on purpose; NONE when they differ otherwise.
     *
     * @param shaped      jompd answering through the handles the reference builds
     * @param jompdHandle jompd's own handle for the record's subject
     */
    static Optional<OnPurpose> compare(Record ref, Answer jompd, Reference dump, Jompd shaped, Object jompdHandle) {
        String query = ref.query();
        switch (query) {
            case "api_version" -> {
                return jompd.ok() && ref.value().equals("201811") && jompd.value().equals(Long.toString(Ompd.API_VERSION))
                        ? Optional.of(OnPurpose.API_VERSION) : same(ref, jompd, true);
            }
            case "version_string" -> {
                return jompd.ok() ? Optional.of(OnPurpose.VERSION_STRING) : Optional.of(OnPurpose.NONE);
            }
            case "omp_version_string" -> {
                if (jompd.ok() && !jompd.value().equals(ref.value())
                        && jompd.value().contains("OpenMP " + ref.value())) {
                    return Optional.of(OnPurpose.OMP_VERSION_STRING);
                }
                return same(ref, jompd, false);
            }
            default -> { }
        }
        if (query.equals("icv_string:bind-var") && jompd.ok() && !jompd.value().equals(ref.value())) {
            String numbers = Arrays.stream(jompd.value().split(","))
                    .map(name -> Integer.toString(List.of("false", "true", "primary", "close", "spread", "intel",
                            "default").indexOf(name)))
                    .collect(Collectors.joining(","));
            return numbers.equals(ref.value()) ? Optional.of(OnPurpose.BIND_VAR_NAMES) : Optional.of(OnPurpose.NONE);
        }
        if ((query.equals("icv:nthreads-var") || query.equals("icv:bind-var")) && ref.rc().equals("11")
                && jompd.rc() == OmpdRc.OK && numbersEqual(ref.value(), jompd.value())) {
            String name = query.substring("icv:".length());
            boolean oneElement = dump.find(ref.scope(), ref.subject(), "icv_string:" + name)
                    .filter(Record::answered).map(r -> !r.value().contains(",")).orElse(false);
            return oneElement ? Optional.of(OnPurpose.LIST_ICV_INCOMPLETE) : Optional.of(OnPurpose.NONE);
        }
        if (query.endsWith("_flags") && ref.value().equals("unset")) {
            return jompd.ok() ? Optional.of(OnPurpose.FRAME_FLAGS_UNSET) : Optional.of(OnPurpose.NONE);
        }
        Optional<OnPurpose> result = same(ref, jompd, isNumeric(query));
        if (result.isEmpty()) {
            return result;
        }
        // The reference's handle for this subject, emulated (see LIGHTWEIGHT_CHAIN).
        Object shapedHandle = shaped.handle(ref.subject());
        if (shapedHandle.equals(jompdHandle)) {
            return result;
        }
        if (same(ref, shaped.answer(ref), isNumeric(query)).isEmpty()) {
            return Optional.of(OnPurpose.LIGHTWEIGHT_CHAIN);
        }
        if (query.equals("icv:levels-var") && shapedHandle instanceof ParallelHandle region
                && region.isSerializedLevel()
                && numbersEqual(ref.value(), Long.toString(region.t().field("kmp_base_team_t", "t_level").asLong()))) {
            return Optional.of(OnPurpose.SERIALIZED_LEVEL);
        }
        return result;
    }

    private static Optional<OnPurpose> same(Record ref, Answer jompd, boolean numeric) {
        boolean rcSame = ref.rc().equals(Integer.toString(jompd.rc().code()));
        if (!rcSame || jompd.value() == null) {
            return Optional.of(OnPurpose.NONE);
        }
        boolean equal = numeric ? numbersEqual(ref.value(), jompd.value()) : ref.value().equals(jompd.value());
        return equal ? Optional.empty() : Optional.of(OnPurpose.NONE);
    }

    static boolean isNumeric(String query) {
        return !(query.startsWith("icv_string:") || query.endsWith("_string") || query.equals("control_vars")
                || query.startsWith("icv_enum:") || query.startsWith("state_enum:") || query.endsWith("_flags"));
    }

    static boolean numbersEqual(String a, String b) {
        try {
            return parseBits(a) == parseBits(b);
        } catch (NumberFormatException e) {
            return a.equals(b);
        }
    }

    /** A decimal integer, signed or unsigned 64-bit, as its bits. */
    static long parseBits(String text) {
        return text.startsWith("-") ? Long.parseLong(text) : Long.parseUnsignedLong(text);
    }

    // ------------------------------------------------------------------------------------------------
    // jompd's answers to the same queries

    /** jompd's answer: its return code, and the value when it answered (ok or incomplete). */
    public record Answer(OmpdRc rc, String value) {
        boolean ok() {
            return rc == OmpdRc.OK;
        }

        static Answer of(Supplier<Object> query) {
            try {
                Object value = query.get();
                return new Answer(OmpdRc.OK, value == null ? "" : value.toString());
            } catch (OmpdException e) {
                return new Answer(e.rc(), null);
            }
        }

        @Override
        public String toString() {
            return rc == OmpdRc.OK ? "\"" + value + "\"" : rc.cName() + (value != null ? " \"" + value + "\"" : "");
        }
    }

    /**
     * Asks jompd what a reference record asks, on the same subject. With {@code referenceShaped} the
     * subject's regions and tasks are the handles the reference builds instead of jompd's own: the
     * current region and task carry the first lightweight team of their team
     * ({@code t.ompt_serialized_team_info}), and the enclosing/generating steps follow the reference's
     * rules (omp-debug.cpp: next lightweight team, else the parent team/task with its first lightweight
     * team).
     */
    public static final class Jompd {
        private final AddressSpaceHandle process;
        private final boolean referenceShaped;
        private final Map<String, Object> handles = new HashMap<>();

        Jompd(AddressSpaceHandle process, boolean referenceShaped) {
            this.process = process;
            this.referenceShaped = referenceShaped;
        }

        /** jompd with its own handles. */
        public static Jompd of(AddressSpaceHandle process) {
            return new Jompd(process, false);
        }

        /** The handle a subject names ("-", "lwp=N", "lwp=N:pD", "lwp=N:tD"), or the OmpdException. */
        Object handle(String subject) {
            Object handle = handles.get(subject);
            if (handle == null) {
                try {
                    handle = resolve(subject); // may resolve (and cache) the subjects it derives from
                } catch (OmpdException e) {
                    handle = e;
                }
                handles.put(subject, handle);
            }
            return handle;
        }

        private Object resolve(String subject) {
            if (subject.equals("-")) {
                return process;
            }
            int colon = subject.indexOf(':');
            long lwp = Long.parseLong(subject.substring("lwp=".length(), colon < 0 ? subject.length() : colon));
            if (colon < 0) {
                return Ompd.threadHandle(process, ThreadIdKind.LWP, lwp);
            }
            String rest = subject.substring(colon + 1);
            int depth = Integer.parseInt(rest.substring(1));
            Object previous = handle(subject.substring(0, colon) + (depth == 0 ? "" : ":" + rest.charAt(0) + (depth - 1)));
            if (previous instanceof OmpdException e) {
                throw e;
            }
            if (referenceShaped) {
                return switch (rest.charAt(0)) {
                    case 'p' -> depth == 0 ? withFirstLightweight(((ThreadHandle) previous).currentParallel().teamAddress())
                            : referenceEnclosing((ParallelHandle) previous);
                    case 't' -> depth == 0 ? referenceTask(((ThreadHandle) previous).currentTask().address())
                            : referenceGenerating((TaskHandle) previous);
                    default -> throw new IllegalArgumentException("subject " + subject);
                };
            }
            return switch (rest.charAt(0)) {
                case 'p' -> depth == 0 ? ((ThreadHandle) previous).currentParallel() : ((ParallelHandle) previous).enclosing();
                case 't' -> depth == 0 ? ((ThreadHandle) previous).currentTask() : ((TaskHandle) previous).generating();
                default -> throw new IllegalArgumentException("subject " + subject);
            };
        }

        /** ompd_get_curr_parallel_handle of the reference: the team with its first lightweight team. */
        private ParallelHandle withFirstLightweight(long team) {
            Stop stop = process.stop();
            return new ParallelHandle(stop, team, new ParallelHandle(stop, team, 0).chainHead());
        }

        /** The reference's ompd_get_enclosing_parallel_handle. */
        private ParallelHandle referenceEnclosing(ParallelHandle region) {
            if (region.lightweightTeam() != 0) {
                long parent = region.lightweightParent(region.lightweightTeam());
                if (parent != 0) {
                    return new ParallelHandle(process.stop(), region.teamAddress(), parent);
                }
            }
            // libomp: t.t_parent->t, with its ompt_serialized_team_info
            long parent = region.t().field("kmp_base_team_t", "t_parent").pointerValue();
            if (parent == 0) {
                throw new OmpdException(OmpdRc.UNAVAILABLE, "no parent team");
            }
            return withFirstLightweight(parent + process.layout().offset("kmp_team_p", "t"));
        }

        /** The reference's ompd_get_curr_task_handle: the task with its team's first lightweight team. */
        private TaskHandle referenceTask(long taskdata) {
            Stop stop = process.stop();
            long team = new TaskHandle(stop, taskdata, 0).teamBase().address();
            return new TaskHandle(stop, taskdata, new ParallelHandle(stop, team, 0).chainHead());
        }

        /** The reference's ompd_get_generating_task_handle. */
        private TaskHandle referenceGenerating(TaskHandle task) {
            if (task.lightweightTeam() != 0) {
                long parent = task.parallel().lightweightParent(task.lightweightTeam());
                if (parent != 0) {
                    return new TaskHandle(process.stop(), task.address(), parent);
                }
            }
            // libomp: td->td_parent
            long parent = task.td().field("kmp_taskdata_t", "td_parent").pointerValue();
            if (parent == 0) {
                throw new OmpdException(OmpdRc.UNAVAILABLE, "no parent task");
            }
            return referenceTask(parent);
        }

        public Answer answer(Record record) {
            Object handle = handle(record.subject());
            if (handle instanceof OmpdException e) {
                return new Answer(e.rc(), null);
            }
            String query = record.query();
            if (query.equals("handle") || query.equals("init")) {
                return new Answer(OmpdRc.OK, ""); // resolved above (init: ompd_process_initialize succeeded)
            }
            if (query.startsWith("icv:") || query.startsWith("icv_string:")) {
                String name = query.substring(query.indexOf(':') + 1);
                Optional<Icv> icv = Icv.byName(name);
                if (icv.isEmpty()) {
                    return new Answer(OmpdRc.BAD_INPUT, null);
                }
                OmpdHandle ompdHandle = (OmpdHandle) handle; // not an OmpdException: answered above
                Scope scope = ompdHandle.scope();
                if (query.startsWith("icv_string:")) {
                    return Answer.of(() -> Icvs.string(ompdHandle, scope, icv.get()));
                }
                try {
                    Icvs.IcvValue value = Icvs.value(ompdHandle, scope, icv.get());
                    return new Answer(value.rc(), Long.toString(value.value()));
                } catch (OmpdException e) {
                    return new Answer(e.rc(), null);
                }
            }
            if (query.startsWith("icv_enum:")) {
                return Answer.of(() -> Icv.byId(Long.parseLong(query.substring(9)))
                        .map(icv -> icv.name() + "/" + icv.scope().code())
                        .orElseThrow(() -> new OmpdException(OmpdRc.BAD_INPUT, "no ICV " + query)));
            }
            if (query.startsWith("state_enum:")) {
                return Answer.of(() -> ThreadState.of(Long.parseLong(query.substring(11))).map(ThreadState::cName)
                        .orElseThrow(() -> new OmpdException(OmpdRc.BAD_INPUT, "no state " + query)));
            }
            return switch (handle) {
                case AddressSpaceHandle p -> switch (query) {
                    case "omp_version" -> Answer.of(() -> Ompd.ompVersion(p));
                    case "omp_version_string" -> Answer.of(() -> Ompd.ompVersionString(p));
                    case "api_version" -> Answer.of(Ompd::apiVersion);
                    case "version_string" -> Answer.of(Ompd::versionString);
                    case "control_vars" -> Answer.of(() -> String.join("\n", Ompd.displayControlVariables(p)));
                    default -> unknown(query);
                };
                case ThreadHandle t -> switch (query) {
                    case "thread_id.pthread" -> Answer.of(() -> Long.toUnsignedString(t.threadId(ThreadIdKind.PTHREAD)));
                    case "state" -> Answer.of(() -> t.state().code());
                    case "wait_id" -> Answer.of(() -> Long.toUnsignedString(t.state().waitId()));
                    case "tool_data.value" -> Answer.of(() -> t.toolData().value());
                    case "tool_data.ptr" -> Answer.of(() -> Long.toUnsignedString(t.toolData().pointer()));
                    default -> unknown(query);
                };
                case ParallelHandle r -> switch (query) {
                    case "tool_data.value" -> Answer.of(() -> r.toolData().value());
                    case "tool_data.ptr" -> Answer.of(() -> Long.toUnsignedString(r.toolData().pointer()));
                    default -> unknown(query);
                };
                case TaskHandle k -> switch (query) {
                    case "tool_data.value" -> Answer.of(() -> k.toolData().value());
                    case "tool_data.ptr" -> Answer.of(() -> Long.toUnsignedString(k.toolData().pointer()));
                    case "function" -> Answer.of(() -> Long.toUnsignedString(k.function()));
                    case "frame.exit" -> Answer.of(() -> Long.toUnsignedString(k.frames().exitFrame()));
                    case "frame.enter" -> Answer.of(() -> Long.toUnsignedString(k.frames().enterFrame()));
                    case "frame.exit_flags" -> Answer.of(() -> k.frames().exitFrameFlags());
                    case "frame.enter_flags" -> Answer.of(() -> k.frames().enterFrameFlags());
                    default -> unknown(query);
                };
                default -> unknown(query);
            };
        }

        private static Answer unknown(String query) {
            throw new IllegalStateException("the reference dump has a query this test does not know: " + query);
        }
    }

    // ------------------------------------------------------------------------------------------------
    // The reference's dump

    /** One reference answer: rc is the ompd_rc_t number or "crash" (gdb died inside the query). */
    public record Record(String scope, String subject, String query, String rc, String value) {
        public boolean answered() {
            return rc.equals("0") || (rc.equals("11") && !value.isEmpty() && query.startsWith("icv:"));
        }

        public boolean crashed() {
            return rc.equals("crash");
        }

        String key() {
            return scope + " " + subject + " " + query;
        }

        String describe() {
            if (crashed()) {
                return "gdb crash";
            }
            String name = rcName(rc);
            return rc.equals("0") ? "\"" + value + "\"" : name + (value.isEmpty() ? "" : " \"" + value + "\"");
        }
    }

    static String rcName(String rc) {
        if (rc.equals("crash")) {
            return "gdb crash";
        }
        try {
            int code = Integer.parseInt(rc);
            return Arrays.stream(OmpdRc.values()).filter(r -> r.code() == code).findFirst()
                    .map(OmpdRc::cName).orElse("rc " + rc);
        } catch (NumberFormatException e) {
            return rc;
        }
    }

    /**
     * What LLVM's reference libompd answered about a core, through its gdb plugin and the dump script.
     * gdb runs again after a crash (the script resumes after the crashing query) until the dump is
     * complete, at most {@link #MAX_GDB_RUNS} times.
     */
    public record Reference(List<Record> records, Map<String, List<String>> metadata, int gdbRuns,
                            Duration wallTime, Path file) {
        static final int MAX_GDB_RUNS = 40;

        /** Runs the dump script on the fixture's core into {@code directory}/reference.tsv. */
        public static Reference dump(StoppedFixture fixture, Path directory) {
            return dump(fixture.executable(), fixture.core(), directory, Map.of(), fixture.run().runtimeVersion());
        }

        public static Reference dump(Path executable, Path core, Path directory, Map<String, String> environment) {
            return dump(executable, core, directory, environment, Runtimes.DEFAULT_VERSION);
        }

        /** The dump through the gdb plugin of LLVM {@code version}, the version of the runtime the core ran on. */
        public static Reference dump(Path executable, Path core, Path directory, Map<String, String> environment,
                                     int version) {
            try {
                Files.createDirectories(directory);
                Path script = directory.resolve("dump_reference.py");
                try (InputStream in = ReferenceDifferentialIT.class.getResourceAsStream("/reference/dump_reference.py")) {
                    if (in == null) {
                        throw new IllegalStateException("reference/dump_reference.py is not on the test classpath");
                    }
                    Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
                }
                Path out = directory.resolve("reference.tsv");
                Files.deleteIfExists(out);
                Path plugin = Runtimes.referenceGdbPluginDirectory(version);
                if (!Files.isRegularFile(plugin.resolve("ompd/ompd.py"))) {
                    throw new IllegalStateException("no reference gdb plugin in " + plugin);
                }
                Map<String, String> env = new HashMap<>(environment);
                env.put("JOMPD_REF_PLUGIN", plugin.toString());
                env.put("JOMPD_REF_OUT", out.toString());
                List<String> command = List.of("gdb", "-batch", "-nx", "-x", script.toString(),
                        executable.toString(), core.toString());
                long start = System.nanoTime();
                int runs = 0;
                long started = 0;
                while (runs < MAX_GDB_RUNS) {
                    runs++;
                    Commands.Result result = Commands.run(command, env, directory, Duration.ofMinutes(10));
                    Files.writeString(directory.resolve("gdb-" + runs + ".log"), result.output());
                    String text = Files.exists(out) ? Files.readString(out) : "";
                    // Done, or no query started in this run (the script itself failed): stop.
                    long nowStarted = text.lines().filter(line -> line.startsWith("?\t")).count();
                    if (text.contains("\n#\tcomplete\n") || nowStarted == started) {
                        break;
                    }
                    started = nowStarted;
                }
                Duration wall = Duration.ofNanos(System.nanoTime() - start);
                return parse(out, runs, wall);
            } catch (IOException e) {
                throw new UncheckedIOException("running the reference dump on " + core, e);
            }
        }

        static Reference parse(Path file, int runs, Duration wall) throws IOException {
            List<Record> records = new ArrayList<>();
            Map<String, List<String>> meta = new LinkedHashMap<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] fields = line.split("\t", -1);
                for (int i = 0; i < fields.length; i++) {
                    fields[i] = unescape(fields[i]);
                }
                if (fields[0].equals("#")) {
                    meta.computeIfAbsent(fields[1], k -> new ArrayList<>())
                            .add(String.join("\t", Arrays.copyOfRange(fields, 2, fields.length)));
                } else if (!fields[0].equals("?") && fields.length >= 5) {
                    records.add(new Record(fields[0], fields[1], fields[2], fields[3], fields[4]));
                }
            }
            return new Reference(List.copyOf(records), meta, runs, wall, file);
        }

        static String unescape(String text) {
            if (text.indexOf('\\') < 0) {
                return text;
            }
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '\\' && i + 1 < text.length()) {
                    char next = text.charAt(++i);
                    out.append(switch (next) {
                        case 't' -> '\t';
                        case 'n' -> '\n';
                        default -> next;
                    });
                } else {
                    out.append(c);
                }
            }
            return out.toString();
        }

        public boolean complete() {
            return metadata.containsKey("complete");
        }

        public Optional<String> meta(String name) {
            List<String> values = metadata.get(name);
            return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getLast());
        }

        public long metaLong(String name) {
            return meta(name).map(Long::parseLong).orElse(-1L);
        }

        public double metaSeconds(String name) {
            return meta(name).map(Double::parseDouble).orElse(Double.NaN);
        }

        public Optional<Record> find(String scope, String subject, String query) {
            return records.stream().filter(r -> r.scope().equals(scope) && r.subject().equals(subject)
                    && r.query().equals(query)).findFirst();
        }

        public long crashes() {
            return records.stream().filter(Record::crashed).count();
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Summary

    static final class Summary {
        final String fixture;
        final Reference reference;
        int queries;
        int referenceAnswered;
        int jompdAnsweredOfThose;
        int jompdAnswered;
        int agreed;
        int jompdOnly;
        final Map<String, Integer> referenceFailures = new TreeMap<>();
        final Map<String, Integer> jompdOnlyByQuery = new TreeMap<>();
        final Map<String, Integer> onPurpose = new TreeMap<>();

        Summary(String fixture, Reference reference) {
            this.fixture = fixture;
            this.reference = reference;
        }

        void count(Record record, Answer answer) {
            queries++;
            boolean jompdOk = answer.rc() == OmpdRc.OK || answer.rc() == OmpdRc.INCOMPLETE;
            if (jompdOk) {
                jompdAnswered++;
            }
            if (record.answered()) {
                referenceAnswered++;
                if (jompdOk) {
                    jompdAnsweredOfThose++;
                }
            } else {
                referenceFailures.merge(rcName(record.rc()), 1, Integer::sum);
                if (jompdOk) {
                    jompdOnly++;
                    jompdOnlyByQuery.merge(record.query().replaceFirst(":.*", ":*") + " (" + rcName(record.rc())
                            .replace("ompd_rc_", "") + ")", 1, Integer::sum);
                }
            }
        }

        String detail() {
            StringBuilder text = new StringBuilder("== reference vs jompd, " + fixture + ": " + queries + " queries, "
                    + "reference answered " + referenceAnswered + " (jompd answers " + jompdAnsweredOfThose
                    + " of them, " + agreed + " equal), reference failed " + (queries - referenceAnswered)
                    + ", gdb runs " + reference.gdbRuns() + ", crashes " + reference.crashes() + "\n");
            onPurpose.forEach((reason, n) -> text.append("   on purpose ").append(reason).append(": ").append(n).append('\n'));
            jompdOnlyByQuery.forEach((query, n) -> text.append("   only jompd answers ").append(query).append(": ")
                    .append(n).append('\n'));
            return text.toString();
        }
    }

    static String summaryTable(java.util.Collection<Summary> summaries) {
        StringBuilder text = new StringBuilder();
        text.append("\n== Reference libompd (LLVM 19, gdb plugin) vs jompd: per fixture\n");
        String format = "%-22s %8s %8s %8s %8s %8s %8s %7s  %s%n";
        text.append(String.format(Locale.ROOT, format, "fixture", "queries", "ref ok", "jompd ok", "equal",
                "purpose", "jompd+", "crashes", "reference failures (rc: count)"));
        for (Summary s : summaries) {
            String failures = s.referenceFailures.entrySet().stream()
                    .map(e -> e.getKey().replace("ompd_rc_", "") + ": " + e.getValue())
                    .collect(Collectors.joining(", "));
            int purpose = s.onPurpose.values().stream().mapToInt(Integer::intValue).sum();
            text.append(String.format(Locale.ROOT, format, s.fixture, s.queries, s.referenceAnswered, s.jompdAnswered,
                    s.agreed, purpose, s.jompdOnly, s.reference.crashes(), failures));
        }
        text.append("(queries: what the dump asked; ref ok: the reference answered; jompd ok: jompd answered, of all "
                + "queries; equal: same value; purpose: documented differences; jompd+: jompd answers, the reference "
                + "does not)\n");
        text.append("On purpose:\n");
        for (OnPurpose reason : OnPurpose.values()) {
            if (reason != OnPurpose.NONE) {
                text.append("  ").append(reason.name()).append(": ").append(reason.reason).append('\n');
            }
        }
        return text.toString();
    }
}
