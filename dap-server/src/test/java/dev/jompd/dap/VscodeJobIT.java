package dev.jompd.dap;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.MpiFixture;
import dev.jompd.testkit.Prerequisite;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static dev.jompd.dap.BrowserTools.deleteRecursively;
import static dev.jompd.dap.BrowserTools.freePort;
import static dev.jompd.dap.BrowserTools.output;
import static dev.jompd.dap.BrowserTools.run;
import static dev.jompd.dap.BrowserTools.runProcess;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jompd: Inspect an MPI Job} in a real VS Code, as VscodeBrowserIT drives it (code-server 4.96.4 in
 * Debian's Chromium, playwright-core; {@code src/test/browser/job.test.mjs}): Open MPI's mpirun runs a hung hybrid
 * job on this host (mpi_hybrid lock_barrier, 5 ranks × 3 threads, rank 2 the culprit), the command is run from the
 * palette with the launcher's pid typed into its input box, and the merged picture in the webview is checked
 * against what every rank recorded about itself (JOMPD_FACTS_DIR): every rank as one range, the classes (the
 * culprit alone), the culprit named with its lock and line, the waiters as ranges, and a click on a frame
 * leading to the ranks and threads there. The extension runs the jompd command line of this build
 * ({@code jompd-cli/target/jompd}, setting {@code jompd.cliPath}). Screenshots and what the view showed stay
 * in {@code target/vscode-job/artifacts}. Skipped, with the reason, where node 20, Chromium, mpicc or mpirun
 * are missing (failed instead on CI: {@link Prerequisite}).
 */
class VscodeJobIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final int RANKS = 5;
    private static final int THREADS = 3;
    private static final int CULPRIT = 2;

    @Test
    void anMpirunJobInVscodeShowsItsRanksAsTheyRecordedThemselves() throws Exception {
        Prerequisite.require(NodeTools.missing().isEmpty(), () -> NodeTools.missing().orElse(""));
        Prerequisite.require(Files.isExecutable(CHROMIUM), "no /usr/bin/chromium: run scripts/setup-system.sh");
        Prerequisite.require(Files.isExecutable(Path.of("/usr/bin/rg")), "no ripgrep (rg): run scripts/setup-system.sh");
        Optional<String> noMpi = MpiFixture.unavailable();
        Prerequisite.require(noMpi.isEmpty() && Commands.available("mpirun"), () -> noMpi.orElse("no mpirun (openmpi-bin)"));
        String nodeVersion = output(List.of("node", "--version"), Path.of("."), 30).strip();
        Prerequisite.require(nodeVersion.startsWith("v20."), () -> "code-server 4.96.4 runs on node 20 only, this is " + nodeVersion);
        Path repository = Path.of("..").toAbsolutePath().normalize();
        Path extension = repository.resolve("vscode-extension");
        Prerequisite.require(Files.isRegularFile(extension.resolve("build.sh")), "no vscode-extension/ beside dap-server/");
        Path cli = repository.resolve("jompd-cli/target/jompd/bin/jompd");
        Prerequisite.require(Files.isExecutable(cli), () -> "no " + cli + ": build jompd-cli first (mvn install)");

        Path work = Path.of("target", "vscode-job").toAbsolutePath();
        Path artifacts = work.resolve("artifacts");
        deleteRecursively(artifacts);
        Files.createDirectories(artifacts);
        // the job first, so that it starts while the extension builds; started by sh, so that mpirun is not this
        // JVM's child (the JDK's reaper would take its ptrace stops)
        Path facts = work.resolve("facts");
        deleteRecursively(facts);
        Files.createDirectories(facts);
        String environment = MpiFixture.rankEnvironment(facts).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
        Commands.Result started = Commands.run(List.of("sh", "-c", "env " + environment + " mpirun --allow-run-as-root "
                + "--oversubscribe -np " + RANKS + " " + MpiFixture.executable() + " lock_barrier " + THREADS + " " + CULPRIT
                + " </dev/null >" + work.resolve("job.out") + " 2>&1 & echo $!"), Map.of(), work, Duration.ofSeconds(30));
        long mpirun = Long.parseLong(started.output().strip());
        try {
            Path codeServer = BrowserTools.codeServer(repository);
            // the package VscodeExtensionIT builds (the command line does the job's work, not the bundled server):
            // built again unless it is newer than everything it is built from (in mvn verify, that IT ran just before)
            Path vsix = extension.resolve("jompd-openmp.vsix");
            if (!newerThanItsSources(vsix, extension)) {
                run(List.of("bash", extension.resolve("build.sh").toString()), extension, 900);
            }

            Path node = BrowserTools.nodeDirectory("job.test.mjs"); // beside VscodeBrowserIT's scenario
            Path workspace = Files.createDirectories(work.resolve("workspace"));

            List<Facts> ranks = MpiFixture.awaitFacts(facts, RANKS, Duration.ofMinutes(2), ProcessHandle.of(mpirun).orElseThrow());
            assertThat(ranks.get(CULPRIT).get("mpi.role")).as("the fixture's culprit").isEqualTo("culprit");

            JsonObject config = new JsonObject();
            config.addProperty("codeServer", codeServer.toString());
            config.addProperty("vsix", vsix.toString());
            config.addProperty("workspace", workspace.toString());
            config.addProperty("artifacts", artifacts.toString());
            config.addProperty("chromium", CHROMIUM.toString());
            config.addProperty("port", freePort());
            config.addProperty("cli", cli.toString());
            config.addProperty("mpirun", mpirun);
            config.addProperty("facts", facts.toString());
            config.addProperty("ranks", RANKS);
            Path configFile = work.resolve("config.json");
            Files.writeString(configFile, new GsonBuilder().setPrettyPrinting().create().toJson(config));

            ProcessBuilder test = new ProcessBuilder("node", "--test", "--test-reporter=spec", "job.test.mjs")
                    .directory(node.toFile()).redirectErrorStream(true);
            test.environment().put("JOMPD_BROWSER_CONFIG", configFile.toString());
            int exit = runProcess(test, 300, System.out);
            assertThat(exit).as("node --test exit code (its report is above; screenshots in " + artifacts + ")").isZero();
            assertThat(ProcessHandle.of(mpirun)).as("the launcher still runs: inspecting ended nothing").isPresent();
        } finally {
            ProcessHandle.of(mpirun).ifPresent(ProcessHandle::destroy); // mpirun ends its ranks
        }
    }

    /** Whether {@code vsix} exists and is newer than the extension's sources, lock file and the server it bundles. */
    private static boolean newerThanItsSources(Path vsix, Path extension) throws IOException {
        if (!Files.isRegularFile(vsix)) {
            return false;
        }
        long built = Files.getLastModifiedTime(vsix).toMillis();
        List<Path> sources = List.of(extension.resolve("src"), extension.resolve("package.json"),
                extension.resolve("package-lock.json"), extension.resolve("build.sh"),
                extension.resolve("../dap-server/target/jompd-dap").normalize());
        for (Path source : sources) {
            if (!Files.exists(source)) {
                continue;
            }
            try (var files = Files.walk(source)) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    if (Files.getLastModifiedTime(file).toMillis() > built) {
                        return false;
                    }
                }
            }
        }
        return true;
    }
}
