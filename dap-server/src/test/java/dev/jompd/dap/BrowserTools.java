package dev.jompd.dap;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the browser ITs (VscodeBrowserIT, VscodeJobIT) share: the node directory their scenarios run in
 * ({@code target/vscode-browser/node}: playwright-core from the committed lock file, the scenario and
 * {@code vscode-harness.mjs}), and running commands with their output in the test's.
 */
final class BrowserTools {
    private BrowserTools() {}

    /** The node directory with {@code scenario} (a file of {@code src/test/browser}) and its packages installed. */
    static Path nodeDirectory(String scenario) throws Exception {
        Path node = Files.createDirectories(Path.of("target", "vscode-browser", "node").toAbsolutePath());
        Path sources = Path.of("src", "test", "browser").toAbsolutePath();
        for (String file : List.of("package.json", "package-lock.json", "vscode-harness.mjs", scenario)) {
            Files.copy(sources.resolve(file), node.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.isDirectory(node.resolve("node_modules/playwright-core"))) {
            run(List.of("npm", "ci", "--no-audit", "--no-fund"), node, 600);
        }
        return node;
    }

    /** The install directory of code-server (scripts/install-code-server.sh: once into the jompd cache). */
    static Path codeServer(Path repository) throws Exception {
        Path codeServer = Path.of(output(List.of("bash", repository.resolve("scripts/install-code-server.sh").toString()),
                repository, 1200).strip().lines().reduce((first, last) -> last).orElseThrow());
        assertThat(codeServer.resolve("out/node/entry.js")).exists();
        return codeServer;
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    static void run(List<String> command, Path directory, int timeoutSeconds) throws Exception {
        int exit = runProcess(new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true),
                timeoutSeconds, System.out);
        assertThat(exit).as(String.join(" ", command)).isZero();
    }

    /** The command's standard output (its standard error goes to the test's output). */
    static String output(List<String> command, Path directory, int timeoutSeconds) throws Exception {
        Process process = new ProcessBuilder(command).directory(directory.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish within " + timeoutSeconds + " s");
        }
        assertThat(process.exitValue()).as(String.join(" ", command)).isZero();
        return new String(out, StandardCharsets.UTF_8);
    }

    static int runProcess(ProcessBuilder builder, int timeoutSeconds, OutputStream sink) throws Exception {
        Process process = builder.start();
        Thread pump = Thread.ofPlatform().start(() -> {
            try (InputStream in = process.getInputStream()) {
                in.transferTo(sink);
            } catch (IOException ignored) {
                // process ended
            }
        });
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError(builder.command() + " did not finish within " + timeoutSeconds + " s");
        }
        pump.join(5000);
        return process.exitValue();
    }

    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (var paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
