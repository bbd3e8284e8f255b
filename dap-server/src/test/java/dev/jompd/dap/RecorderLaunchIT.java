package dev.jompd.dap;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Offload;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The launch attribute {@code recorder}: the program runs with the jompd-recorder (the console says so, the
 * ring size passes through the launch's environment), and at a stop the thread scope answers why the thread
 * is here, the OpenMP tree and {@code ompd tree} too; a core of an offloading program shows its devices in
 * the process scope. Truth: what the programs recorded (locks, LWPs, devices) and their source text.
 */
class RecorderLaunchIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    @Test
    void launchWithRecorderAnswersWhyEachDeadlockedThreadWaits(@TempDir Path work) throws Exception {
        Path program = FixtureBuilder.executable(Fixture.RECORDER_DEADLOCK);
        Path factsFile = work.resolve("facts.properties");
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            client.event("initialized", Duration.ofSeconds(10));
            client.body("launch", args("program", program.toString(), "cwd", work.toString(), "recorder", true,
                    "environment", array(LaunchIT.environment("JOMPD_FACTS", factsFile.toString()),
                            LaunchIT.environment("JOMPD_RECORDER_EVENTS", "256"))));
            client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", "jompd_marker"))));
            client.body("configurationDone", null);
            client.event("stopped", STOP);
            client.event("jompd/openmpChanged", Duration.ofSeconds(30));
            assertThat(client.outputText()).contains("the jompd-recorder records what OpenMP does")
                    .contains("256 events per thread");
            Facts facts = Facts.read(factsFile);

            JsonObject tree = client.body("jompd/openmpTree", null);
            assertThat(tree.getAsJsonObject("recorder").get("ringCapacity").getAsLong()).isEqualTo(256);

            Map<Long, Integer> ids = OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), facts);
            for (int k = 1; k <= 2; k++) {
                JsonObject top = client.body("stackTrace", args("threadId", ids.get(facts.thread(k).lwp()), "levels", 1))
                        .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
                JsonObject scopes = client.body("scopes", args("frameId", top.get("id").getAsInt()));
                Map<String, String> threadRows = OpenMpExpectations.scopeVariables(client, scopes, "OpenMP thread");
                assertThat(threadRows).containsKeys("why here", "recent events");
                String why = String.join("\n", children(client, scopes, "OpenMP thread", "why here"));
                // the OpenMP view's input: the jompd/openmpTree answer's whyHere for the same thread
                String whyInTree = String.join("\n", treeThread(tree, facts.thread(k).lwp()).getAsJsonArray("whyHere")
                        .asList().stream().map(JsonElement::getAsString).toList());
                for (String fragment : RecorderLibrary.deadlockWhyHere(facts, k)) {
                    assertThat(why).as("why thread %d is here", k).contains(fragment);
                    assertThat(whyInTree).as("why thread %d is here, in jompd/openmpTree", k).contains(fragment);
                }
                // the thread scope holds every event the ring keeps, as the JSON does
                List<String> kept = treeThread(tree, facts.thread(k).lwp()).getAsJsonArray("events").asList().stream()
                        .map(e -> e.getAsJsonObject().get("event").getAsString()).toList();
                assertThat(kept).as("events of thread %d", k).hasSizeGreaterThan(3);
                assertThat(children(client, scopes, "OpenMP thread", "recent events")).as("thread %d", k)
                        .containsExactlyElementsOf(kept);
            }
            String console = client.body("evaluate", args("expression", "ompd tree", "context", "repl")).get("result").getAsString();
            assertThat(console).contains(": why here").contains(RecorderLibrary.deadlockWhyHere(facts, 2).getFirst())
                    .contains(" events kept:");
            String everything = client.body("evaluate", args("expression", "ompd tree history all", "context", "repl"))
                    .get("result").getAsString();
            assertThat(everything).contains(" events kept:").doesNotContain(", last ");
            assertThat(client.body("evaluate", args("expression", "ompd tree all history 3", "context", "repl"))
                    .get("result").getAsString()).contains("last 3 of ");
            client.request("disconnect", args("terminateDebuggee", true));
        }
    }

    @Test
    void recorderAttributeOnACoreChangesNothingAndTheCoreShowsWhatTheRecorderKept() throws Exception {
        // A core cannot be given a tool (the extension refuses the combination, debugConfiguration.test.ts); the
        // server ignores the attribute there: the core shows what the recorder kept when the program had it.
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_DEADLOCK)));
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd"));
            client.body("launch", args("program", fixture.executable().toString(), "coreDumpPath", fixture.core().toString(),
                    "recorder", true));
            client.body("configurationDone", null);
            client.event("stopped", Duration.ofSeconds(60));
            assertThat(client.outputText()).doesNotContain("the jompd-recorder records what OpenMP does");
            JsonObject tree = client.body("jompd/openmpTree", null);
            assertThat(tree.getAsJsonObject("recorder")).as("what the recorder kept in the core").isNotNull();
            client.request("disconnect", null);
        }
    }

    @Test
    void coreOfAnOffloadingProgramShowsItsDevicesInTheProcessScope() throws Exception {
        Offload.unavailableReason().ifPresent(reason -> {
            System.out.println("[jompd] offload test skipped: " + reason);
            Assumptions.abort(reason);
        });
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_OFFLOAD, "5"))
                .withEnvironment("LD_LIBRARY_PATH", Offload.RUNTIME_DIRECTORY.toString()));
        Facts facts = fixture.facts();
        try (DapTestClient client = new DapTestClient(server.port())) {
            CoreIT.openCore(client, fixture);
            Map<Long, Integer> ids = OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), facts);
            JsonObject top = client.body("stackTrace", args("threadId", ids.get(facts.thread(0).lwp()), "levels", 1))
                    .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
            Map<String, String> process = OpenMpExpectations.scopeVariables(client,
                    client.body("scopes", args("frameId", top.get("id").getAsInt())), "OpenMP process");
            long devices = facts.number("num_devices");
            for (int device = 0; device < facts.number("devices_used"); device++) {
                final int number = device;
                long regions = java.util.stream.LongStream.range(0, facts.number("target_regions")).filter(i -> i % devices == number).count();
                assertThat(process.get("device " + device)).as("device " + device)
                        .contains(regions + (regions == 1 ? " target region" : " target regions"))
                        .contains("by LWP " + facts.thread(0).lwp()).contains("tracing unavailable");
            }
            // the OpenMP view's input: recorder.devices[] of the jompd/openmpTree answer, one per device used
            List<JsonObject> treeDevices = client.body("jompd/openmpTree", null).getAsJsonObject("recorder").getAsJsonArray("devices")
                    .asList().stream().map(JsonElement::getAsJsonObject).toList();
            for (int device = 0; device < facts.number("devices_used"); device++) {
                final int number = device;
                assertThat(treeDevices).as("device %d in jompd/openmpTree", device)
                        .anySatisfy(d -> {
                            assertThat(d.get("device").getAsInt()).isEqualTo(number);
                            assertThat(d.get("tracing").getAsString()).isEqualTo("unavailable");
                            assertThat(d.get("summary").getAsString()).isEqualTo(process.get("device " + number));
                        });
            }
            client.request("disconnect", null);
        }
    }

    /** The thread of the jompd/openmpTree answer whose LWP is {@code lwp}. */
    private static JsonObject treeThread(JsonObject tree, long lwp) {
        return tree.getAsJsonArray("threads").asList().stream().map(JsonElement::getAsJsonObject)
                .filter(t -> t.has("lwp") && t.get("lwp").getAsLong() == lwp).findFirst()
                .orElseThrow(() -> new AssertionError("no thread with LWP " + lwp + " in jompd/openmpTree"));
    }

    /** The values of the children of the variable {@code name} in scope {@code scopeName}. */
    private static List<String> children(DapTestClient client, JsonObject scopes, String scopeName, String name) throws IOException {
        for (JsonElement scope : scopes.getAsJsonArray("scopes")) {
            if (!scope.getAsJsonObject().get("name").getAsString().equals(scopeName)) {
                continue;
            }
            for (JsonElement variable : client.body("variables", args("variablesReference",
                    scope.getAsJsonObject().get("variablesReference").getAsInt())).getAsJsonArray("variables")) {
                if (variable.getAsJsonObject().get("name").getAsString().equals(name)) {
                    List<String> values = new ArrayList<>();
                    client.body("variables", args("variablesReference", variable.getAsJsonObject().get("variablesReference").getAsInt()))
                            .getAsJsonArray("variables").forEach(v -> values.add(v.getAsJsonObject().get("value").getAsString()));
                    return values;
                }
            }
        }
        throw new AssertionError("no variable " + name + " in scope " + scopeName);
    }
}
