package dev.jompd.dap;

import dev.jompd.testkit.Prerequisite;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Builds the VS Code extension ({@code vscode-extension/build.sh}: npm ci from the lock file, TypeScript,
 * its unit tests, the .vsix with this module's server bundled), so that {@code mvn verify} produces it.
 * Skipped, with the reason, where node or npm is missing (failed on CI).
 */
class VscodeExtensionIT {

    @Test
    void extensionBuildsTestsAndPackagesWithTheServerInside() throws Exception {
        Prerequisite.require(NodeTools.missing().isEmpty(), () -> NodeTools.missing().orElse(""));
        Path extension = Path.of("..", "vscode-extension").toAbsolutePath().normalize();
        Prerequisite.require(Files.isRegularFile(extension.resolve("build.sh")), "no vscode-extension/ beside dap-server/");
        Process build = new ProcessBuilder("bash", extension.resolve("build.sh").toString())
                .directory(extension.toFile()).redirectErrorStream(true).start();
        Thread pump = Thread.ofPlatform().start(() -> {
            try (InputStream in = build.getInputStream()) {
                in.transferTo(System.out);
            } catch (IOException ignored) {
                // ended
            }
        });
        assertThat(build.waitFor(10, TimeUnit.MINUTES)).as("build.sh finished").isTrue();
        pump.join(5000);
        assertThat(build.exitValue()).as("build.sh exit code (its output is above)").isZero();
        Path vsix = extension.resolve("jompd-openmp.vsix");
        try (ZipFile zip = new ZipFile(vsix.toFile())) {
            assertThat(zip.getEntry("extension/package.json")).isNotNull();
            assertThat(zip.getEntry("extension/out/src/extension.js")).isNotNull();
            assertThat(zip.getEntry("extension/server/bin/jompd-dap")).as("server bundled").isNotNull();
            assertThat(zip.getEntry("extension/server/lib/dap-server.jar")).isNotNull();
        }
    }

}
