package dev.jompd.dap;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.Prerequisite;
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

    @Test
    void extensionInVscodeShowsOpenMpAndRaisesNoErrorPopUps() throws Exception {
        Prerequisite.require(NodeTools.missing().isEmpty(), () -> NodeTools.missing().orElse(""));
        Prerequisite.require(Files.isExecutable(CHROMIUM), "no /usr/bin/chromium: run scripts/setup-system.sh");
        Prerequisite.require(Files.isExecutable(Path.of("/usr/bin/rg")), "no ripgrep (rg): run scripts/setup-system.sh");
        String nodeVersion = output(List.of("node", "--version"), Path.of("."), 30).strip();
        Prerequisite.require(nodeVersion.startsWith("v20."), () -> "code-server 4.96.4 runs on node 20 only, this is " + nodeVersion);
        Path repository = Path.of("..").toAbsolutePath().normalize();
        Path extension = repository.resolve("vscode-extension");
        Prerequisite.require(Files.isRegularFile(extension.resolve("build.sh")), "no vscode-extension/ beside dap-server/");

        Path work = Path.of("target", "vscode-browser").toAbsolutePath();
        Path artifacts = work.resolve("artifacts");
        deleteRecursively(artifacts);
        Files.createDirectories(artifacts);
        Path codeServer = BrowserTools.codeServer(repository);

        // the platform package users install: the server inside with its own Java runtime (no JDK needed)
        run(List.of("bash", extension.resolve("build.sh").toString(), "--platform", "linux-x64"), extension, 900);
        Path vsix = extension.resolve("jompd-openmp-linux-x64.vsix");

        Path node = BrowserTools.nodeDirectory("vscode.test.mjs");

        Path program = FixtureBuilder.executable(Fixture.NESTED);
        Path workspace = work.resolve("workspace");
        deleteRecursively(workspace);
        Files.createDirectories(workspace.resolve(".vscode"));
        // the scenario hovers the words of nested.c's "#pragma omp barrier" line, in the source gdb names
        assertThat(Files.readAllLines(program.getParent().resolve("nested.c"))).as("nested.c beside the fixture")
                .contains("#pragma omp barrier");
        JsonObject launch = new JsonObject();
        launch.addProperty("type", "jompd");
        launch.addProperty("request", "launch");
        launch.addProperty("name", "nested 3 2");
        launch.addProperty("program", program.toString());
        JsonArray args = new JsonArray();
        args.add("3");
        args.add("2");
        launch.add("args", args);
        launch.addProperty("cwd", workspace.toString());
        // what the program records about itself: the independent truth the parallel stacks are checked against
        Path facts = workspace.resolve("facts.properties");
        JsonArray environment = new JsonArray();
        JsonObject factsVariable = new JsonObject();
        factsVariable.addProperty("name", "JOMPD_FACTS");
        factsVariable.addProperty("value", facts.toString());
        environment.add(factsVariable);
        launch.add("environment", environment);
        JsonObject launchJson = new JsonObject();
        launchJson.addProperty("version", "0.2.0");
        JsonArray configurations = new JsonArray();
        configurations.add(launch);
        launchJson.add("configurations", configurations);
        Files.writeString(workspace.resolve(".vscode/launch.json"), new GsonBuilder().setPrettyPrinting().create().toJson(launchJson));

        JsonObject config = new JsonObject();
        config.addProperty("codeServer", codeServer.toString());
        config.addProperty("vsix", vsix.toString());
        config.addProperty("workspace", workspace.toString());
        config.addProperty("artifacts", artifacts.toString());
        config.addProperty("facts", facts.toString());
        config.addProperty("program", program.toString());
        config.addProperty("chromium", CHROMIUM.toString());
        config.addProperty("port", freePort());
        Path configFile = work.resolve("config.json");
        Files.writeString(configFile, new GsonBuilder().setPrettyPrinting().create().toJson(config));

        List<String> nodeTest = List.of("node", "--test", "--test-reporter=spec", "vscode.test.mjs");
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
}
