package dev.jompd.dap;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.SourceLines;
import dev.jompd.testkit.StepIntoCase;
import dev.jompd.testkit.StepOverCase;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DAP next (Step Over) from the last statement of a parallel region's code leaves the region, for clang's and
 * gcc's builds, the primary thread and a worker: the testkit's {@link StepOverCase}s, which the gdb bridge's
 * {@code ompd next} runs too ({@code OmpdNextIT}). Where the thread stopped is gdb's stack as the client sees it.
 */
class StepOverLeavesRegionIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    /** Where the client sees a frame: in the fixture's source by function, file and line, elsewhere by function. */
    private static StepIntoCase.Where where(JsonObject frame) {
        String file = frame.has("source") ? Path.of(frame.getAsJsonObject("source").get("path").getAsString())
                .getFileName().toString() : "";
        return file.equals(StepOverCase.SOURCE)
                ? new StepIntoCase.Where(frame.get("name").getAsString(), file, frame.get("line").getAsInt())
                : new StepIntoCase.Where(frame.get("name").getAsString(), "", 0);
    }

    private static List<JsonObject> frames(DapTestClient client, int thread) throws Exception {
        return client.body("stackTrace", args("threadId", thread, "startFrame", 0, "levels", 30))
                .getAsJsonArray("stackFrames").asList().stream().map(JsonElement::getAsJsonObject).toList();
    }

    @ParameterizedTest
    @EnumSource(StepOverCase.class)
    void nextFromTheRegionsLastStatementLeavesTheRegion(StepOverCase step) throws Exception {
        Path program = FixtureBuilder.executable(step.fixture());
        Path source = SourceLines.source(step.fixture(), StepOverCase.SOURCE);
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            client.body("launch", args("program", program.toString(), "args", array(step.arguments().toArray())));
            client.body("setBreakpoints", args("source", args("path", source.toString()),
                    "breakpoints", array(args("line", step.breakLine()))));
            client.body("configurationDone", null);
            int thread;
            List<JsonObject> stack;
            while (true) { // both threads stop there once: the one the case steps
                thread = client.event("stopped", STOP).getAsJsonObject("body").get("threadId").getAsInt();
                stack = frames(client, thread);
                boolean primary = stack.stream().anyMatch(frame -> frame.get("name").getAsString().equals("region"));
                if (primary == step.primary()) {
                    break;
                }
                client.body("continue", args("threadId", thread));
            }
            client.body("setBreakpoints", args("source", args("path", source.toString()), "breakpoints", array()));
            assertThat(where(stack.getFirst()))
                    .isEqualTo(new StepIntoCase.Where(step.outlinedFunction(), StepOverCase.SOURCE, step.breakLine()));
            String caller = stack.stream().map(StepOverLeavesRegionIT::where)
                    .dropWhile(where -> where.file().equals(StepOverCase.SOURCE)).findFirst().orElseThrow().function();

            List<StepIntoCase.Where> expected = step.landings(caller);
            List<StepIntoCase.Where> landed = new ArrayList<>();
            List<String> reasons = new ArrayList<>();
            for (int i = 0; i < expected.size(); i++) {
                client.body("next", args("threadId", thread));
                JsonObject stopped = client.event("stopped", STOP).getAsJsonObject("body");
                landed.add(where(frames(client, thread).getFirst()));
                reasons.add(stopped.get("reason").getAsString());
            }
            assertThat(landed).as("the Step Overs' ends (the region's pragma is line %d), stops told as %s",
                    step.pragmaLine(), reasons).isEqualTo(expected);
            assertThat(reasons).as("stops told").containsOnly("step");
            client.request("disconnect", args("terminateDebuggee", true));
        }
    }
}
