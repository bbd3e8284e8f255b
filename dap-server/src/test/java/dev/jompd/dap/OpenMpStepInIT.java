package dev.jompd.dap;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.StepIntoCase;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DAP stepIn goes into the OpenMP code a line starts, over real gdb on the fixtures. The cases are the
 * testkit's {@link StepIntoCase}s, which the gdb bridge's {@code ompd step} runs too ({@code OmpdStepIT}):
 * the one line the step ends on, then the one line a Step Over from there ends on; where the thread
 * stopped is gdb's stack as the client sees it.
 */
class OpenMpStepInIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    /** Launches to where the case stops first; returns the stopped thread. */
    private static int launchTo(DapTestClient client, StepIntoCase step) throws IOException {
        Path program = FixtureBuilder.executable(step.fixture());
        client.body("initialize", args("adapterID", "jompd"));
        client.body("launch", args("program", program.toString(), "args", array(step.arguments().toArray())));
        if (step.breakFunction().isPresent()) {
            client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", step.breakFunction().get()))));
        } else {
            client.body("setBreakpoints", args("source", args("path", program.getParent().resolve(step.breakFile()).toString()),
                    "breakpoints", array(args("line", step.breakLineNumber()))));
        }
        client.body("configurationDone", null);
        return client.event("stopped", STOP).getAsJsonObject("body").get("threadId").getAsInt();
    }

    private static JsonObject topFrame(DapTestClient client, int thread) throws IOException {
        return client.body("stackTrace", args("threadId", thread, "startFrame", 0, "levels", 1))
                .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
    }

    /** Steps and waits for the step's one stopped event. */
    private static void step(DapTestClient client, String command, int thread) throws IOException {
        client.body(command, args("threadId", thread));
        JsonObject stopped = client.event("stopped", STOP).getAsJsonObject("body");
        assertThat(stopped.get("reason").getAsString()).isEqualTo("step");
    }

    @ParameterizedTest
    @EnumSource(StepIntoCase.class)
    void stepInEndsWhereTheCaseSays(StepIntoCase step) throws Exception {
        try (DapTestClient client = new DapTestClient(server.port())) {
            int thread = launchTo(client, step);
            for (int i = 0; i < step.nexts(); i++) {
                step(client, "next", thread);
            }
            int continuedBefore = count(client, "continued");
            int eventsBefore = client.events().size();
            for (int i = 0; i < step.steps(); i++) {
                step(client, "stepIn", thread);
            }
            // the step's own stops are not the user's: none of gdb's "hit Breakpoint" lines reaches the console
            assertThat(client.events().subList(eventsBefore, client.events().size()).stream()
                    .filter(e -> e.get("event").getAsString().equals("output"))
                    .map(e -> e.getAsJsonObject("body").get("output").getAsString()))
                    .as("console output during Step Into").noneMatch(text -> text.contains("reakpoint"));
            JsonObject top = topFrame(client, thread);
            step.check(where(top));
            assertThat(count(client, "continued")).as("one stop per step to the client, however many moves")
                    .isEqualTo(continuedBefore);
            // the stepped thread's own name (not any thread's): the OpenMP identity it has where the step ended
            String steppedName = client.body("threads", null).getAsJsonArray("threads").asList().stream()
                    .map(JsonElement::getAsJsonObject).filter(t -> t.get("id").getAsInt() == thread)
                    .map(t -> t.get("name").getAsString()).findFirst().orElseThrow();
            String task = step == StepIntoCase.TASK_AT_TASKWAIT ? OpenMpExpectations.scopeVariables(client,
                    client.body("scopes", args("frameId", top.get("id").getAsInt())), "OpenMP task").get("kind") : "";
            step(client, "next", thread); // Step Over from the first line: on in the code, not back to its directive
            step.checkStepOver(where(topFrame(client, thread)));
            switch (step) {
                case PARALLEL -> {
                    // the region's thread names say so: the stopped thread is OpenMP thread 0 of a team of 2
                    assertThat(steppedName).startsWith("omp 0/2 · level 1 · ");
                    // the helpers are gone: the program runs to its end without stopping again
                    client.body("continue", args("threadId", thread));
                    assertThat(client.event("exited", STOP).getAsJsonObject("body").get("exitCode").getAsInt()).isZero();
                    return;
                }
                case TASK_AT_TASKWAIT -> {
                    // OMPD agrees: the thread's current task was explicit at the step's end
                    assertThat(task).startsWith("explicit");
                }
                default -> { }
            }
            client.body("terminate", null);
            client.event("terminated", STOP);
        }
    }

    /** Where the client sees a frame: its name, its source's file name, its line. */
    private static StepIntoCase.Where where(JsonObject frame) {
        String file = frame.has("source") ? Path.of(frame.getAsJsonObject("source").get("path").getAsString())
                .getFileName().toString() : "";
        return new StepIntoCase.Where(frame.get("name").getAsString(), file, frame.get("line").getAsInt());
    }

    private static int count(DapTestClient client, String event) {
        return (int) client.events().stream().filter(e -> e.get("event").getAsString().equals(event)).count();
    }
}
