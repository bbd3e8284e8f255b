package dev.jompd.dap;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.SourceLines;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DAP next (Step Over) from the last statement of a parallel region's code ({@code innermost();} in nested.c,
 * one level of 2 threads) leaves the region, for clang's and gcc's builds: never on the region's
 * {@code #pragma} line (where both compilers put the outlined function's end). The primary thread goes on in
 * the function that started the region, on its first line after the region (region()'s closing brace); a
 * worker, with none of the program's code below, ends in the runtime's function that called the region's
 * code (the frame below the outlined functions in its stack at the breakpoint, as gdb shows it). clang stops
 * on the region's own closing brace on the way, gcc has none. Lines are found by the fixture's text.
 */
class StepOverLeavesRegionIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    private static final String SOURCE = "nested.c";
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    /** Where the client sees a frame: its function, its source's file name, its line (0 when not the fixture's). */
    record Where(String function, String file, int line) {
        static Where of(JsonObject frame) {
            String file = frame.has("source") ? Path.of(frame.getAsJsonObject("source").get("path").getAsString())
                    .getFileName().toString() : "";
            return new Where(frame.get("name").getAsString(), file, file.equals(SOURCE) ? frame.get("line").getAsInt() : 0);
        }
    }

    private static List<JsonObject> frames(DapTestClient client, int thread) throws Exception {
        return client.body("stackTrace", args("threadId", thread, "startFrame", 0, "levels", 30))
                .getAsJsonArray("stackFrames").asList().stream().map(JsonElement::getAsJsonObject).toList();
    }

    /** The 1-based number of the first line after {@code after} that is exactly {@code text}. */
    private static int lineAfter(Path source, int after, String text) throws Exception {
        List<String> lines = Files.readAllLines(source);
        for (int i = after; i < lines.size(); i++) {
            if (lines.get(i).equals(text)) {
                return i + 1;
            }
        }
        throw new AssertionError("no line " + text + " after line " + after + " of " + source);
    }

    @ParameterizedTest
    @CsvSource({"NESTED, true", "NESTED, false", "NESTED_GCC, true", "NESTED_GCC, false"})
    void nextFromTheRegionsLastStatementLeavesTheRegion(Fixture fixture, boolean primary) throws Exception {
        Path program = FixtureBuilder.executable(fixture);
        Path source = SourceLines.source(fixture, SOURCE);
        int last = SourceLines.lineOf(fixture, SOURCE, "      innermost();");
        int pragma = SourceLines.lineOf(fixture, SOURCE, "#pragma omp parallel num_threads(sizes[depth])");
        int regionEnd = lineAfter(source, pragma, "}"); // region()'s closing brace: its first line after the region
        boolean clang = fixture == Fixture.NESTED;
        String outlined = clang ? "region.omp_outlined_debug__" : "region._omp_fn.0";
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            client.body("launch", args("program", program.toString(), "args", array("2")));
            client.body("setBreakpoints", args("source", args("path", source.toString()), "breakpoints", array(args("line", last))));
            client.body("configurationDone", null);
            int thread;
            List<JsonObject> stack;
            while (true) { // both threads stop there once: the one asked for
                thread = client.event("stopped", STOP).getAsJsonObject("body").get("threadId").getAsInt();
                stack = frames(client, thread);
                boolean isPrimary = stack.stream().anyMatch(frame -> frame.get("name").getAsString().equals("region"));
                if (isPrimary == primary) {
                    break;
                }
                client.body("continue", args("threadId", thread));
            }
            client.body("setBreakpoints", args("source", args("path", source.toString()), "breakpoints", array()));
            assertThat(Where.of(stack.getFirst())).isEqualTo(new Where(outlined, SOURCE, last));
            // the runtime's function that called the region's code: the first frame below the fixture's
            String caller = stack.stream().map(Where::of).dropWhile(where -> where.file().equals(SOURCE))
                    .findFirst().orElseThrow().function();

            List<Where> expected = new ArrayList<>();
            if (clang) {
                expected.add(new Where(outlined, SOURCE, last + 1)); // the region's closing brace
            }
            expected.add(primary ? new Where("region", SOURCE, regionEnd) : new Where(caller, "", 0));
            List<Where> landed = new ArrayList<>();
            List<String> reasons = new ArrayList<>();
            for (int i = 0; i < expected.size(); i++) {
                client.body("next", args("threadId", thread));
                JsonObject stopped = client.event("stopped", STOP).getAsJsonObject("body");
                Where where = Where.of(frames(client, thread).getFirst());
                landed.add(where.file().equals(SOURCE) ? where : new Where(where.function(), "", 0));
                reasons.add(stopped.get("reason").getAsString());
            }
            assertThat(landed).as("the Step Overs' ends (the region's pragma is line %d), stops told as %s", pragma, reasons)
                    .isEqualTo(expected);
            assertThat(reasons).as("stops told").containsOnly("step");
            client.request("disconnect", args("terminateDebuggee", true));
        }
    }
}
