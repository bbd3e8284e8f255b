package dev.jompd.dap;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.CodeNames;
import dev.jompd.report.ConsoleReport;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.JsonReport;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.TargetDescription;
import dev.jompd.report.TextReport;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StockRuntimes;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.jompd.dap.OpenMpExpectations.args;
import static org.assertj.core.api.Assertions.assertThat;

/** Post-mortem sessions: a core file, no run control, the server reports the stop itself. */
class CoreIT {
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    /** A post-mortem session on the fixture's core, up to its stop and the OpenMP picture; the stopped body. */
    static JsonObject openCore(DapTestClient client, StoppedFixture fixture) throws IOException {
        client.body("initialize", args("adapterID", "jompd"));
        client.body("launch", args("program", fixture.executable().toString(), "coreDumpPath", fixture.core().toString()));
        client.body("configurationDone", null);
        JsonObject stopped = client.event("stopped", Duration.ofSeconds(60)).getAsJsonObject("body");
        client.event("jompd/openmpChanged", Duration.ofSeconds(10));
        return stopped;
    }

    /** Every recorded thread's DAP name and the four OpenMP scopes of its top frame, against the facts. */
    static void assertEveryThreadsNameAndScopes(DapTestClient client, Facts facts) throws IOException {
        Map<Long, Integer> ids = OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), facts);
        for (Facts.ThreadFacts thread : facts.threads()) {
            JsonObject top = client.body("stackTrace", args("threadId", ids.get(thread.lwp()), "levels", 1))
                    .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
            OpenMpExpectations.assertScopesMatch(client, client.body("scopes", args("frameId", top.get("id").getAsInt())),
                    thread);
        }
    }

    @Test
    void coreSessionShowsEveryThreadAndScopeAndRefusesToRun() throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4"));
        try (DapTestClient client = new DapTestClient(server.port())) {
            JsonObject stopped = openCore(client, fixture);
            // not "exception": VS Code would show its exception widget over the stop
            assertThat(stopped.get("reason").getAsString()).isEqualTo("entry");
            assertThat(stopped.get("description").getAsString()).isEqualTo("Core file (post-mortem)");

            Facts facts = fixture.facts();
            assertEveryThreadsNameAndScopes(client, facts);
            JsonObject tree = client.body("jompd/openmpTree", null);
            assertThat(tree.getAsJsonObject("target").get("kind").getAsString()).isEqualTo("core");
            assertThat(tree.getAsJsonArray("threads")).hasSize(facts.threadCount());
            assertThat(tree.getAsJsonArray("problems")).isEmpty();

            client.body("disconnect", args());
        }
    }

    /**
     * A program without OpenMP: the OpenMP view and every console command say the one sentence the command line
     * and gdb say (no OMPD return code, no target jargon, no "no OpenMP picture" said twice).
     */
    @Test
    void aProgramWithoutOpenMpIsSaidInOneSentence(@org.junit.jupiter.api.io.TempDir java.nio.file.Path directory)
            throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "120").start();
        try {
            java.nio.file.Path core = directory.resolve("sleep.core");
            Process gcore = new ProcessBuilder("gdb", "-batch", "-nx", "-p", Long.toString(sleeper.pid()), "-ex",
                    "gcore " + core).redirectErrorStream(true).redirectOutput(directory.resolve("gdb.log").toFile()).start();
            assertThat(gcore.waitFor()).isZero();
            String sentence = "the core file " + core + " has no OpenMP runtime loaded (no libomp among its modules: "
                    + "a program without OpenMP, or one that has not loaded it yet)";
            try (DapTestClient client = new DapTestClient(server.port())) {
                client.body("initialize", args("adapterID", "jompd"));
                client.body("launch", args("program", sleeper.info().command().orElseThrow(), "coreDumpPath", core.toString()));
                client.body("configurationDone", null);
                client.event("stopped", Duration.ofSeconds(60));
                JsonObject tree = client.request("jompd/openmpTree", null);
                assertThat(tree.get("success").getAsBoolean()).isFalse();
                assertThat(tree.get("message").getAsString()).isEqualTo(sentence);
                for (String command : List.of("threads", "parallel", "icvs", "tasks", "tree", "stacks", "json")) {
                    JsonObject answer = client.request("evaluate", args("expression", "ompd " + command, "context", "repl"));
                    assertThat(answer.get("success").getAsBoolean()).isFalse();
                    assertThat(answer.get("message").getAsString()).isEqualTo("ompd " + command + ": " + sentence);
                }
                client.body("disconnect", args());
            }
        } finally {
            sleeper.destroyForcibly();
        }
    }

    /**
     * Without OMP_DEBUG=enabled the picture's one hint (what is missing, what to set) is said once per picture: a
     * "note" row of the process scope, the OpenMP view's notices and the parallel stacks' notices; each thread's
     * state row says only "not tracked" (it had said "unavailable (run with OMP_DEBUG=enabled)" on every thread).
     */
    @Test
    void aMissingOmpDebugIsSaidOncePerPicture() throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").withEnvironment("OMP_DEBUG", "disabled"));
        try (DapTestClient client = new DapTestClient(server.port())) {
            openCore(client, fixture);
            Map<Long, Integer> ids = new HashMap<>();
            for (JsonElement thread : client.body("threads", null).getAsJsonArray("threads")) {
                String name = thread.getAsJsonObject().get("name").getAsString();
                int at = name.lastIndexOf("(LWP ");
                ids.put(Long.parseLong(name.substring(at + 5, name.indexOf(')', at))), thread.getAsJsonObject().get("id").getAsInt());
            }
            for (Facts.ThreadFacts thread : fixture.facts().threads()) {
                JsonObject top = client.body("stackTrace", args("threadId", ids.get(thread.lwp()), "levels", 1))
                        .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
                JsonObject scopes = client.body("scopes", args("frameId", top.get("id").getAsInt()));
                List<String> hints = new ArrayList<>();
                List<String> states = new ArrayList<>();
                for (JsonElement scope : scopes.getAsJsonArray("scopes")) {
                    for (JsonElement variable : client.body("variables", args("variablesReference",
                            scope.getAsJsonObject().get("variablesReference").getAsInt())).getAsJsonArray("variables")) {
                        String name = variable.getAsJsonObject().get("name").getAsString();
                        String value = variable.getAsJsonObject().get("value").getAsString();
                        if (value.contains("OMP_DEBUG")) {
                            hints.add(scope.getAsJsonObject().get("name").getAsString() + ": " + name + " = " + value);
                        }
                        if (name.equals("state")) {
                            states.add(value);
                        }
                    }
                }
                assertThat(hints).containsExactly("OpenMP process: note = " + dev.jompd.report.OpenMpPicture.UNTRACKED_HINT);
                assertThat(states).containsExactly("not tracked");
            }
            JsonObject tree = client.body("jompd/openmpTree", null);
            assertThat(tree.getAsJsonArray("notices").asList().stream().map(JsonElement::getAsString).toList())
                    .containsExactly(dev.jompd.report.OpenMpPicture.UNTRACKED_HINT);
            JsonObject stacks = client.body("jompd/parallelStacks", null);
            assertThat(stacks.getAsJsonArray("notices").asList().stream().map(JsonElement::getAsString).toList())
                    .containsExactly(dev.jompd.report.OpenMpPicture.UNTRACKED_HINT);
            assertThat(stacks.getAsJsonArray("threads").asList().stream()
                    .map(t -> t.getAsJsonObject().get("state").getAsString()).toList())
                    .hasSize(fixture.facts().threadCount()).containsOnly("not tracked");
            client.body("disconnect", args());
        }
    }

    /**
     * Continue, each step and pause on a core: each answered once, with the one message, quietly (the client
     * shows it where the button was pressed); no continued or stopped event follows, and the OpenMP picture
     * and the threads are the same after as before.
     */
    @Test
    void runRequestsOnACoreAnswerOneMessageAndThePictureStays() throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "3", "2"));
        try (DapTestClient client = new DapTestClient(server.port())) {
            int thread = openCore(client, fixture).get("threadId").getAsInt();
            JsonObject pictureBefore = client.body("jompd/openmpTree", null);
            JsonObject threadsBefore = client.body("threads", null);
            int eventsBefore = client.events().size();
            for (String command : List.of("continue", "next", "stepIn", "stepOut", "pause")) {
                JsonObject answer = client.request(command, args("threadId", thread));
                assertThat(answer.get("success").getAsBoolean()).as(command).isFalse();
                assertThat(answer.get("message").getAsString()).as(command).isEqualTo("A core file cannot run or step: "
                        + "this post-mortem session shows the program as the core recorded it, and its threads, stacks and "
                        + "OpenMP picture stay as they are");
                JsonObject error = answer.getAsJsonObject("body").getAsJsonObject("error");
                assertThat(error.get("id").getAsInt()).as(command).isEqualTo(1103);
            }
            assertThat(client.body("jompd/openmpTree", null)).isEqualTo(pictureBefore);
            assertThat(client.body("threads", null)).isEqualTo(threadsBefore);
            assertThat(client.events().subList(eventsBefore, client.events().size()))
                    .as("events after the run requests").isEmpty();
            client.body("disconnect", args());
        }
    }

    /**
     * Where the picture is thinnest — Debian's stripped libomp read through its profile, without OMP_DEBUG — the DAP
     * doors answer in words: no OMPD return code in any scope's rows, the OpenMP view's tree, the parallel stacks or
     * any console command.
     */
    @Test
    void noReturnCodeReachesTheUserOnAThinPicture() throws Exception {
        StoppedFixture fixture = Fixtures.core(StockRuntimes.onDebian(FixtureRun.of(Fixture.NESTED, "2", "3"), 19)
                .withEnvironment("OMP_DEBUG", "disabled"));
        try (DapTestClient client = new DapTestClient(server.port())) {
            openCore(client, fixture);
            StringBuilder said = new StringBuilder();
            for (JsonElement thread : client.body("threads", null).getAsJsonArray("threads")) {
                said.append(thread).append('\n');
                JsonObject top = client.body("stackTrace", args("threadId", thread.getAsJsonObject().get("id").getAsInt(),
                        "levels", 1)).getAsJsonArray("stackFrames").get(0).getAsJsonObject();
                for (JsonElement scope : client.body("scopes", args("frameId", top.get("id").getAsInt())).getAsJsonArray("scopes")) {
                    variables(client, scope.getAsJsonObject().get("variablesReference").getAsInt(), said, 0);
                }
                for (String command : List.of("threads", "parallel", "icvs", "tasks", "tree all", "stacks", "diagnose", "json")) {
                    JsonObject answer = client.request("evaluate", args("expression", "ompd " + command, "context", "repl",
                            "frameId", top.get("id").getAsInt()));
                    said.append(answer).append('\n');
                }
            }
            said.append(client.body("jompd/openmpTree", null)).append(client.body("jompd/parallelStacks", null));
            assertThat(said.toString()).doesNotContain("ompd_rc");
            client.body("disconnect", args());
        }
    }

    /**
     * A core whose thread stops in libomp's barrier code (its source on this machine): the frames down to the
     * user's barrier line (the one the fixture recorded) are the runtime's and libc's, deemphasized, so that a
     * client focuses the user's frame; that frame and the user's frames below it are not.
     */
    @Test
    void aStopInsideTheRuntimeLeavesOnlyTheUsersFramesUndeemphasized() throws Exception {
        StoppedFixture fixture = RuntimeStopCores.barrierWaitCore();
        try (DapTestClient client = new DapTestClient(server.port())) {
            int thread = openCore(client, fixture).get("threadId").getAsInt();
            JsonArray frames = client.body("stackTrace", args("threadId", thread, "startFrame", 0, "levels", 40))
                    .getAsJsonArray("stackFrames");
            // every frame is deemphasized but those of the program's own source file; the first of those is the
            // barrier's line the fixture recorded
            List<String> framesAndHints = new ArrayList<>();
            List<String> expected = new ArrayList<>();
            for (JsonElement element : frames) {
                JsonObject frame = element.getAsJsonObject();
                JsonObject source = frame.getAsJsonObject("source");
                String name = source == null ? "(no source)" : source.get("name").getAsString();
                boolean deemphasized = source == null || frame.has("presentationHint")
                        || source.has("presentationHint") && source.get("presentationHint").getAsString().equals("deemphasize");
                framesAndHints.add(name + (deemphasized ? " deemphasized" : " shown"));
                expected.add(name + (name.equals("barrier_straggler.c") ? " shown" : " deemphasized"));
            }
            assertThat(framesAndHints).as(frames.toString()).isEqualTo(expected);
            JsonObject first = frames.asList().stream().map(JsonElement::getAsJsonObject)
                    .filter(f -> f.has("source") && f.getAsJsonObject("source").get("name").getAsString().equals("barrier_straggler.c"))
                    .findFirst().orElseThrow();
            assertThat(first.get("line").getAsInt()).isEqualTo(fixture.facts().number("hang.barrier.line"));
            assertThat(framesAndHints.indexOf("barrier_straggler.c shown")).as("libomp's frames above the user's")
                    .isGreaterThan(1);
            client.body("disconnect", args());
        }
    }

    /** Every row under {@code reference}, its children too (a few levels: the rows jompd's scopes have). */
    private static void variables(DapTestClient client, int reference, StringBuilder said, int depth) throws IOException {
        if (reference == 0 || depth > 4) {
            return;
        }
        for (JsonElement variable : client.body("variables", args("variablesReference", reference)).getAsJsonArray("variables")) {
            said.append(variable).append('\n');
            variables(client, variable.getAsJsonObject().get("variablesReference").getAsInt(), said, depth + 1);
        }
    }

    /**
     * A core opened with another program than the one it was made of: refused at launch, with the command
     * line's words, shown to the user; the build-ids are the files' own (readelf).
     */
    @Test
    void aCoreWithAnotherProgramIsRefusedAsTheCommandLineRefusesIt() throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "3", "2"));
        java.nio.file.Path other = Fixtures.executable(FixtureRun.of(Fixture.SERIAL));
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd"));
            JsonObject answer = client.request("launch", args("program", other.toString(),
                    "coreDumpPath", fixture.core().toString()));
            assertThat(answer.get("success").getAsBoolean()).isFalse();
            assertThat(answer.get("message").getAsString()).isEqualTo(("core was made with a different %s: the core's copy "
                    + "has build-id %s, but %s has build-id %s").formatted(fixture.executable().getFileName(),
                    buildId(fixture.executable()), other, buildId(other)));
            JsonObject error = answer.getAsJsonObject("body").getAsJsonObject("error");
            assertThat(error.get("id").getAsInt()).isEqualTo(1303);
            assertThat(error.get("showUser").getAsBoolean()).isTrue();
        }
    }

    /** The GNU build-id note of {@code file}, as readelf prints it. */
    static String buildId(java.nio.file.Path file) throws IOException {
        String notes = dev.jompd.testkit.Commands.run(List.of("readelf", "-n", file.toString()), Map.of(), null,
                Duration.ofSeconds(30)).output();
        java.util.regex.Matcher id = java.util.regex.Pattern.compile("Build ID: ([0-9a-f]+)").matcher(notes);
        assertThat(id.find()).as("a build-id in " + file + ":\n" + notes).isTrue();
        return id.group(1);
    }

    /** Debian's own libomp5-19, stripped as distributions ship it: names and scopes through its profile. */
    @Test
    void debiansStrippedRuntimeShowsEveryThreadAndScope() throws Exception {
        StoppedFixture fixture = Fixtures.core(StockRuntimes.onDebian(FixtureRun.of(Fixture.NESTED, "2", "3"), 19));
        try (DapTestClient client = new DapTestClient(server.port())) {
            openCore(client, fixture);
            assertEveryThreadsNameAndScopes(client, fixture.facts());
            JsonObject tree = client.body("jompd/openmpTree", null);
            assertThat(tree.getAsJsonObject("target").get("runtimeRead").getAsString()).startsWith("profile libomp 19.");
            client.body("disconnect", args());
        }
    }

    /**
     * The doors agree: on a thread inside a serialized nested region, the DAP server's tree is the command
     * line's document (the same picture, rendered by the same report), the scope's "serialized" row says
     * what the JSON's region says, and the DAP thread names are the JSON's names.
     */
    @Test
    void theDapTreeIsTheCommandLinesDocumentAndSerializedMeansTheSame() throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.SERIALIZED, "3", "3"));
        JsonObject expected;
        OpenMpPicture commandLines;
        String commandLinesStacks;
        List<Diagnosis.Finding> commandLinesFindings;
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core()); Symbolizer symbols = new Symbolizer(core);
             DebugInfoCache debugInfo = new DebugInfoCache(); Unwinder unwinder = new Unwinder(core, debugInfo)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            commandLines = OpenMpPicture.take(process, new TargetDescription("core", fixture.core().toString(),
                    core.name(), process.layout().runtimeModule()), new CodeNames(symbols));
            expected = JsonReport.toJson(commandLines);
            ParallelStacks stacks = ParallelStacks.of(commandLines, core, unwinder);
            commandLinesStacks = TextReport.stacks(stacks);
            commandLinesFindings = Diagnosis.of(commandLines, Optional.of(stacks));
        }
        try (DapTestClient client = new DapTestClient(server.port())) {
            int stoppedThread = openCore(client, fixture).get("threadId").getAsInt();
            JsonObject tree = client.body("jompd/openmpTree", null);
            assertThat(tree).isEqualTo(expected);

            Map<String, JsonObject> regions = new HashMap<>();
            for (JsonElement region : tree.getAsJsonArray("regions")) {
                regions.put(region.getAsJsonObject().get("id").getAsString(), region.getAsJsonObject());
            }
            Map<Long, String> names = new HashMap<>();
            for (JsonElement thread : tree.getAsJsonArray("threads")) {
                names.put(thread.getAsJsonObject().get("lwp").getAsLong(), thread.getAsJsonObject().get("name").getAsString());
            }
            Map<Long, Integer> ids = OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), fixture.facts());
            int serializedSeen = 0;
            for (JsonElement element : tree.getAsJsonArray("threads")) {
                JsonObject thread = element.getAsJsonObject();
                long lwp = thread.get("lwp").getAsLong();
                JsonObject top = client.body("stackTrace", args("threadId", ids.get(lwp), "levels", 1))
                        .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
                Map<String, String> region = OpenMpExpectations.scopeVariables(client,
                        client.body("scopes", args("frameId", top.get("id").getAsInt())), "OpenMP parallel region");
                boolean serialized = regions.get(thread.get("region").getAsString()).get("serialized").getAsBoolean();
                // the program's own truth: the innermost region it runs in is serialized iff its team has one thread
                Facts.ThreadFacts facts = fixture.facts().threadWithLwp(lwp).orElseThrow();
                boolean recorded = facts.level() > 0 && facts.teamSizes().get(facts.level() - 1) == 1;
                assertThat(serialized).as("LWP %d serialized, as the program saw its team (%s)", lwp, facts.teamSizes())
                        .isEqualTo(recorded);
                assertThat(region).as("LWP %d", lwp).containsEntry("serialized", String.valueOf(serialized));
                serializedSeen += serialized ? 1 : 0;
                Map<String, String> threadScope = OpenMpExpectations.scopeVariables(client,
                        client.body("scopes", args("frameId", top.get("id").getAsInt())), "OpenMP thread");
                assertThat(threadScope).containsEntry("name", names.get(lwp));
                assertConsoleIsTheBridges(client, commandLines, ids, lwp, top.get("id").getAsInt(), regions);
            }
            assertThat(normalised(client.body("evaluate", args("expression", "ompd threads", "context", "repl"))
                    .get("result").getAsString())).isEqualTo(normalised(ConsoleReport.threads(commandLines,
                    consoleOptions(ids, ids.entrySet().stream().filter(e -> e.getValue() == stoppedThread)
                            .mapToLong(Map.Entry::getKey).findFirst().orElse(-1)), ids.entrySet().stream().map(e -> new ConsoleReport.DebuggerThread(
                            e.getValue(), java.util.OptionalLong.of(e.getKey()))).toList())));
            assertThat(serializedSeen).as("threads inside serialized regions").isPositive();
            // the console's stacks: each thread's path through them is where the program says it is (the marker in
            // jompd_marker, the others at the gate, each below its own chain of nest() calls), and the text is the
            // command line's on the same core
            String stacks = client.body("evaluate", args("expression", "ompd stacks", "context", "repl"))
                    .get("result").getAsString();
            assertThat(stacks.lines().findFirst().orElseThrow())
                    .isEqualTo("Parallel stacks: " + fixture.facts().threadCount() + " OpenMP threads");
            assertEachThreadsPathIsWhereTheProgramIs(stacks, tree, fixture.facts());
            assertThat(stacks).isEqualTo(commandLinesStacks.stripTrailing());
            // the console's diagnosis: no thread waits in an OpenMP construct (the facts: each one is in the marker or
            // at the fixture's own gate), so the one finding is "none", over every thread; and it is the command line's
            assertNoThreadWaitsInOpenMp(JsonReport.findings(commandLinesFindings), fixture.facts());
            assertThat(client.body("evaluate", args("expression", "ompd diagnose", "context", "repl"))
                    .get("result").getAsString()).isEqualTo(TextReport.diagnosis(commandLinesFindings).stripTrailing());
            client.body("disconnect", args());
        }
    }

    /** The command line's findings ({@code jompd diagnose --json}) of the fixture's core: its picture, stacks, diagnosis. */
    static JsonArray commandLinesFindings(StoppedFixture fixture) throws IOException {
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core()); Symbolizer symbols = new Symbolizer(core);
             DebugInfoCache debugInfo = new DebugInfoCache(); Unwinder unwinder = new Unwinder(core, debugInfo)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            OpenMpPicture picture = OpenMpPicture.take(process, new TargetDescription("core", fixture.core().toString(),
                    core.name(), process.layout().runtimeModule()), new CodeNames(symbols));
            return JsonReport.findings(Diagnosis.of(picture, Optional.of(ParallelStacks.of(picture, core, unwinder))));
        }
    }

    /**
     * The facts say every thread is in the fixture's marker or at its gate, none in an OpenMP wait: the diagnosis
     * ({@code jompd diagnose --json}'s findings) is exactly the one finding that nothing waits, naming no thread,
     * its evidence the states and stacks of every recorded thread.
     */
    static void assertNoThreadWaitsInOpenMp(JsonArray findings, Facts facts) {
        assertThat(facts.threads().stream().map(Facts.ThreadFacts::role).distinct())
                .as("the fixture's roles (the truth below holds for these)").isSubsetOf("marker", "gate");
        assertThat(findings.asList().stream().map(f -> f.getAsJsonObject().get("kind").getAsString()).toList())
                .as(findings.toString()).containsExactly("none");
        JsonObject none = findings.get(0).getAsJsonObject();
        assertThat(none.getAsJsonArray("threads")).as(findings.toString()).isEmpty();
        assertThat(none.has("place")).as(findings.toString()).isFalse();
        assertThat(none.getAsJsonArray("evidence").asList().stream().map(JsonElement::getAsString).toList())
                .containsExactly("states and stacks of " + facts.threadCount() + " threads");
    }

    /**
     * The console's {@code ompd stacks} of serialized.c, read back as each thread's path from a root to its leaf:
     * the leaves hold every recorded thread once, and each path's frames of the program (serialized.c and
     * fixture.c) are, outermost first, {@code main} for the initial thread only, {@code nest} once per level the
     * thread is at (nest at depth 0 in the outer region, then once in each serialized region), {@code innermost},
     * then {@code fx_write_facts_and_mark, jompd_marker} for the marker and {@code fx_gate_wait} for the others.
     */
    private static void assertEachThreadsPathIsWhereTheProgramIs(String stacks, JsonObject tree, Facts facts) {
        Map<String, Long> lwpByName = new HashMap<>();
        Map<Long, Long> lwpByGtid = new HashMap<>();
        for (JsonElement element : tree.getAsJsonArray("threads")) {
            JsonObject thread = element.getAsJsonObject();
            lwpByName.put(thread.get("name").getAsString(), thread.get("lwp").getAsLong());
            lwpByGtid.put(thread.get("gtid").getAsLong(), thread.get("lwp").getAsLong());
        }
        Map<Long, List<String>> programFrames = new HashMap<>();
        for (Map.Entry<List<String>, String> leaf : stackLeaves(stacks).entrySet()) {
            String who = leaf.getValue();
            List<Long> lwps = who.startsWith("gtids ")
                    ? gtids(who.substring("gtids ".length()).replaceFirst(", all .*$", "")).stream().map(lwpByGtid::get).toList()
                    : java.util.Collections.singletonList(lwpByName.get(who));
            List<String> frames = leaf.getKey().stream()
                    .map(step -> java.util.regex.Pattern.compile("^(\\S+) \\((?:serialized|fixture)\\.c:\\d+\\)$").matcher(step))
                    .filter(java.util.regex.Matcher::matches).map(m -> m.group(1)).toList();
            for (Long lwp : lwps) {
                assertThat(programFrames.put(lwp, frames)).as("LWP %s at two leaves of\n%s", lwp, stacks).isNull();
            }
        }
        assertThat(programFrames.keySet()).as(stacks)
                .containsExactlyInAnyOrderElementsOf(facts.threads().stream().map(Facts.ThreadFacts::lwp).toList());
        for (Facts.ThreadFacts thread : facts.threads()) {
            List<String> expected = new ArrayList<>();
            if (thread.lwp() == facts.number("pid")) {
                expected.add("main");
            }
            expected.addAll(java.util.Collections.nCopies(thread.level(), "nest"));
            expected.add("innermost");
            expected.addAll(thread.role().equals("marker") ? List.of("fx_write_facts_and_mark", "jompd_marker")
                    : List.of("fx_gate_wait"));
            assertThat(programFrames.get(thread.lwp())).as("%s (%s): its program's frames in\n%s", thread, thread.role(), stacks)
                    .isEqualTo(expected);
        }
    }

    /**
     * The text's merged tree as paths: each leaf's steps from its root, and the threads the leaf names
     * ({@code gtids 9-10, all …} or one thread's name). A line's depth is its indent; a line without threads
     * goes on into the next line at its own depth (a chain all its threads pass), a line with threads and
     * children has them one deeper.
     */
    private static Map<List<String>, String> stackLeaves(String stacks) {
        java.util.regex.Pattern line = java.util.regex.Pattern.compile("^((?:  )+)\\d+× (.*?)(?:   \\[(.*)\\])?$");
        List<String> text = stacks.lines().skip(1).filter(l -> !l.startsWith("  note: ")).toList();
        Map<List<String>, String> leaves = new java.util.LinkedHashMap<>();
        List<String> path = new ArrayList<>();
        List<Integer> depths = new ArrayList<>();
        boolean previousNamedThreads = true;
        for (int i = 0; i < text.size(); i++) {
            java.util.regex.Matcher m = line.matcher(text.get(i));
            assertThat(m.matches()).as("a stacks line: %s", text.get(i)).isTrue();
            int depth = m.group(1).length() / 2;
            boolean chain = !previousNamedThreads && depth == depths.getLast();
            previousNamedThreads = m.group(3) != null;
            while (!chain && !depths.isEmpty() && depths.getLast() >= depth) {
                path.removeLast();
                depths.removeLast();
            }
            path.add(m.group(2));
            depths.add(depth);
            java.util.regex.Matcher next = i + 1 < text.size() ? line.matcher(text.get(i + 1)) : null;
            boolean hasChildren = next != null && next.matches() && next.group(1).length() / 2 == depth + 1;
            if (m.group(3) != null && !hasChildren) {
                leaves.put(List.copyOf(path), m.group(3));
            }
        }
        return leaves;
    }

    /** {@code 0,2-4} as 0, 2, 3, 4. */
    private static List<Long> gtids(String ranges) {
        List<Long> values = new ArrayList<>();
        for (String part : ranges.split(",")) {
            String[] ends = part.split("-");
            for (long g = Long.parseLong(ends[0]); g <= Long.parseLong(ends[ends.length - 1]); g++) {
                values.add(g);
            }
        }
        return values;
    }

    /**
     * The debug console's {@code ompd parallel}, {@code ompd icvs} and {@code ompd tasks} for the frame's thread are the gdb bridge's
     * rendering ({@link ConsoleReport}) of the command line's picture of the same core, named by gdb's numbers
     * (ConsolesAgreeIT in gdb-adapter holds the bridge to the same); "serialized" on a level iff the JSON says so.
     */
    private static void assertConsoleIsTheBridges(DapTestClient client, OpenMpPicture commandLines, Map<Long, Integer> ids,
                                                  long lwp, int frameId, Map<String, JsonObject> regions) throws IOException {
        OpenMpPicture.OpenMpThread thread = commandLines.threadByLwp(lwp).orElseThrow();
        ConsoleReport.Options options = consoleOptions(ids, lwp);
        String parallel = client.body("evaluate", args("expression", "ompd parallel", "context", "repl", "frameId", frameId))
                .get("result").getAsString();
        assertThat(parallel).isEqualTo(ConsoleReport.parallel(commandLines, thread, options).stripTrailing());
        List<String> levels = parallel.lines().filter(line -> line.startsWith("level ")).toList();
        List<Boolean> serialized = new ArrayList<>();
        for (java.util.Optional<String> id = thread.region(); id.isPresent();
             id = regions.get(id.get()).get("enclosing").isJsonNull() ? java.util.Optional.empty()
                     : java.util.Optional.of(regions.get(id.get()).get("enclosing").getAsString())) {
            serialized.add(regions.get(id.get()).get("serialized").getAsBoolean());
        }
        assertThat(levels.stream().map(line -> line.contains(", serialized")).toList()).as(parallel).isEqualTo(serialized);
        String icvs = client.body("evaluate", args("expression", "ompd icvs", "context", "repl", "frameId", frameId))
                .get("result").getAsString();
        assertThat(icvs).isEqualTo(ConsoleReport.icvs(commandLines, ConsoleReport.IcvSelection.of(""),
                java.util.Optional.of(thread), options).stripTrailing());
        String tasks = client.body("evaluate", args("expression", "ompd tasks", "context", "repl", "frameId", frameId))
                .get("result").getAsString();
        assertThat(tasks).isEqualTo(ConsoleReport.tasks(commandLines, thread, options).stripTrailing());
    }

    /** The consoles' names of threads: gdb's numbers (the DAP thread ids), the thread of {@code selectedLwp} selected. */
    static ConsoleReport.Options consoleOptions(Map<Long, Integer> ids, long selectedLwp) {
        return new ConsoleReport.Options("gdb", t -> t.lwp().isPresent() && ids.containsKey(t.lwp().getAsLong())
                ? java.util.OptionalInt.of(ids.get(t.lwp().getAsLong())) : java.util.OptionalInt.empty(),
                t -> t.lwp().isPresent() && t.lwp().getAsLong() == selectedLwp);
    }

    /** The backend's name differs between a door's target and the command line's: "in core:/x (" → "in … (". */
    static String normalised(String threads) {
        return threads.strip().replaceFirst(" threads in \\S+ \\(", " threads in … (");
    }

    /** The console's {@code ompd diagnose} on the nest-lock deadlock: the cycle, each holder with its LWP (the facts'). */
    @Test
    void consoleDiagnoseNamesTheNestLockDeadlockAndItsHolders() throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest"));
        Facts facts = fixture.facts();
        try (DapTestClient client = new DapTestClient(server.port())) {
            openCore(client, fixture);
            String diagnosis = client.body("evaluate", args("expression", "ompd diagnose", "context", "repl"))
                    .get("result").getAsString();
            String deadlock = diagnosis.lines().filter(l -> l.strip().startsWith("- deadlock: omp")).findFirst()
                    .orElseThrow(() -> new AssertionError("no deadlock in\n" + diagnosis));
            // the whole cycle, from either of its threads: each holder waits for the other's lock (the program's
            // element of nest_locks and libomp's lock, both as gdb finds them from the addresses the program recorded)
            Map<String, String> words = new HashMap<>();
            Map<String, String> holders = new HashMap<>();
            for (String lock : List.of("A", "B")) {
                Facts.ThreadFacts holder = facts.thread((int) facts.number("hang.lock." + lock + ".holder"));
                holders.put(lock, "omp " + holder.threadNum() + "/" + holder.teamSize() + " (LWP " + holder.lwp() + ")");
                String address = facts.get("hang.lock." + lock + ".address");
                int element = java.util.stream.IntStream.range(0, 3).filter(k -> fixture.gdb().evaluate("(long)&main::nest_locks["
                        + k + "]").asLong() == Long.decode(address)).findFirst().orElseThrow();
                long index = fixture.gdb().evaluate("(long)(*(unsigned*)" + address + " >> 1)").asLong();
                long object = fixture.gdb().evaluate("(long)__kmp_i_lock_table.table[" + index / 1024 + "][" + index % 1024
                        + "].lock").asLong();
                words.put(lock, "lock `nest_locks[" + element + "]` (nested queuing lock #" + index + " at 0x"
                        + Long.toHexString(object) + ")");
            }
            // (the facts' cycle: A's holder waits for B, B's for A)
            assertThat(List.of(facts.thread((int) facts.number("hang.lock.A.holder")).get("waits_for"),
                    facts.thread((int) facts.number("hang.lock.B.holder")).get("waits_for"))).containsExactly("B", "A");
            String fromA = "- deadlock: " + holders.get("A") + " waits for " + words.get("B") + " held by " + holders.get("B")
                    + ", which waits for " + words.get("A") + " held by " + holders.get("A");
            String fromB = "- deadlock: " + holders.get("B") + " waits for " + words.get("A") + " held by " + holders.get("A")
                    + ", which waits for " + words.get("B") + " held by " + holders.get("B");
            assertThat(deadlock.strip()).as(diagnosis).isIn(fromA, fromB);
            assertThat(diagnosis.lines().filter(l -> l.strip().startsWith("- deadlock: ")).count()).as(diagnosis).isEqualTo(1);
            client.body("disconnect", args());
        }
    }

    /**
     * jompd/parallelStacks: its tree is the command line's ({@code jompd inspect --stacks --json} of the same
     * core: the same report on the same unwinder), its thread ids are the DAP threads of the fixture's own
     * LWPs, the marker's node holds exactly the thread that recorded itself as the marker, and the frame
     * index it gives for each step of a thread's path is a frame gdb names the same (gdb's stackTrace).
     */
    @Test
    void parallelStacksAreTheCommandLinesTreeWithTheDebuggersThreadsAndFrames() throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4"));
        JsonObject expected;
        JsonArray expectedFindings;
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core()); Symbolizer symbols = new Symbolizer(core);
             DebugInfoCache debugInfo = new DebugInfoCache(); Unwinder unwinder = new Unwinder(core, debugInfo)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            OpenMpPicture picture = OpenMpPicture.take(process, new TargetDescription("core", fixture.core().toString(),
                    core.name(), process.layout().runtimeModule()), new CodeNames(symbols));
            ParallelStacks stacks = ParallelStacks.of(picture, core, unwinder);
            expected = JsonReport.stacks(stacks);
            expectedFindings = JsonReport.findings(Diagnosis.of(picture, Optional.of(stacks)));
        }
        Facts facts = fixture.facts();
        try (DapTestClient client = new DapTestClient(server.port())) {
            JsonObject stopped = openCore(client, fixture);
            JsonObject answer = client.body("jompd/parallelStacks", null);
            assertThat(answer.getAsJsonObject("stacks")).isEqualTo(expected);
            assertThat(answer.get("threadId").getAsInt()).isEqualTo(stopped.get("threadId").getAsInt());
            // the diagnosis: what the facts say (no thread waits in OpenMP), and the command line's finding list
            assertNoThreadWaitsInOpenMp(answer.getAsJsonArray("diagnosis"), facts);
            assertThat(answer.getAsJsonArray("diagnosis")).isEqualTo(expectedFindings);

            Map<Long, Integer> ids = OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), facts);
            Map<Integer, JsonObject> byDapId = new HashMap<>();
            Map<Long, JsonObject> byGtid = new HashMap<>();
            for (JsonElement element : answer.getAsJsonArray("threads")) {
                JsonObject thread = element.getAsJsonObject();
                byDapId.put(thread.get("threadId").getAsInt(), thread);
                byGtid.put(thread.get("gtid").getAsLong(), thread);
            }
            for (Facts.ThreadFacts thread : facts.threads()) {
                JsonObject shown = byDapId.get(ids.get(thread.lwp()));
                assertThat(shown).as("thread of LWP %d", thread.lwp()).isNotNull();
                assertThat(shown.get("threadNum").getAsInt()).isEqualTo(thread.threadNum());
            }
            JsonArray roots = answer.getAsJsonObject("stacks").getAsJsonArray("tree");
            assertThat(roots.asList().stream().mapToInt(root -> root.getAsJsonObject().getAsJsonArray("gtids").size()).sum())
                    .isEqualTo(facts.threadCount());
            List<JsonObject> markerNodes = new ArrayList<>();
            roots.forEach(root -> collect(root.getAsJsonObject(), "jompd_marker", markerNodes));
            assertThat(markerNodes).hasSize(1);
            JsonArray markerThreads = markerNodes.getFirst().getAsJsonArray("gtids");
            assertThat(markerThreads).hasSize(1);
            Facts.ThreadFacts marker = facts.threads().stream().filter(t -> t.role().equals("marker")).findFirst().orElseThrow();
            assertThat(byGtid.get(markerThreads.get(0).getAsLong()).get("threadId").getAsInt()).isEqualTo(ids.get(marker.lwp()));

            // each user step's frame index names, in gdb's own stack of that thread, the step's function
            for (JsonObject thread : byDapId.values()) {
                JsonArray gdbFrames = client.body("stackTrace", args("threadId", thread.get("threadId").getAsInt()))
                        .getAsJsonArray("stackFrames");
                List<String> steps = new ArrayList<>();
                pathOf(roots, thread.get("gtid").getAsLong(), steps);
                JsonArray frames = thread.getAsJsonArray("stepFrames");
                assertThat(frames).as("steps of gtid %s", thread.get("gtid")).hasSize(steps.size());
                int mainStep = steps.indexOf(steps.stream().filter(step -> step.startsWith("main ")).findFirst().orElse(""));
                int compared = 0;
                for (int d = 0; d < steps.size(); d++) {
                    if (steps.get(d).startsWith("[")) {
                        continue; // a folded run of libomp's frames
                    }
                    if (frames.get(d).getAsInt() >= gdbFrames.size()) {
                        // gdb's backtrace ends at main; jompd's unwinder goes on to _start
                        assertThat(d).as("step %d of gtid %s outside gdb's stack", d, thread.get("gtid")).isLessThan(mainStep);
                        continue;
                    }
                    String gdbName = gdbFrames.get(frames.get(d).getAsInt()).getAsJsonObject().get("name").getAsString();
                    // a construct's code reads "parallel region at nested.c:53 (region.omp_outlined)"
                    String step = steps.get(d);
                    String function = step.matches("(parallel region|task) at .*\\(.*\\).*")
                            ? step.substring(step.indexOf('(') + 1, step.lastIndexOf(')')) : step;
                    assertThat(function).as("step %d of gtid %s: %s", d, thread.get("gtid"), step).startsWith(gdbName);
                    compared++;
                }
                assertThat(compared).isPositive();
            }
            client.body("disconnect", args());
        }
    }

    private static void collect(JsonObject node, String function, List<JsonObject> found) {
        if (node.get("step").getAsString().startsWith(function + " ")) {
            found.add(node);
        }
        node.getAsJsonArray("children").forEach(child -> collect(child.getAsJsonObject(), function, found));
    }

    /** The steps of the path of thread {@code gtid} through the merged tree, outermost first. */
    private static void pathOf(JsonArray nodes, long gtid, List<String> steps) {
        for (JsonElement element : nodes) {
            JsonObject node = element.getAsJsonObject();
            if (node.getAsJsonArray("gtids").asList().stream().anyMatch(g -> g.getAsLong() == gtid)) {
                steps.add(node.get("step").getAsString());
                pathOf(node.getAsJsonArray("children"), gtid, steps);
                return;
            }
        }
    }
}
