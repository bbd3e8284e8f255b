package dev.jompd.cli;

import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jompd libompd} in the distribution as users run it: the path it prints is the distribution's own
 * standard OMPD library (an ELF shared object exporting the OMPD entry points, as {@code nm -D} reads it), and
 * the advice names that library's directory. LibompdGdbIT proves a debugger loads it.
 */
class LibompdCommandIT {
    @Test
    void printsTheDistributionsOwnLibraryAndHowToLoadIt() throws Exception {
        Commands.Result path = distribution("libompd", "--path");
        assertThat(path.exitCode()).as(path.output()).isZero();
        Path library = Path.of(path.output().strip());
        assertThat(library).isRegularFile().hasFileName("libompd.so");
        assertThat(library.getParent().resolve("jompd-cli.jar")).as("beside the distribution's jars").isRegularFile();
        Commands.Result symbols = Commands.run(List.of("nm", "-D", "--defined-only", library.toString()), Map.of(),
                library.getParent(), Duration.ofSeconds(30));
        assertThat(symbols.exitCode()).as(symbols.output()).isZero();
        assertThat(symbols.output()).contains(" T ompd_initialize", " T ompd_get_api_version", " T ompd_process_initialize",
                " T ompd_get_thread_handle", " T ompd_get_icv_from_scope", " T ompd_get_device_from_thread");

        Commands.Result advice = distribution("libompd");
        assertThat(advice.exitCode()).as(advice.output()).isZero();
        assertThat(advice.output()).contains(library.toString()).contains("LD_LIBRARY_PATH=" + library.getParent() + " gdb")
                .contains("ompd init");
        assertThat(Files.size(library)).isPositive();
    }

    private static Commands.Result distribution(String... args) throws Exception {
        Path launcher = Runtimes.repositoryRoot().resolve("jompd-cli/target/jompd/bin/jompd");
        List<String> command = new java.util.ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        return Commands.run(command, Map.of(), launcher.getParent(), Duration.ofMinutes(1));
    }
}
