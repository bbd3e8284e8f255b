package dev.jompd.dap;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Prerequisite;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the Node.js end-to-end suite ({@code src/test/node/e2e.test.mjs}): VS Code's own DAP test client,
 * {@code @vscode/debugadapter-testsupport}, against this server (stdio and TCP) over real gdb, on a launch, a
 * core and an attach. Installs the client with {@code npm ci} from the committed lock file (the npm registry
 * is the only network it needs). Skipped, with the reason, where node or npm is missing (failed on CI).
 */
class NodeClientIT {

    @Test
    void vscodeTestClientPassesTheEndToEndSuite() throws Exception {
        Prerequisite.require(NodeTools.missing().isEmpty(), () -> NodeTools.missing().orElse(""));
        Path work = Files.createDirectories(Path.of("target", "node-e2e").toAbsolutePath());
        Path sources = Path.of("src", "test", "node").toAbsolutePath();
        for (String file : List.of("package.json", "package-lock.json", "e2e.test.mjs")) {
            Files.copy(sources.resolve(file), work.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.isDirectory(work.resolve("node_modules/@vscode/debugadapter-testsupport"))) {
            run(List.of("npm", "ci", "--no-audit", "--no-fund"), work, 600);
        }

        StoppedFixture core = Fixtures.core(FixtureRun.of(Fixture.NESTED, "4", "4"));
        Path launcher = work.resolve("jompd-dap-stdio.sh");
        String java = ProcessHandle.current().info().command().orElse("java");
        Files.writeString(launcher, "#!/bin/sh\nexec " + shellQuote(java) + " --enable-native-access=ALL-UNNAMED -cp "
                + shellQuote(System.getProperty("java.class.path")) + " dev.jompd.dap.DapMain --stdio\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwx------"));

        try (DapServerExtension server = DapServerExtension.started();
             LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.NESTED, "2", "3"))) {
            JsonObject config = new JsonObject();
            config.addProperty("port", server.port());
            config.addProperty("stdioLauncher", launcher.toString());
            config.addProperty("nestedProgram", FixtureBuilder.executable(Fixture.NESTED).toString());
            JsonObject coreConfig = new JsonObject();
            coreConfig.addProperty("program", core.executable().toString());
            coreConfig.addProperty("core", core.core().toString());
            coreConfig.addProperty("facts", writeFacts(core.facts(), work.resolve("core-facts.properties")).toString());
            config.add("core", coreConfig);
            JsonObject attach = new JsonObject();
            attach.addProperty("pid", live.pid());
            attach.addProperty("program", FixtureBuilder.executable(Fixture.NESTED).toString());
            attach.addProperty("facts", writeFacts(live.facts(), work.resolve("attach-facts.properties")).toString());
            config.add("attach", attach);
            Path configFile = work.resolve("config.json");
            Files.writeString(configFile, new GsonBuilder().setPrettyPrinting().create().toJson(config));

            ProcessBuilder node = new ProcessBuilder("node", "--test", "--test-reporter=spec", "e2e.test.mjs")
                    .directory(work.toFile()).redirectErrorStream(true);
            node.environment().put("JOMPD_E2E_CONFIG", configFile.toString());
            int exit = runProcess(node, 900);
            assertThat(exit).as("node --test exit code (its report is above)").isZero();
            assertThat(live.release()).contains("JOMPD_RESULT ok");
        }
    }

    private static Path writeFacts(Facts facts, Path file) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.ISO_8859_1)) {
            facts.asProperties().store(out, null);
        }
        return file;
    }

    private static void run(List<String> command, Path directory, int timeoutSeconds) throws Exception {
        int exit = runProcess(new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true),
                timeoutSeconds);
        assertThat(exit).as(String.join(" ", command)).isZero();
    }

    private static int runProcess(ProcessBuilder builder, int timeoutSeconds) throws Exception {
        return BrowserTools.runProcess(builder, timeoutSeconds, System.out);
    }


    private static String shellQuote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
