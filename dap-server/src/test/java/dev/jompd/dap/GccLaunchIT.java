package dev.jompd.dap;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gcc-built program launched from the DAP: it runs on jompd's libomp (the launch attribute
 * openmpRuntime defaults to that for programs built for GCC's libgomp), the debug console says so, and the
 * OpenMP tree names each implicit task's outlined function. Truth: the runtime library and thread numbers
 * the program recorded.
 */
class GccLaunchIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    @Test
    void gccProgramRunsOnJompdsLibompAndItsTasksNameTheOutlinedFunction(@TempDir Path work) throws Exception {
        Path program = FixtureBuilder.executable(Fixture.NESTED_GCC);
        Path factsFile = work.resolve("facts.properties");
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            client.event("initialized", Duration.ofSeconds(10));
            client.body("launch", args("program", program.toString(), "args", array("2", "2"), "cwd", work.toString(),
                    "environment", array(LaunchIT.environment("JOMPD_FACTS", factsFile.toString()))));
            client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", "jompd_marker"))));
            client.body("configurationDone", null);
            client.event("stopped", STOP);

            Facts facts = Facts.read(factsFile);
            assertThat(facts.get("runtime_library")).endsWith("libgomp.so.1").contains("/run/libomp-");
            assertThat(client.outputText()).contains("runs on jompd's OMPD-enabled libomp")
                    .contains("built for GCC's libgomp");

            JsonObject tree = client.body("jompd/openmpTree", null);
            assertThat(tree.getAsJsonArray("threads")).hasSize(facts.threadCount());
            for (JsonElement thread : tree.getAsJsonArray("threads")) {
                JsonObject implicit = thread.getAsJsonObject().getAsJsonArray("tasks").get(0).getAsJsonObject();
                assertThat(implicit.getAsJsonObject("function").get("symbol")).as(implicit.toString()).isNotNull();
                assertThat(implicit.getAsJsonObject("function").get("symbol").getAsString()).isEqualTo("region._omp_fn.0");
                assertThat(implicit.getAsJsonObject("function").get("resolvedBy").getAsString())
                        .isEqualTo("argument of libomp's GOMP wrapper");
                assertThat(implicit.getAsJsonObject("function").get("source").getAsString()).contains("nested.c:");
            }
            client.request("disconnect", args("terminateDebuggee", true));
        }
    }

    @Test
    void openmpRuntimeProgramKeepsGccsLibgomp(@TempDir Path work) throws Exception {
        Path program = FixtureBuilder.executable(Fixture.NESTED_GCC);
        Path factsFile = work.resolve("facts.properties");
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            client.event("initialized", Duration.ofSeconds(10));
            client.body("launch", args("program", program.toString(), "args", array("2", "2"), "cwd", work.toString(),
                    "openmpRuntime", "program",
                    "environment", array(LaunchIT.environment("JOMPD_FACTS", factsFile.toString()))));
            client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", "jompd_marker"))));
            client.body("configurationDone", null);
            client.event("stopped", STOP);
            assertThat(Facts.read(factsFile).get("runtime_library")).doesNotContain("/run/libomp-");
            assertThat(client.outputText()).contains("runs on its own OpenMP runtime");
            client.request("disconnect", args("terminateDebuggee", true));
        }
    }
}
