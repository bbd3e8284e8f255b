package dev.jompd.dap;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Whether node (20 or newer) and npm are here; empty when they are, else why not (for a skip message). */
final class NodeTools {
    private NodeTools() {}

    static Optional<String> missing() {
        if (!onPath("node") || !onPath("npm")) {
            return Optional.of("node (20 or newer) and npm are needed: run scripts/setup-system.sh (it installs "
                    + "Node.js 20 where they are missing)");
        }
        try {
            Process version = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            String text = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!version.waitFor(30, TimeUnit.SECONDS)) {
                version.destroyForcibly();
                return Optional.of("node --version did not answer");
            }
            int major = Integer.parseInt(text.replaceFirst("^v", "").split("\\.")[0]);
            return major >= 20 ? Optional.empty()
                    : Optional.of("node " + text + " is too old: the VS Code packages need node 20 or newer");
        } catch (Exception e) {
            return Optional.of("cannot run node: " + e.getMessage());
        }
    }

    private static boolean onPath(String tool) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!directory.isEmpty() && Files.isExecutable(Path.of(directory, tool))) {
                return true;
            }
        }
        return false;
    }
}
