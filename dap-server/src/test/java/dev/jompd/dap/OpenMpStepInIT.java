package dev.jompd.dap;

import com.google.gson.JsonObject;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.SourceLines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DAP stepIn goes into the OpenMP code a line starts, over real gdb on the fixtures: lines are found in
 * the fixtures' sources by their text; where the thread stopped is gdb's stack as the client sees it.
 */
class OpenMpStepInIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    /** Launches to a source line; returns the stopped thread. */
    private static int launchTo(DapTestClient client, Fixture fixture, String file, int line, String... programArgs)
            throws IOException {
        Path program = FixtureBuilder.executable(fixture);
        client.body("initialize", args("adapterID", "jompd"));
        client.body("launch", args("program", program.toString(), "args", array((Object[]) programArgs)));
        client.body("setBreakpoints", args("source", args("path", program.getParent().resolve(file).toString()),
                "breakpoints", array(args("line", line))));
        client.body("configurationDone", null);
        return client.event("stopped", STOP).getAsJsonObject("body").get("threadId").getAsInt();
    }

    private static JsonObject topFrame(DapTestClient client, int thread) throws IOException {
        return client.body("stackTrace", args("threadId", thread, "startFrame", 0, "levels", 1))
                .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
    }

    /** Steps and waits for the step's one stopped event. */
    private static JsonObject step(DapTestClient client, String command, int thread) throws IOException {
        client.body(command, args("threadId", thread));
        JsonObject stopped = client.event("stopped", STOP).getAsJsonObject("body");
        assertThat(stopped.get("reason").getAsString()).isEqualTo("step");
        return stopped;
    }

    @Test
    void stepInOnAParallelPragmaStopsInTheRegionBody() throws Exception {
        int before = SourceLines.lineOf(Fixture.PARALLEL, "parallel.c", "unsigned long long sum = 0;");
        int pragma = SourceLines.lineOf(Fixture.PARALLEL, "parallel.c", "#pragma omp parallel num_threads(n)");
        int regionEnd = SourceLines.lineOf(Fixture.PARALLEL, "parallel.c", "unsigned long long expect =");
        try (DapTestClient client = new DapTestClient(server.port())) {
            int thread = launchTo(client, Fixture.PARALLEL, "parallel.c", before, "2");
            step(client, "next", thread);
            assertThat(topFrame(client, thread).get("line").getAsInt()).isEqualTo(pragma);

            int continuedBefore = count(client, "continued");
            step(client, "stepIn", thread);
            JsonObject top = topFrame(client, thread);
            assertThat(top.get("name").getAsString()).contains("omp_outlined");
            assertThat(top.get("line").getAsInt()).isBetween(pragma, regionEnd - 1);
            assertThat(count(client, "continued")).as("one step to the client, however many moves").isEqualTo(continuedBefore);
            // the region's thread names say so: the stopped thread is OpenMP thread 0 of a team of 2
            assertThat(client.body("threads", null).toString()).contains("omp 0/2 · level 1");
            // the helpers are gone: the program runs to its end without stopping again
            client.body("continue", args("threadId", thread));
            assertThat(client.event("exited", STOP).getAsJsonObject("body").get("exitCode").getAsInt()).isZero();
        }
    }

    @Test
    void stepInOnATaskwaitStopsInTheTaskThisThreadRuns() throws Exception {
        int taskwait = SourceLines.lineOf(Fixture.TASKS, "tasks.c", "/* Only A is ready") + 1;
        int taskA = SourceLines.lineOf(Fixture.TASKS, "tasks.c", "        task_a();");
        try (DapTestClient client = new DapTestClient(server.port())) {
            int thread = launchTo(client, Fixture.TASKS, "tasks.c", taskwait, "10", "4");
            step(client, "stepIn", thread);
            assertThat(topFrame(client, thread).get("line").getAsInt()).as("task A's body").isEqualTo(taskA);
            // OMPD agrees: the thread's current task is explicit now
            JsonObject frame = topFrame(client, thread);
            String task = OpenMpExpectations.scopeVariables(client,
                    client.body("scopes", args("frameId", frame.get("id").getAsInt())), "OpenMP task").get("kind");
            assertThat(task).startsWith("explicit");
            client.body("terminate", null);
            client.event("terminated", STOP);
        }
    }

    @Test
    void stepInOnAFortranParallelStopsInTheRegionBody() throws Exception {
        // gfortran: GOMP_parallel calls the outlined function itself, on the line after the directive's set-up
        int before = SourceLines.lineOf(Fixture.NESTED_FORTRAN, "nested_fortran.f90", "call omp_set_max_active_levels(2)");
        int body = SourceLines.lineOf(Fixture.NESTED_FORTRAN, "nested_fortran.f90", "outer team size differs from S1");
        try (DapTestClient client = new DapTestClient(server.port())) {
            int thread = launchTo(client, Fixture.NESTED_FORTRAN, "nested_fortran.f90", before, "2", "2");
            step(client, "next", thread);
            step(client, "stepIn", thread);
            step(client, "stepIn", thread);
            JsonObject top = topFrame(client, thread);
            assertThat(top.get("name").getAsString()).contains("_omp_fn");
            assertThat(top.get("line").getAsInt()).isEqualTo(body);
            client.body("terminate", null);
            client.event("terminated", STOP);
        }
    }

    @Test
    void stepInOnAPlainCallStillEntersTheFunction() throws Exception {
        int call = SourceLines.lineOf(Fixture.TASKS, "tasks.c", "        task_a();");
        try (DapTestClient client = new DapTestClient(server.port())) {
            int thread = launchTo(client, Fixture.TASKS, "tasks.c", call, "10", "4");
            step(client, "stepIn", thread);
            assertThat(topFrame(client, thread).get("name").getAsString()).isEqualTo("task_a");
            client.body("terminate", null);
            client.event("terminated", STOP);
        }
    }

    private static int count(DapTestClient client, String event) {
        return (int) client.events().stream().filter(e -> e.get("event").getAsString().equals(event)).count();
    }
}
