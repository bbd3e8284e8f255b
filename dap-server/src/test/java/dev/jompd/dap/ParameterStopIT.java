package dev.jompd.dap;

import com.google.gson.JsonObject;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.SourceLines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A breakpoint on a clang -O0 function with an OpenMP directive (nested.c's {@code region(int depth)}, called
 * as {@code region(0)} by main and {@code region(depth + 1)} by the outer region's threads) stops where its
 * parameter holds the caller's value: clang stores the parameters after its call of
 * {@code __kmpc_global_thread_num}, which gdb's own {@code break region} stops at (there depth read 21845).
 * A Step Into main's call stops there too (gdb's {@code step} stops where its {@code break} does). Truth: gdb
 * run on the same program, at each of its stops in region, evaluating in the caller's frame the argument the
 * call's source line passes; the stop's line is the directive's, found by its text.
 */
class ParameterStopIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    private static final List<String> ARGUMENTS = List.of("2", "2");
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    /** The argument text of the call of region on the line that contains {@code call}. */
    private static String argumentOf(String call) {
        Matcher matcher = Pattern.compile("region\\((.*)\\);").matcher(call.strip());
        assertThat(matcher.matches()).as(call).isTrue();
        return matcher.group(1);
    }

    /**
     * gdb's values of region's argument at its first two stops in region (main's call, then an outer
     * thread's): each call's argument, printed in the caller's frame ({@code up}).
     */
    private static List<String> gdbArguments(Path program) throws Exception {
        List<String> command = new ArrayList<>(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off",
                "-ex", "set print thread-events off", "-ex", "break region", "-ex", "run " + String.join(" ", ARGUMENTS)));
        for (String call : List.of("  region(0);", "      region(depth + 1);")) {
            command.addAll(List.of("-ex", "up", "-ex", "print (" + argumentOf(call) + ")", "-ex", "continue"));
        }
        command.addAll(List.of("-ex", "kill", program.toString()));
        Commands.Result result = Commands.run(command, Map.of(), program.getParent(), Duration.ofMinutes(2));
        List<String> values = new ArrayList<>();
        Matcher printed = Pattern.compile("(?m)^\\$\\d+ = (.*)$").matcher(result.output());
        while (printed.find()) {
            values.add(printed.group(1));
        }
        assertThat(values).as("gdb's run:\n" + result.output()).hasSize(2);
        return values;
    }

    /**
     * A function's breakpoint, a line's (region's opening line), and a function's with gdb disassembling in
     * Intel syntax (the set-up VS Code's C/C++ launch configurations are made with).
     */
    @ParameterizedTest
    @ValueSource(strings = {"function", "source", "function, intel"})
    void breakpointOnRegionShowsTheCallersArgument(String kind) throws Exception {
        Path program = FixtureBuilder.executable(Fixture.NESTED);
        List<String> truth = gdbArguments(program);
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            JsonObject launch = args("program", program.toString(), "args", array(ARGUMENTS.toArray()));
            if (kind.endsWith("intel")) {
                launch.add("setupCommands", array(args("description", "Set Disassembly Flavor to Intel",
                        "text", "-gdb-set disassembly-flavor intel", "ignoreFailures", true)));
            }
            client.body("launch", launch);
            JsonObject set = kind.startsWith("function")
                    ? client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", "region"))))
                    : setLineBreakpoint(client, "static void region(int depth) {");
            JsonObject breakpoint = set.getAsJsonArray("breakpoints").get(0).getAsJsonObject();
            assertThat(breakpoint.get("verified").getAsBoolean()).as(breakpoint.toString()).isTrue();
            assertThat(breakpoint.get("line").getAsInt()).as(breakpoint.toString()).isEqualTo(directiveLine());
            client.body("configurationDone", null);
            for (String value : truth) {
                int thread = client.event("stopped", STOP).getAsJsonObject("body").get("threadId").getAsInt();
                assertRegionShows(client, thread, value);
                client.body("continue", args("threadId", thread));
            }
            client.request("disconnect", args("terminateDebuggee", true));
        }
    }

    /** Step Into main's call region(0) stops in region where depth holds the 0 (gdb's step stops where the breakpoint did). */
    @Test
    void stepIntoRegionShowsTheCallersArgument() throws Exception {
        Path program = FixtureBuilder.executable(Fixture.NESTED);
        String value = gdbArguments(program).getFirst();
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            client.body("launch", args("program", program.toString(), "args", array(ARGUMENTS.toArray())));
            setLineBreakpoint(client, "  region(0);");
            client.body("configurationDone", null);
            int thread = client.event("stopped", STOP).getAsJsonObject("body").get("threadId").getAsInt();
            client.body("stepIn", args("threadId", thread));
            JsonObject stopped = client.event("stopped", STOP).getAsJsonObject("body");
            assertThat(stopped.get("reason").getAsString()).isEqualTo("step");
            assertRegionShows(client, thread, value);
            client.request("disconnect", args("terminateDebuggee", true));
        }
    }

    /**
     * tasks.c's task_b has no parameters, and its first statement (a call of fx_put) is above its task directive,
     * whose line clang gave the call of __kmpc_global_thread_num: gdb's {@code break task_b} stops on the
     * directive's line before that statement ran; the DAP's function breakpoint stops on the first statement,
     * found by its text.
     */
    @Test
    void functionBreakpointStopsAtTheFirstStatementAboveTheDirective() throws Exception {
        Path program = FixtureBuilder.executable(Fixture.TASKS);
        int first = SourceLines.lineOf(Fixture.TASKS, "tasks.c", "fx_put(\"task.B.in_final\"");
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            client.body("launch", args("program", program.toString(), "args", array("10", "4")));
            JsonObject breakpoint = client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", "task_b"))))
                    .getAsJsonArray("breakpoints").get(0).getAsJsonObject();
            assertThat(List.of(breakpoint.get("verified").getAsBoolean(), breakpoint.get("line").getAsInt()))
                    .as(breakpoint.toString()).isEqualTo(List.of(true, first));
            client.body("configurationDone", null);
            int thread = client.event("stopped", STOP).getAsJsonObject("body").get("threadId").getAsInt();
            JsonObject top = client.body("stackTrace", args("threadId", thread, "startFrame", 0, "levels", 1))
                    .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
            assertThat(List.of(top.get("name").getAsString(), top.get("line").getAsInt())).isEqualTo(List.of("task_b", first));
            client.request("disconnect", args("terminateDebuggee", true));
        }
    }

    private static int directiveLine() {
        return SourceLines.lineOf(Fixture.NESTED, "nested.c", "#pragma omp parallel num_threads(sizes[depth])");
    }

    private static JsonObject setLineBreakpoint(DapTestClient client, String text) throws Exception {
        return client.body("setBreakpoints", args("source", args("path", SourceLines.source(Fixture.NESTED, "nested.c").toString()),
                "breakpoints", array(args("line", SourceLines.lineOf(Fixture.NESTED, "nested.c", text)))));
    }

    /** {@code thread} is in region on its directive's line, and the frame's variables are exactly depth = {@code value}. */
    private static void assertRegionShows(DapTestClient client, int thread, String value) throws Exception {
        JsonObject top = client.body("stackTrace", args("threadId", thread, "startFrame", 0, "levels", 1))
                .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
        assertThat(List.of(top.get("name").getAsString(), top.get("line").getAsInt()))
                .isEqualTo(List.of("region", directiveLine()));
        assertThat(OpenMpExpectations.scopeVariables(client,
                client.body("scopes", args("frameId", top.get("id").getAsInt())), "Locals"))
                .isEqualTo(Map.of("depth", value));
    }
}
