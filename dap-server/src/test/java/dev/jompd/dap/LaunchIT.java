package dev.jompd.dap;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.SourceLines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.jompd.dap.OpenMpExpectations.args;
import static dev.jompd.dap.OpenMpExpectations.array;
import static org.assertj.core.api.Assertions.assertThat;

/** Launch sessions over real gdb on the fixtures, checked against what the programs recorded. */
class LaunchIT {
    private static final Duration STOP = Duration.ofSeconds(120);
    @RegisterExtension
    static final DapServerExtension server = new DapServerExtension();

    /** The nodes of an {@code ompd stacks} tree whose frame is {@code function}: {@code 3× fx_gate_wait (fixture.c:470)}. */
    private static List<String> nodeCounts(String stacks, String function) {
        return stacks.lines().map(String::strip).filter(l -> l.matches("\\d+× " + function + " \\(.*"))
                .map(l -> l.replaceFirst("   \\[.*]$", "")).toList();
    }

    static JsonObject environment(String name, String value) {
        return args("name", name, "value", value);
    }

    @Test
    void launchStopsAtTheMarkerWithOpenMpNamesScopesAndTree(@TempDir Path work) throws Exception {
        Path program = FixtureBuilder.executable(Fixture.NESTED);
        Path factsFile = work.resolve("facts.properties");
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            client.event("initialized", Duration.ofSeconds(10));
            client.body("launch", args("program", program.toString(), "args", array("4", "4"), "cwd", work.toString(),
                    "environment", array(environment("JOMPD_FACTS", factsFile.toString()))));
            JsonArray breakpoints = client.body("setFunctionBreakpoints",
                    args("breakpoints", array(args("name", "jompd_marker")))).getAsJsonArray("breakpoints");
            assertThat(breakpoints.get(0).getAsJsonObject().get("verified").getAsBoolean()).isTrue();
            client.body("configurationDone", null);

            JsonObject stopped = client.event("stopped", STOP).getAsJsonObject("body");
            assertThat(stopped.get("reason").getAsString()).isEqualTo("function breakpoint");
            assertThat(stopped.get("allThreadsStopped").getAsBoolean()).isTrue();
            int breakpointId = breakpoints.get(0).getAsJsonObject().get("id").getAsInt();
            assertThat(stopped.getAsJsonArray("hitBreakpointIds").get(0).getAsInt()).isEqualTo(breakpointId);
            JsonObject changed = client.event("jompd/openmpChanged", Duration.ofSeconds(10)).getAsJsonObject("body");
            assertThat(changed.get("reason").getAsString()).isEqualTo("function breakpoint");

            Facts facts = Facts.read(factsFile);
            Map<Long, Integer> threadIds = OpenMpExpectations.assertThreadNamesMatch(client.body("threads", null), facts);
            Facts.ThreadFacts marker = facts.thread((int) facts.number("marker_thread"));
            int markerThread = threadIds.get(marker.lwp());
            assertThat(stopped.get("threadId").getAsInt()).isEqualTo(markerThread);
            // the stopped thread's LWP as the fixture recorded it (gettid), for clients that mark it in the picture
            assertThat(changed.get("lwp").getAsLong()).isEqualTo(marker.lwp());

            JsonObject stack = client.body("stackTrace", args("threadId", markerThread, "startFrame", 0, "levels", 1));
            JsonObject top = stack.getAsJsonArray("stackFrames").get(0).getAsJsonObject();
            assertThat(top.get("name").getAsString()).isEqualTo("jompd_marker");
            assertThat(top.getAsJsonObject("source").get("path").getAsString()).endsWith("fixture.c");
            OpenMpExpectations.assertScopesMatch(client, client.body("scopes", args("frameId", top.get("id").getAsInt())),
                    marker);

            // a deeper frame (the outlined region's code) belongs to the same implicit task
            JsonObject deep = client.body("stackTrace", args("threadId", markerThread, "startFrame", 0, "levels", 20));
            JsonArray frames = deep.getAsJsonArray("stackFrames");
            assertThat(frames.size()).isGreaterThan(3);
            assertThat(frames.get(1).getAsJsonObject().get("name").getAsString()).isEqualTo("fx_write_facts_and_mark");
            JsonObject innermost = frames.get(2).getAsJsonObject();
            assertThat(innermost.get("name").getAsString()).isEqualTo("innermost");
            OpenMpExpectations.assertScopesMatch(client, client.body("scopes", args("frameId", innermost.get("id").getAsInt())),
                    marker);

            // the other threads' top frames come with the thread list (delayed loading: one frame each)
            for (Facts.ThreadFacts thread : facts.threads()) {
                JsonObject frame = client.body("stackTrace", args("threadId", threadIds.get(thread.lwp()), "startFrame", 0,
                        "levels", 1)).getAsJsonArray("stackFrames").get(0).getAsJsonObject();
                assertThat(frame.get("id").getAsInt()).isPositive();
            }

            JsonObject tree = client.body("jompd/openmpTree", null);
            assertThat(tree.get("schema").getAsString()).isEqualTo("jompd-inspect/1");
            assertThat(tree.getAsJsonArray("threads")).hasSize(facts.threadCount());
            assertThat(tree.getAsJsonObject("target").get("kind").getAsString()).isEqualTo("pid");

            String ompdThreads = client.body("evaluate", args("expression", "ompd threads", "context", "repl"))
                    .get("result").getAsString();
            // the gdb bridge's rendering (ConsoleReport): a summary, the column names, one row per OpenMP thread
            assertThat(ompdThreads).startsWith(facts.threadCount() + " OpenMP threads of ").contains("gtid");
            OpenMpExpectations.assertThreadRows(ompdThreads, facts);
            // the selected (marker) thread's thread-scope ICVs, every one as the program read it through the OpenMP API
            String threadIcvs = client.body("evaluate", args("expression", "ompd icvs thread", "context", "repl"))
                    .get("result").getAsString();
            Map<String, String> icvs = new java.util.LinkedHashMap<>();
            threadIcvs.lines().map(java.util.regex.Pattern.compile("^\\s+(\\S+-var)\\s+(.*)$")::matcher)
                    .filter(java.util.regex.Matcher::matches).forEach(m -> icvs.put(m.group(1), m.group(2)));
            String places = marker.get("partition_places");
            assertThat(icvs).as(threadIcvs).isEqualTo(Map.of(
                    "dyn-var", marker.get("dynamic").equals("1") ? "true" : "false",
                    "nthreads-var", marker.get("max_threads"),
                    "default-device-var", marker.get("default_device"),
                    "thread-num-var", String.valueOf(marker.threadNum()),
                    "ompd-thread-num-var", String.valueOf(marker.threadNum()),
                    "place-partition-var", marker.get("partition_procs") + " (place" + (places.contains(",") ? "s " : " ")
                            + places + " of " + facts.get("icv.num_places") + ")"));
            // parallel stacks of the live process, unwound by jompd from the registers gdb reads
            String stacks = client.body("evaluate", args("expression", "ompd stacks", "context", "repl"))
                    .get("result").getAsString();
            assertThat(stacks).startsWith("Parallel stacks: " + facts.threadCount() + " OpenMP threads\n")
                    .doesNotContain("stack cut short");
            // the marker's node holds the one marker thread, at the line gdb's stack trace has; the gate's nodes hold
            // every other thread, at the line gdb has for a gate thread's fx_gate_wait frame
            Facts.ThreadFacts gateThread = facts.threads().stream().filter(t -> t.lwp() != marker.lwp()).findFirst().orElseThrow();
            int gateLine = java.util.stream.StreamSupport.stream(client.body("stackTrace", args("threadId",
                    threadIds.get(gateThread.lwp()), "startFrame", 0, "levels", 20)).getAsJsonArray("stackFrames").spliterator(), false)
                    .map(f -> f.getAsJsonObject()).filter(f -> f.get("name").getAsString().equals("fx_gate_wait")).findFirst()
                    .orElseThrow().get("line").getAsInt();
            assertThat(nodeCounts(stacks, "jompd_marker")).as(stacks).containsExactly(
                    "1× jompd_marker (fixture.c:" + top.get("line").getAsInt() + ")");
            List<String> gateNodes = nodeCounts(stacks, "fx_gate_wait");
            assertThat(gateNodes).as(stacks).allMatch(node -> node.endsWith("× fx_gate_wait (fixture.c:" + gateLine + ")"));
            assertThat(gateNodes.stream().mapToInt(node -> Integer.parseInt(node.substring(0, node.indexOf('×')))).sum())
                    .as(stacks).isEqualTo(facts.threadCount() - 1);
            assertThat(client.body("evaluate", args("expression", "1 + 2", "context", "watch", "frameId",
                    top.get("id").getAsInt())).get("result").getAsString()).isEqualTo("3");
            assertThat(client.body("evaluate", args("expression", "info threads", "context", "repl"))
                    .get("result").getAsString()).contains("jompd_marker");
            JsonObject badWatch = client.request("evaluate", args("expression", "no_such_variable", "context", "watch",
                    "frameId", top.get("id").getAsInt()));
            assertThat(badWatch.get("success").getAsBoolean()).isFalse();
            assertThat(badWatch.get("message").getAsString()).contains("no_such_variable");

            JsonObject memory = client.body("readMemory", args("memoryReference",
                    top.get("instructionPointerReference").getAsString(), "count", 16));
            assertThat(java.util.Base64.getDecoder().decode(memory.get("data").getAsString())).hasSize(16);

            // the thread list leaves out argument values (most of its cost), yet the user's setting stays theirs
            assertThat(client.body("evaluate", args("expression", "-exec show print frame-arguments", "context", "repl"))
                    .get("result").getAsString()).contains("\"scalars\"");
            client.body("evaluate", args("expression", "-exec set print frame-arguments all", "context", "repl"));

            // stepping: over the next line, then out to the caller
            client.body("next", args("threadId", markerThread));
            assertThat(client.event("stopped", STOP).getAsJsonObject("body").get("reason").getAsString()).isEqualTo("step");
            assertThat(client.body("threads", null).getAsJsonArray("threads")).hasSize(facts.threadCount());
            assertThat(client.body("evaluate", args("expression", "-exec show print frame-arguments", "context", "repl"))
                    .get("result").getAsString()).contains("\"all\"");
            JsonObject stale = client.request("scopes", args("frameId", top.get("id").getAsInt()));
            assertThat(stale.get("success").getAsBoolean()).isFalse();
            assertThat(stale.get("message").getAsString()).contains("earlier stop");
            client.body("stepOut", args("threadId", markerThread));
            assertThat(client.event("stopped", STOP).getAsJsonObject("body").get("reason").getAsString()).isEqualTo("step");
            JsonObject caller = client.body("stackTrace", args("threadId", markerThread, "startFrame", 0, "levels", 1))
                    .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
            assertThat(caller.get("name").getAsString()).isEqualTo("fx_write_facts_and_mark");

            client.body("continue", args("threadId", markerThread));
            assertThat(client.event("exited", STOP).getAsJsonObject("body").get("exitCode").getAsInt()).isZero();
            client.event("terminated", Duration.ofSeconds(10));
            assertThat(client.outputText()).contains("JOMPD_RESULT ok");
            client.body("disconnect", args());
        }
    }

    /**
     * VS Code's C/C++ launch configurations come with MI setupCommands ({@code -enable-pretty-printing},
     * {@code -gdb-set disassembly-flavor intel}, each with ignoreFailures): they run as MI commands (gdb's own
     * setting says so afterwards), a failing one with ignoreFailures is told on the console and the launch goes on,
     * one without it ends the launch with gdb's message.
     */
    @Test
    void cppdbgSetupCommandsRunAsMiCommands() throws Exception {
        Path program = FixtureBuilder.executable(Fixture.PARALLEL);
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd", "linesStartAt1", true));
            client.body("launch", args("program", program.toString(), "args", array("2"), "stopOnEntry", true,
                    "setupCommands", array(
                            args("description", "Enable pretty-printing for gdb", "text", "-enable-pretty-printing",
                                    "ignoreFailures", true),
                            args("description", "Set Disassembly Flavor to Intel", "text", "-gdb-set disassembly-flavor intel",
                                    "ignoreFailures", true),
                            args("text", "-no-such-command", "ignoreFailures", true))));
            client.body("configurationDone", null);
            client.event("stopped", STOP);
            JsonObject flavor = client.body("evaluate", args("expression",
                    "$_streq($_gdb_setting_str(\"disassembly-flavor\"), \"intel\")", "context", "watch"));
            assertThat(flavor.get("result").getAsString()).isEqualTo("1");
            assertThat(client.outputText()).contains("setupCommands: -no-such-command: Undefined MI command: no-such-command (ignoreFailures)\n");
            client.request("disconnect", args("terminateDebuggee", true));
        }
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd"));
            JsonObject failed = client.request("launch", args("program", program.toString(),
                    "setupCommands", array(args("text", "-no-such-command"))));
            assertThat(List.of(failed.get("success").getAsBoolean(), failed.get("message").getAsString()))
                    .isEqualTo(List.of(false, "gdb: Undefined MI command: no-such-command"));
        }
    }

    @Test
    void stopOnEntryThenSourceBreakpointThenTerminate(@TempDir Path work) throws Exception {
        Path program = FixtureBuilder.executable(Fixture.NESTED);
        Path source = SourceLines.source(Fixture.NESTED, "nested.c");
        int markLine = SourceLines.lineOf(Fixture.NESTED, "nested.c", "fx_write_facts_and_mark(0);");
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd"));
            client.body("launch", args("program", program.toString(), "args", array("2", "3"), "stopOnEntry", true));
            client.body("configurationDone", null);
            JsonObject entry = client.event("stopped", STOP).getAsJsonObject("body");
            assertThat(entry.get("reason").getAsString()).isEqualTo("entry");
            JsonObject mainFrame = client.body("stackTrace", args("threadId", entry.get("threadId").getAsInt(), "levels", 1))
                    .getAsJsonArray("stackFrames").get(0).getAsJsonObject();
            assertThat(mainFrame.get("name").getAsString()).isEqualTo("main");
            // before the first parallel region the runtime is not initialised: no OpenMP picture yet, said so
            JsonObject tree = client.request("jompd/openmpTree", null);
            assertThat(tree.get("success").getAsBoolean()).isFalse();
            assertThat(tree.get("message").getAsString()).matches("the OpenMP runtime in process \\d+ is loaded but not "
                    + "initialised yet \\(its OMPD breadcrumbs are still zero\\)");
            // said quietly: VS Code asks at every stop, and a pop-up at main would be noise (ErrorId.OPENMP_UNAVAILABLE)
            assertThat(tree.getAsJsonObject("body").getAsJsonObject("error").get("id").getAsInt()).isEqualTo(1202);
            assertThat(tree.getAsJsonObject("body").getAsJsonObject("error").get("showUser").getAsBoolean()).isFalse();
            assertThat(OpenMpExpectations.scopeNames(client.body("scopes", args("frameId", mainFrame.get("id").getAsInt()))))
                    .containsExactly("Locals");

            JsonArray set = client.body("setBreakpoints", args("source", args("path", source.toString()),
                    "breakpoints", array(args("line", markLine)))).getAsJsonArray("breakpoints");
            assertThat(set.get(0).getAsJsonObject().get("verified").getAsBoolean()).isTrue();
            assertThat(set.get(0).getAsJsonObject().get("line").getAsInt()).isEqualTo(markLine);
            client.body("continue", args("threadId", entry.get("threadId").getAsInt()));
            JsonObject hit = client.event("stopped", STOP).getAsJsonObject("body");
            assertThat(hit.get("reason").getAsString()).isEqualTo("breakpoint");
            JsonObject threads = client.body("threads", null);
            assertThat(threads.getAsJsonArray("threads")).hasSize(6);
            // two teams of three at level 2, told apart by their team paths (the level-1 thread that started each)
            assertThat(threads.toString()).contains("omp 0 · 0/3 · level 2").contains("omp 1 · 2/3 · level 2");
            assertThat(client.body("jompd/openmpTree", null).getAsJsonArray("threads")).hasSize(6);

            client.body("terminate", null);
            client.event("terminated", STOP);
            client.body("disconnect", args());
        }
    }

    /**
     * tasks.c: the marker runs in task C (final, undeferred), created by B (untied) inside task_b, B created by
     * A (tied, in a taskwait), A by the implicit task. Each frame's "OpenMP task" scope is the task whose code
     * that frame runs, chosen by the tasks' exit frames against the frame's address.
     */
    @Test
    void everyFrameShowsTheTaskItBelongsTo(@TempDir Path work) throws Exception {
        Path program = FixtureBuilder.executable(Fixture.TASKS);
        Path factsFile = work.resolve("facts.properties");
        try (DapTestClient client = new DapTestClient(server.port())) {
            client.body("initialize", args("adapterID", "jompd"));
            client.body("launch", args("program", program.toString(), "args", array("10", "4"),
                    "environment", array(environment("JOMPD_FACTS", factsFile.toString()))));
            client.body("setFunctionBreakpoints", args("breakpoints", array(args("name", "jompd_marker"))));
            client.body("configurationDone", null);
            int thread = client.event("stopped", STOP).getAsJsonObject("body").get("threadId").getAsInt();
            Facts facts = Facts.read(factsFile);
            assertThat(facts.get("task_chain")).isEqualTo("C:final,B:untied,A:tied");
            JsonArray frames = client.body("stackTrace", args("threadId", thread, "levels", 60)).getAsJsonArray("stackFrames");
            java.util.Map<String, String> kindByFunction = new java.util.LinkedHashMap<>();
            java.util.Map<String, String> taskByFunction = new java.util.LinkedHashMap<>();
            for (var element : frames) {
                JsonObject frame = element.getAsJsonObject();
                String name = frame.get("name").getAsString();
                if (List.of("jompd_marker", "task_c", "task_b", "task_a", "main.omp_outlined").contains(name)) {
                    Map<String, String> task = OpenMpExpectations.scopeVariables(client,
                            client.body("scopes", args("frameId", frame.get("id").getAsInt())), "OpenMP task");
                    kindByFunction.putIfAbsent(name, task.get("kind"));
                    taskByFunction.putIfAbsent(name, task.get("task"));
                }
            }
            assertThat(kindByFunction).containsOnlyKeys("jompd_marker", "task_c", "task_b", "task_a", "main.omp_outlined");
            // the clauses in tasks.c: C "final(1) mergeable if(0)" (if(0): undeferred), B "untied", A none; only the
            // innermost task executes, the others are suspended in it (B in the undeferred C, A at its taskwait)
            assertThat(kindByFunction).as("each task's flags, whole").isEqualTo(Map.of(
                    "jompd_marker", "explicit, tied, final, undeferred, started, executing",
                    "task_c", "explicit, tied, final, undeferred, started, executing",
                    "task_b", "explicit, untied, started",
                    "task_a", "explicit, tied, started",
                    "main.omp_outlined", "implicit, tied, started"));
            assertThat(taskByFunction.get("task_c")).isEqualTo(taskByFunction.get("jompd_marker"));
            assertThat(new java.util.HashSet<>(taskByFunction.values()))
                    .as("C, B, A and the implicit task are four different tasks").hasSize(4);
            client.body("disconnect", args());
        }
    }
}
