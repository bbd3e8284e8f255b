package dev.jompd.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** `jompd inspect` on real cores: report content against the programs' own facts, and exit codes. */
class InspectCommandIT {

    record Result(int exitCode, String out, String err) {}

    static Result jompd(String... args) {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = Jompd.run(args);
            return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
    }

    /** The report's regions by id. */
    static Map<String, JsonObject> regionsById(JsonObject report) {
        Map<String, JsonObject> regions = new HashMap<>();
        for (JsonElement region : report.getAsJsonArray("regions")) {
            regions.put(region.getAsJsonObject().get("id").getAsString(), region.getAsJsonObject());
        }
        return regions;
    }

    /** The report's thread on OS thread {@code lwp}, or null. */
    /**
     * The report's threads are exactly the program's (one per recorded LWP, no other), each with the recorded
     * thread number, level and the team sizes along its enclosing regions.
     */
    static void assertThreadsAreTheRecordedOnes(JsonObject report, Facts recorded) {
        Map<String, JsonObject> regions = regionsById(report);
        JsonArray threads = report.getAsJsonArray("threads");
        List<Long> lwps = new java.util.ArrayList<>();
        threads.forEach(t -> lwps.add(t.getAsJsonObject().has("lwp") ? t.getAsJsonObject().get("lwp").getAsLong() : -1));
        assertThat(lwps).as("the report's threads").containsExactlyInAnyOrderElementsOf(
                recorded.threads().stream().map(Facts.ThreadFacts::lwp).toList());
        for (Facts.ThreadFacts facts : recorded.threads()) {
            JsonObject thread = threadWithLwp(threads, facts.lwp());
            assertThat(thread.get("threadNum").getAsInt()).as(facts.toString()).isEqualTo(facts.threadNum());
            JsonObject region = regions.get(thread.get("region").getAsString());
            assertThat(region.get("level").getAsInt()).as(facts.toString()).isEqualTo(facts.level());
            // Walk the enclosing chain: team sizes per level as the program saw them.
            List<Integer> sizes = facts.teamSizes();
            for (int level = facts.level(); level >= 1; level--) {
                assertThat(region.get("teamSize").getAsInt()).as(facts + " level " + level).isEqualTo(sizes.get(level - 1));
                region = regions.get(region.get("enclosing").getAsString());
            }
            assertThat(region.get("level").getAsInt()).isZero();
        }
    }

    static JsonObject threadWithLwp(JsonArray threads, long lwp) {
        for (JsonElement candidate : threads) {
            if (candidate.getAsJsonObject().has("lwp") && candidate.getAsJsonObject().get("lwp").getAsLong() == lwp) {
                return candidate.getAsJsonObject();
            }
        }
        return null;
    }

    @Test
    void jsonReportHasEveryRecordedThreadInATeamOfTheRecordedSize() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3", "4"));
        Result result = jompd("inspect", "--core", fixture.core().toString(), "--json");
        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonObject report = JsonParser.parseString(result.out()).getAsJsonObject();
        assertThat(report.get("schema").getAsString()).isEqualTo("jompd-inspect/1");
        assertThreadsAreTheRecordedOnes(report, fixture.facts());
        // each thread's current (innermost) task runs the outlined function of its innermost region: the innermost
        // outlined frame of gdb's backtrace of that thread, by name and start address
        java.util.Map<Long, List<GdbProbe.Frame>> stacks = fixture.gdb().backtraces();
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            JsonObject thread = threadWithLwp(report.getAsJsonArray("threads"), facts.lwp());
            GdbProbe.Frame outlined = stacks.get(facts.lwp()).stream().filter(f -> f.function().endsWith(".omp_outlined"))
                    .findFirst().orElseThrow(() -> new AssertionError("gdb: no outlined frame for " + facts));
            JsonObject function = thread.getAsJsonArray("tasks").get(0).getAsJsonObject().getAsJsonObject("function");
            assertThat(function.get("symbol").getAsString()).as("%s", facts).isEqualTo(outlined.function());
            assertThat(Long.decode(function.get("address").getAsString())).as("%s", facts).isEqualTo(outlined.functionStart());
        }
        assertThat(report.getAsJsonArray("problems")).isEmpty();
    }

    @Test
    void textReportGroupsAlikeThreadsUnlessAskedForAll() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4"));
        Result grouped = jompd("inspect", "--core", fixture.core().toString(), "--color=never");
        assertThat(grouped.exitCode()).isZero();
        assertThat(grouped.out()).contains("16 OpenMP threads").contains("alike").doesNotContain("\033[");
        Result all = jompd("inspect", "--core", fixture.core().toString(), "--all", "--color=always");
        assertThat(all.out()).doesNotContain("alike").contains("\033[");
        // one line per thread, in its team's region, with the LWP the program recorded for that team and number
        assertThat(dev.jompd.testkit.TextReportThreads.lwpByTeamAndNumber(all.out())).as(all.out())
                .isEqualTo(fixture.facts().lwpByTeamAndNumber());
    }

    @Test
    void withoutOmpDebugTheReportSaysWhatIsMissingAndShowsTheRest() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").withEnvironment("OMP_DEBUG", "disabled"));
        Result text = jompd("inspect", "--core", fixture.core().toString(), "--color=never");
        assertThat(text.exitCode()).isZero();
        // the hint said once, not per thread; the rest of the picture still there
        assertThat(text.out().split("OMP_DEBUG=enabled", -1)).as(text.out()).hasSize(2);
        // every thread on its line in its team, as the program recorded it, under the one region of the team's size
        // (the region's function: the outlined frame of gdb's backtrace of thread 0, where gdb has that function begin)
        Facts.ThreadFacts thread0 = fixture.facts().thread(0);
        GdbProbe.Frame outlined = fixture.gdb().backtraces().get(thread0.lwp()).stream()
                .filter(f -> f.function().endsWith(".omp_outlined")).findFirst().orElseThrow();
        Result all = jompd("inspect", "--core", fixture.core().toString(), "--color=never", "--all");
        assertThat(dev.jompd.testkit.TextReportThreads.lwpByTeamAndNumber(all.out())).as(all.out())
                .isEqualTo(fixture.facts().lwpByTeamAndNumber());
        assertThat(all.out().lines().filter(l -> l.matches("\\s*r\\d+ level [1-9].*")).map(l -> l.strip().replaceFirst("^r\\d+ ", ""))
                .toList()).as(all.out()).containsExactly("level 1 region, team of " + thread0.teamSize() + ", active level "
                        + thread0.activeLevel() + "  " + outlined.function() + " (" + Path.of(outlined.file()).getFileName() + ":"
                        + outlined.line() + ")");
        Result json = jompd("inspect", "--core", fixture.core().toString(), "--json");
        JsonObject report = JsonParser.parseString(json.out()).getAsJsonObject();
        List<String> notices = new java.util.ArrayList<>();
        report.getAsJsonArray("notices").forEach(n -> notices.add(n.getAsString()));
        assertThat(notices.stream().filter(n -> n.contains("OMP_DEBUG"))).as("%s", notices).hasSize(1);
        assertThat(json.err()).contains("OMP_DEBUG");
    }

    /**
     * Without OMP_DEBUG libomp keeps no state and no wait id: each thread object is its identity (the program's
     * facts, gtid from libomp's own array as gdb reads it), state "not tracked" and no {@code waitId}: the 0 the
     * runtime's memory holds then (gdb reads it) is no wait id.
     */
    @Test
    void withoutOmpDebugAThreadHasNoWaitId() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").withEnvironment("OMP_DEBUG", "disabled"));
        GdbProbe gdb = fixture.gdb();
        assertThat(gdb.evaluate("ompd_state").asLong()).as("libomp tracks no states").isZero();
        Map<Long, Long> gtidByLwp = gtidByLwp(gdb);
        List<String> waitIds = gtidByLwp.values().stream().map(gtid -> wait(gtid, "wait_id")).toList();
        assertThat(gdb.evaluate(waitIds).values().stream().map(GdbProbe.Value::asLong).distinct().toList())
                .as("what the runtime's memory holds: no value").containsExactly(0L);
        Result json = jompd("inspect", "--core", fixture.core().toString(), "--json");
        assertThat(json.exitCode()).as(json.err()).isZero();
        JsonArray threads = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("threads");
        assertThat(threads).hasSize(fixture.facts().threadCount());
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            JsonObject thread = threadWithLwp(threads, facts.lwp());
            assertThat(thread).as(facts.toString()).isNotNull();
            assertThat(identityAndState(thread)).as(facts.toString())
                    .isEqualTo(expectedThread(facts, gtidByLwp.get(facts.lwp()), "not tracked", null));
        }
    }

    /**
     * With OMP_DEBUG=enabled every thread's wait id is libomp's own (gdb reads {@code ompt_thread_info.wait_id}
     * through DWARF), a 0 included (the barrier's and the working threads'), and the ordered and critical waits'
     * ids are the ones the program's own OMPT callbacks were given.
     */
    @Test
    void withOmpDebugEveryThreadHasLibompsWaitId() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.WAITS));
        GdbProbe gdb = fixture.gdb();
        Map<Long, Long> gtidByLwp = gtidByLwp(gdb);
        List<String> fields = new java.util.ArrayList<>();
        gtidByLwp.values().forEach(gtid -> fields.add(wait(gtid, "wait_id")));
        Map<String, GdbProbe.Value> truth = gdb.evaluate(fields);
        Result json = jompd("inspect", "--core", fixture.core().toString(), "--json");
        assertThat(json.exitCode()).as(json.err()).isZero();
        JsonArray threads = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("threads");
        assertThat(threads).hasSize(fixture.facts().threadCount());
        java.util.Set<Long> zeroWaitIds = new java.util.TreeSet<>();
        for (Facts.ThreadFacts facts : fixture.facts().threads()) {
            long gtid = gtidByLwp.get(facts.lwp());
            long waitId = truth.get(wait(gtid, "wait_id")).asLong();
            fixture.facts().find("ompt_wait_id." + facts.role()).filter(id -> !facts.role().equals("lock"))
                    .ifPresent(id -> assertThat(waitId).as(facts + ": gdb's wait id, the OMPT callback's")
                            .isEqualTo(fixture.facts().number("ompt_wait_id." + facts.role())));
            if (waitId == 0) {
                zeroWaitIds.add((long) facts.threadNum());
            }
            JsonObject thread = threadWithLwp(threads, facts.lwp());
            assertThat(thread).as(facts.toString()).isNotNull();
            assertThat(identityAndState(thread)).as(facts.toString()).isEqualTo(expectedThread(facts, gtid,
                    "ompt_state_" + facts.get("omp_state"), "0x" + Long.toHexString(waitId)));
        }
        assertThat(zeroWaitIds).as("threads whose wait id is a genuine 0").isNotEmpty();
    }

    /** {@code __kmp_threads[gtid]->th.ompt_thread_info.<field>}. */
    private static String wait(long gtid, String field) {
        return "__kmp_threads[" + gtid + "]->th.ompt_thread_info." + field;
    }

    /** LWP → gtid of libomp's threads, as gdb reads {@code __kmp_threads}. */
    private static Map<Long, Long> gtidByLwp(GdbProbe gdb) {
        Map<Long, Long> byLwp = new java.util.TreeMap<>();
        gdb.openMpThreads().forEach((gtid, lwp) -> byLwp.put(lwp, gtid));
        return byLwp;
    }

    /** The thread object without its region, tool data, ICVs and tasks (other tests compare those). */
    private static JsonObject identityAndState(JsonObject thread) {
        JsonObject kept = thread.deepCopy();
        assertThat(kept.keySet()).as("the thread's fields").contains("region", "toolData", "icvs", "tasks");
        for (String field : List.of("region", "toolData", "icvs", "tasks")) {
            kept.remove(field);
        }
        return kept;
    }

    /** A level-1 thread's object as the program's facts say it: name, ids, number, state and wait id (null: none). */
    private static JsonObject expectedThread(Facts.ThreadFacts facts, long gtid, String state, String waitId) {
        assertThat(facts.level()).as("a level-1 thread").isEqualTo(1);
        JsonObject thread = new JsonObject();
        String shortState = state.startsWith("ompt_state_") ? " · " + state.substring("ompt_state_".length()) : "";
        thread.addProperty("name", "omp " + facts.threadNum() + "/" + facts.teamSize() + " · level 1" + shortState);
        thread.addProperty("gtid", gtid);
        thread.addProperty("lwp", facts.lwp());
        thread.addProperty("pthread", "0x" + Long.toHexString(facts.pthread()));
        thread.addProperty("threadNum", facts.threadNum());
        thread.add("teamPath", new JsonArray());
        thread.addProperty("state", state);
        if (waitId != null) {
            thread.addProperty("waitId", waitId);
        }
        return thread;
    }

    /**
     * Where the picture is thinnest — Debian's stripped libomp read through its profile, without OMP_DEBUG — every
     * answer of the command line is in words: no OMPD return code in any output, as a value or in a sentence.
     */
    @Test
    void noReturnCodeReachesTheUserOnAThinPicture() {
        StoppedFixture fixture = Fixtures.core(dev.jompd.testkit.StockRuntimes.onDebian(FixtureRun.of(Fixture.NESTED, "2", "3"), 19)
                .withEnvironment("OMP_DEBUG", "disabled"));
        String core = fixture.core().toString();
        for (String[] command : List.of(new String[] {"inspect", "--core", core, "--all", "--color=never"},
                new String[] {"inspect", "--core", core, "--json"}, new String[] {"inspect", "--core", core, "--stacks"},
                new String[] {"diagnose", "--core", core},
                new String[] {"diagnose", "--core", core, "--json"})) {
            Result result = jompd(command);
            assertThat(result.exitCode()).as(String.join(" ", command) + "\n" + result.err()).isZero();
            assertThat(result.out() + result.err()).as(String.join(" ", command)).doesNotContain("ompd_rc");
        }
    }

    @Test
    void taskFunctionsCarryTheirSourceLine() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TASKS, "200"));
        Result json = jompd("inspect", "--core", fixture.core().toString(), "--json");
        JsonObject report = JsonParser.parseString(json.out()).getAsJsonObject();
        // Every task function's file:line (jompd's own DWARF line tables) is gdb's for the same address.
        java.util.Map<Long, String> ours = new java.util.LinkedHashMap<>();
        for (var thread : report.getAsJsonArray("threads")) {
            for (var task : thread.getAsJsonObject().getAsJsonArray("tasks")) {
                JsonObject function = task.getAsJsonObject().getAsJsonObject("function");
                if (function != null) {
                    assertThat(function.has("source")).as(function.toString()).isTrue();
                    ours.put(Long.parseUnsignedLong(function.get("address").getAsString().substring(2), 16),
                            function.get("source").getAsString());
                }
            }
        }
        assertThat(ours.values()).anyMatch(source -> source.matches(".*/tasks\\.c:\\d+"));
        java.util.Map<Long, String> gdb = GdbProbe.onCore(fixture.executable(), fixture.core())
                .sourceLines(java.util.List.copyOf(ours.keySet()));
        assertThat(ours).isEqualTo(gdb);
    }

    /**
     * {@code --stacks} on a core (unwound on a second thread while the picture is taken): every OpenMP thread's
     * frames are the ones gdb's backtrace shows, function by function, and the text names the regions' code.
     */
    @Test
    void stacksOfACoreAreGdbsBacktracesAndNameTheRegions() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3"));
        Result json = jompd("inspect", "--core", fixture.core().toString(), "--json", "--stacks");
        assertThat(json.exitCode()).as(json.err()).isZero();
        JsonArray threads = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonObject("stacks")
                .getAsJsonArray("threads");
        assertThat(threads).hasSize(fixture.facts().threadCount());
        Map<Long, List<GdbProbe.Frame>> gdb = GdbProbe.onCore(fixture.executable(), fixture.core()).backtraces();
        JsonArray reportThreads = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonArray("threads");
        Map<Long, Long> lwpByGtid = new HashMap<>();
        reportThreads.forEach(t -> lwpByGtid.put(t.getAsJsonObject().get("gtid").getAsLong(),
                t.getAsJsonObject().get("lwp").getAsLong()));
        for (JsonElement thread : threads) {
            long lwp = lwpByGtid.get(thread.getAsJsonObject().get("gtid").getAsLong());
            List<String> ours = new java.util.ArrayList<>();
            thread.getAsJsonObject().getAsJsonArray("frames").forEach(f -> ours.add(f.getAsJsonObject().has("function")
                    ? f.getAsJsonObject().get("function").getAsString() : "??"));
            List<String> theirs = gdb.get(lwp).stream().map(GdbProbe.Frame::function).toList();
            assertThat(ours.subList(0, Math.min(ours.size(), theirs.size()))).as("thread %d", lwp).isEqualTo(theirs);
        }
        Result text = jompd("inspect", "--core", fixture.core().toString(), "--stacks", "--color=never");
        assertThat(text.out()).contains("Parallel stacks: " + fixture.facts().threadCount() + " OpenMP threads")
                .containsPattern("parallel region at nested\\.c:\\d+ \\(region\\.omp_outlined\\)");
        Result diagnosis = jompd("diagnose", "--core", fixture.core().toString());
        assertThat(diagnosis.exitCode()).as(diagnosis.err()).isZero();
    }

    @Test
    void aMissingCoreIsBadInput() {
        Result result = jompd("inspect", "--core", "/nonexistent/core");
        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.err()).contains("no such core file");
    }

    @Test
    void aFileThatIsNoCoreIsBadInput(@TempDir Path dir) throws Exception {
        Path notACore = Files.writeString(dir.resolve("core"), "certainly not an ELF core file");
        Result result = jompd("inspect", "--core", notACore.toString());
        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.err()).containsIgnoringCase("elf");
    }

    @Test
    void aProgramWithoutOpenMpIsSaidToBeNoOpenMpProcess(@TempDir Path dir) throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "120").start();
        try {
            Path core = dir.resolve("sleep.core");
            Process gcore = new ProcessBuilder("gdb", "-batch", "-nx", "-p", Long.toString(sleeper.pid()),
                    "-ex", "gcore " + core).redirectErrorStream(true).redirectOutput(dir.resolve("gdb.log").toFile()).start();
            assertThat(gcore.waitFor()).isZero();
            Result result = jompd("inspect", "--core", core.toString());
            assertThat(result.exitCode()).as(result.err()).isEqualTo(4);
            assertThat(result.err()).contains("no OpenMP runtime");
        } finally {
            sleeper.destroyForcibly();
        }
    }

    @Test
    void usageErrorsExitWithTwo() {
        assertThat(jompd("inspect").exitCode()).isEqualTo(2);
        assertThat(jompd("inspect", "--core", "a", "--pid", "1").exitCode()).isEqualTo(2);
    }
}
