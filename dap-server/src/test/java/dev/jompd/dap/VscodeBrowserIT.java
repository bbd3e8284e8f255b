package dev.jompd.dap;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.StoppedFixture;
import dev.jompd.testkit.Prerequisite;
import dev.jompd.testkit.StepIntoCase;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.jompd.dap.BrowserTools.deleteRecursively;
import static dev.jompd.dap.BrowserTools.freePort;
import static dev.jompd.dap.BrowserTools.output;
import static dev.jompd.dap.BrowserTools.run;
import static dev.jompd.dap.BrowserTools.runProcess;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The VS Code extension in a real VS Code: code-server 4.96.4 (VS Code 1.96.4, installed once into the jompd
 * cache by {@code scripts/install-code-server.sh}) in Debian's Chromium, driven by playwright-core
 * ({@code src/test/browser/vscode.test.mjs}). The platform .vsix (linux-x64) is built with this module's server
 * and its own Java runtime inside, VS Code runs where no JDK can be seen (as root: /usr/lib/jvm hidden in a
 * private mount namespace, no JAVA_HOME, no JOMPD_JAVA), a workspace launches the nested 3 2 fixture to a function breakpoint on {@code jompd_marker}, and the test
 * looks at what a user sees: thread names, the OpenMP view, and no error notification at the start, on
 * hovering {@code barrier} and {@code pragma}, on a failing watch and a failing console evaluation; then the
 * OpenMP Parallel Stacks webview in a 1280×800 window (every box inside its view, no frame name cut), its boxes
 * checked against the facts the program recorded and each thread's path against gdb's backtrace of a core of the
 * stop, finding a frame and marking a thread, and a click on a frame of another thread selecting that thread and
 * frame (the console evaluates the fixture's {@code k} there).
 * Screenshots, the call stack, the view's rows and the logs stay in {@code target/vscode-browser/artifacts}.
 * Skipped, with the reason, where node 20, Chromium or the system packages code-server needs are missing (failed
 * instead on CI: {@link Prerequisite}).
 */
class VscodeBrowserIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    /** The repository, checked to hold what the scenarios need; the prerequisites, or a skip (a failure on CI). */
    private static Path repository() throws Exception {
        Prerequisite.require(NodeTools.missing().isEmpty(), () -> NodeTools.missing().orElse(""));
        Prerequisite.require(Files.isExecutable(CHROMIUM), "no /usr/bin/chromium: run scripts/setup-system.sh");
        Prerequisite.require(Files.isExecutable(Path.of("/usr/bin/rg")), "no ripgrep (rg): run scripts/setup-system.sh");
        String nodeVersion = output(List.of("node", "--version"), Path.of("."), 30).strip();
        Prerequisite.require(nodeVersion.startsWith("v20."), () -> "code-server 4.96.4 runs on node 20 only, this is " + nodeVersion);
        Path repository = Path.of("..").toAbsolutePath().normalize();
        Prerequisite.require(Files.isRegularFile(repository.resolve("vscode-extension/build.sh")), "no vscode-extension/ beside dap-server/");
        return repository;
    }

    /** The platform package users install: the server inside with its own Java runtime (no JDK needed). */
    private static Path platformVsix(Path repository) throws Exception {
        Path extension = repository.resolve("vscode-extension");
        run(List.of("bash", extension.resolve("build.sh").toString(), "--platform", "linux-x64"), extension, 900);
        return extension.resolve("jompd-openmp-linux-x64.vsix");
    }

    /** A fresh workspace under target/{@code name} with {@code configurations} as its launch.json. */
    private static Path workspace(String name, JsonArray configurations) throws Exception {
        Path workspace = Path.of("target", name, "workspace").toAbsolutePath();
        deleteRecursively(workspace);
        Files.createDirectories(workspace.resolve(".vscode"));
        JsonObject launchJson = new JsonObject();
        launchJson.addProperty("version", "0.2.0");
        launchJson.add("configurations", configurations);
        Files.writeString(workspace.resolve(".vscode/launch.json"), new GsonBuilder().setPrettyPrinting().create().toJson(launchJson));
        return workspace;
    }

    /**
     * Runs the node scenario {@code scenario} (src/test/browser) against code-server with the .vsix, on
     * {@code workspace}; {@code config} gets what every scenario reads (artifacts in target/{@code name}/artifacts).
     */
    private static void runScenario(String name, String scenario, Path repository, Path workspace, JsonObject config)
            throws Exception {
        Path work = Path.of("target", name).toAbsolutePath();
        Path artifacts = work.resolve("artifacts");
        deleteRecursively(artifacts);
        Files.createDirectories(artifacts);
        Path codeServer = BrowserTools.codeServer(repository);
        Path vsix = platformVsix(repository);
        Path node = BrowserTools.nodeDirectory(scenario);
        config.addProperty("codeServer", codeServer.toString());
        config.addProperty("vsix", vsix.toString());
        config.addProperty("workspace", workspace.toString());
        config.addProperty("artifacts", artifacts.toString());
        config.addProperty("chromium", CHROMIUM.toString());
        config.addProperty("port", freePort());
        Path configFile = work.resolve("config.json");
        Files.writeString(configFile, new GsonBuilder().setPrettyPrinting().create().toJson(config));

        List<String> nodeTest = List.of("node", "--test", "--test-reporter=spec", scenario);
        // No JDK visible to VS Code and the server it starts: the .vsix's own runtime must serve. As root, in a
        // private mount namespace with an empty tmpfs over /usr/lib/jvm (where every JDK here lives, and
        // where /usr/bin/java points); elsewhere the scenario runs with the JDKs visible, and says so.
        boolean hideJdks = "root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/bin/unshare"));
        List<String> command = new ArrayList<>();
        if (hideJdks) {
            command.addAll(List.of("unshare", "--mount", "--propagation", "private", "--", "bash", "-c",
                    "mount -t tmpfs -o mode=755 no-jdk-here /usr/lib/jvm && exec \"$@\"", "bash"));
        } else {
            System.out.println("VscodeBrowserIT: not root, the JDKs stay visible (the no-JDK claim is not checked here)");
        }
        command.addAll(nodeTest);
        ProcessBuilder test = new ProcessBuilder(command).directory(node.toFile()).redirectErrorStream(true);
        test.environment().put("JOMPD_BROWSER_CONFIG", configFile.toString());
        test.environment().remove("JOMPD_JAVA");
        test.environment().remove("JAVA_HOME");
        test.environment().put("PATH", String.join(":", Arrays.stream(
                test.environment().getOrDefault("PATH", "/usr/bin:/bin").split(":"))
                .filter(directory -> !directory.startsWith("/usr/lib/jvm")).toList()));
        int exit = runProcess(test, 600, System.out);
        assertThat(exit).as("node --test exit code (its report is above; screenshots in " + artifacts + ")").isZero();
    }

    @Test
    void extensionInVscodeShowsOpenMpAndRaisesNoErrorPopUps() throws Exception {
        Path repository = repository();
        Path program = FixtureBuilder.executable(Fixture.NESTED);
        // the scenario hovers the words of nested.c's "#pragma omp barrier" line, in the source gdb names
        assertThat(Files.readAllLines(program.getParent().resolve("nested.c"))).as("nested.c beside the fixture")
                .contains("#pragma omp barrier");
        Path workspaceDirectory = Path.of("target", "vscode-browser", "workspace").toAbsolutePath();
        JsonObject launch = new JsonObject();
        launch.addProperty("type", "jompd");
        launch.addProperty("request", "launch");
        launch.addProperty("name", "nested 3 2");
        launch.addProperty("program", program.toString());
        JsonArray args = new JsonArray();
        args.add("3");
        args.add("2");
        launch.add("args", args);
        launch.addProperty("cwd", workspaceDirectory.toString());
        // what the program records about itself: the independent truth the parallel stacks are checked against
        Path facts = workspaceDirectory.resolve("facts.properties");
        JsonArray environment = new JsonArray();
        JsonObject factsVariable = new JsonObject();
        factsVariable.addProperty("name", "JOMPD_FACTS");
        factsVariable.addProperty("value", facts.toString());
        environment.add(factsVariable);
        launch.add("environment", environment);
        JsonArray configurations = new JsonArray();
        configurations.add(launch);
        Path workspace = workspace("vscode-browser", configurations);

        JsonObject config = new JsonObject();
        config.addProperty("facts", facts.toString());
        config.addProperty("program", program.toString());
        // the diagnosis the Parallel Stacks panel must show: the command line's findings (jompd diagnose --json) of
        // the same program stopped at the same marker, checked here against that stop's facts (summary and evidence
        // of each: what the panel shows)
        StoppedFixture sameStop = Fixtures.core(FixtureRun.of(Fixture.NESTED, "3", "2"));
        JsonArray findings = CoreIT.commandLinesFindings(sameStop);
        CoreIT.assertNoThreadWaitsInOpenMp(findings, sameStop.facts());
        JsonArray diagnosis = new JsonArray();
        for (var element : findings) {
            JsonObject shown = new JsonObject();
            shown.add("summary", element.getAsJsonObject().get("summary"));
            shown.add("evidence", element.getAsJsonObject().get("evidence"));
            diagnosis.add(shown);
        }
        config.add("diagnosis", diagnosis);
        runScenario("vscode-browser", "vscode.test.mjs", repository, workspace, config);
    }

    /**
     * Attach and post-mortem sessions as a user starts them ({@code src/test/browser/sessions.test.mjs}): attach
     * through {@code ${command:pickProcess}} to a fixture held at its marker, which stays stopped with its
     * threads named as its facts say; a core whose thread stops in libomp, opened on the user's frame (the
     * barrier line the fixture recorded), where Continue and the steps leave the OpenMP view as it was and no
     * exception widget; a core with another program, refused with the command line's words.
     */
    @Test
    void attachAndCoreSessionsInVscode() throws Exception {
        Path repository = repository();
        StoppedFixture core = RuntimeStopCores.barrierWaitCore();
        Path other = Fixtures.executable(FixtureRun.of(Fixture.SERIAL));
        try (LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.NESTED, "2", "2"))) {
            JsonArray configurations = new JsonArray();
            configurations.add(configuration("attach to a process", "attach", "processId", "${command:pickProcess}"));
            configurations.add(configuration("core of barrier_straggler", "launch", "program", core.executable().toString(),
                    "coreDumpPath", core.core().toString()));
            configurations.add(configuration("core with another program", "launch", "program", other.toString(),
                    "coreDumpPath", core.core().toString()));
            Path workspace = workspace("vscode-sessions", configurations);
            Path liveFacts = workspace.resolve("live.properties");
            Files.write(liveFacts, live.facts().asProperties().entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()).toList());
            Path coreFacts = workspace.resolve("core.properties");
            Files.write(coreFacts, core.facts().asProperties().entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()).toList());

            JsonObject config = new JsonObject();
            config.addProperty("livePid", live.pid());
            config.addProperty("liveProgram", FixtureBuilder.executable(Fixture.NESTED).toString());
            config.addProperty("liveFacts", liveFacts.toString());
            config.addProperty("coreFacts", coreFacts.toString());
            // the command line's refusal of the pair, with the files' own build-ids (readelf)
            config.addProperty("mismatch", ("core was made with a different %s: the core's copy has build-id %s, but %s has "
                    + "build-id %s").formatted(core.executable().getFileName(), CoreIT.buildId(core.executable()), other,
                    CoreIT.buildId(other)));
            runScenario("vscode-sessions", "sessions.test.mjs", repository, workspace, config);
        }
    }

    /**
     * Programs a user debugs besides the well-formed OpenMP one ({@code src/test/browser/programs.test.mjs}), each
     * checked against what the program recorded: {@code parallel 2} without OMP_DEBUG (the picture's one hint once in
     * the OpenMP view, every thread "not tracked", no error notification); a core of {@code sleep}, which has no
     * OpenMP (the one sentence in the view and in the console's {@code ompd threads}, no {@code ompd_rc}); {@code
     * tasks 10 4} (each thread's task rows as its facts say, exactly one executing per thread); and Step Into (F11) on
     * {@code parallel.c}'s {@code #pragma omp parallel} line ending on the region's first statement, a Step Over
     * (F10) then on the next one ({@link StepIntoCase#PARALLEL}: lines found in the source by their text).
     */
    @Test
    void programsWithoutOmpDebugWithoutOpenMpWithTasksAndStepIntoInVscode(@org.junit.jupiter.api.io.TempDir Path scratch)
            throws Exception {
        Path repository = repository();
        Path parallel = FixtureBuilder.executable(Fixture.PARALLEL);
        Path tasks = FixtureBuilder.executable(Fixture.TASKS);
        Path workspaceDirectory = Path.of("target", "vscode-programs", "workspace").toAbsolutePath();
        Path untrackedFacts = workspaceDirectory.resolve("untracked.properties");
        Path tasksFacts = workspaceDirectory.resolve("tasks.properties");
        Process sleeper = new ProcessBuilder("sleep", "600").start();
        try {
            // a program without OpenMP, as a core (CoreIT.aProgramWithoutOpenMpIsSaidInOneSentence)
            Path core = scratch.resolve("sleep.core");
            Process gcore = new ProcessBuilder("gdb", "-batch", "-nx", "-p", Long.toString(sleeper.pid()), "-ex",
                    "gcore " + core).redirectErrorStream(true).redirectOutput(scratch.resolve("gdb.log").toFile()).start();
            assertThat(gcore.waitFor()).as("gcore of sleep").isZero();
            String sleepProgram = sleeper.info().command().orElseThrow();

            StepIntoCase step = StepIntoCase.PARALLEL;
            JsonArray configurations = new JsonArray();
            JsonObject untracked = configuration("parallel 2 without OMP_DEBUG", "launch", "program", parallel.toString(),
                    "cwd", workspaceDirectory.toString());
            untracked.add("args", strings("2"));
            untracked.add("environment", environment("OMP_DEBUG", "disabled", "JOMPD_FACTS", untrackedFacts.toString()));
            configurations.add(untracked);
            configurations.add(configuration("core of sleep", "launch", "program", sleepProgram, "coreDumpPath", core.toString()));
            JsonObject withTasks = configuration("tasks 10 4", "launch", "program", tasks.toString(),
                    "cwd", workspaceDirectory.toString());
            withTasks.add("args", strings("10", "4"));
            withTasks.add("environment", environment("JOMPD_FACTS", tasksFacts.toString()));
            configurations.add(withTasks);
            JsonObject stepInto = configuration("parallel 2 step into", "launch", "program", parallel.toString(),
                    "cwd", workspaceDirectory.toString());
            stepInto.add("args", strings(step.arguments().toArray(String[]::new)));
            configurations.add(stepInto);
            Path workspace = workspace("vscode-programs", configurations);

            JsonObject config = new JsonObject();
            config.addProperty("untrackedFacts", untrackedFacts.toString());
            config.addProperty("untrackedHint", dev.jompd.report.OpenMpPicture.UNTRACKED_HINT);
            config.addProperty("notTracked", dev.jompd.report.OpenMpPicture.NOT_TRACKED);
            config.addProperty("noOpenMp", "the core file " + core + " has no OpenMP runtime loaded (no libomp among its "
                    + "modules: a program without OpenMP, or one that has not loaded it yet)");
            config.addProperty("tasksFacts", tasksFacts.toString());
            config.addProperty("stepSource", parallel.getParent().resolve(step.breakFile()).toString());
            config.addProperty("stepBreakLine", step.breakLineNumber());
            config.addProperty("stepNexts", step.nexts());
            config.addProperty("stepPragmaLine", lineOf(parallel.getParent().resolve(step.breakFile()), "#pragma omp parallel"));
            config.addProperty("stepFirstLine", step.firstLine());
            config.addProperty("stepNextLine", step.stepOverLine());
            runScenario("vscode-programs", "programs.test.mjs", repository, workspace, config);
        } finally {
            sleeper.destroyForcibly();
        }
    }

    /** The 1-based number of the first line of {@code source} that starts (after blanks) with {@code text}. */
    private static int lineOf(Path source, String text) throws Exception {
        List<String> lines = Files.readAllLines(source);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().startsWith(text)) {
                return i + 1;
            }
        }
        throw new AssertionError("no line starting with " + text + " in " + source);
    }

    private static JsonArray strings(String... values) {
        JsonArray array = new JsonArray();
        for (String value : values) {
            array.add(value);
        }
        return array;
    }

    /** A launch configuration's {@code environment}: name, value pairs. */
    private static JsonArray environment(String... pairs) {
        JsonArray environment = new JsonArray();
        for (int i = 0; i < pairs.length; i += 2) {
            JsonObject variable = new JsonObject();
            variable.addProperty("name", pairs[i]);
            variable.addProperty("value", pairs[i + 1]);
            environment.add(variable);
        }
        return environment;
    }

    private static JsonObject configuration(String name, String request, String... attributes) {
        JsonObject configuration = new JsonObject();
        configuration.addProperty("type", "jompd");
        configuration.addProperty("request", request);
        configuration.addProperty("name", name);
        for (int i = 0; i < attributes.length; i += 2) {
            configuration.addProperty(attributes[i], attributes[i + 1]);
        }
        return configuration;
    }
}
