package dev.jompd.testkit;

import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docker/Dockerfile builds an environment in which the runtime and a fixture work. Skipped, with
 * Testcontainers' reason, where no Docker engine runs (as on the development machines).
 */
@Testcontainers(disabledWithoutDocker = true)
class DockerImageIT {

    @Test
    void imageBuildsTheRuntimeAndRunsAFixture() {
        var image = new ImageFromDockerfile("jompd-env-test", false)
                .withFileFromPath(".", Runtimes.repositoryRoot())
                .withDockerfilePath("docker/Dockerfile");
        try (var container = new GenericContainer<>(image)
                .withCommand("bash", "-c", "ls /opt/jompd-cache/llvm-19/lib/libompd.so && gdb --version | head -1")
                .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofMinutes(30)))) {
            container.start();
            assertThat(container.getLogs()).contains("libompd.so").contains("GNU gdb");
        }
    }
}
