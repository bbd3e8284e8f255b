package dev.jompd.gdb;

import dev.jompd.testkit.Runtimes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs real gdb in batch mode: target set-up commands, then commands whose output is cut into one
 * section per command (an {@code echo} marker goes before each).
 */
public final class GdbDriver {
    public static final String MARK = "@@@jompd-section ";

    private GdbDriver() {}

    /** The distribution built by {@code package}: bin/, lib/, gdb/jompd.py. */
    public static Path distribution() {
        Path configured = Path.of(System.getProperty("jompd.gdb.distribution", "target/jompd"));
        if (!Files.isRegularFile(configured.resolve("gdb/jompd.py")) || !Files.isRegularFile(configured.resolve("lib/gdb-adapter.jar"))) {
            throw new IllegalStateException("no jompd distribution in " + configured.toAbsolutePath()
                    + ": run `mvn package` in gdb-adapter first");
        }
        return configured.toAbsolutePath();
    }

    public static Path bridgeScript() {
        return distribution().resolve("gdb/jompd.py");
    }

    /** LLVM's reference plugin's loader (its __init__.py runs `ompd.main()` when sourced). */
    public static Path referencePlugin() {
        return referencePlugin(Runtimes.DEFAULT_VERSION);
    }

    /** The reference plugin's loader of LLVM {@code version}. */
    public static Path referencePlugin(int version) {
        return Runtimes.referenceGdbPluginDirectory(version).resolve("ompd/__init__.py");
    }

    /** What one gdb run printed: everything, each command's section, its exit code. */
    public record Output(int exitCode, String text, Map<String, String> sections) {
        public String section(String command) {
            String value = sections.get(command);
            if (value == null) {
                throw new AssertionError("gdb printed no section for `" + command + "`:\n" + text);
            }
            return value;
        }

        /** gdb died of a signal (the reference's segmentation faults), as far as its output and status tell. */
        public boolean crashed() {
            return exitCode >= 128 || text.contains("Fatal signal") || text.contains("Segmentation fault");
        }
    }

    /**
     * Runs {@code gdb -batch -nx [setup...] -ex cmd...} with {@code arguments} at the end.
     *
     * @param setup     gdb options and -ex commands that reach the stop (before the commands)
     * @param commands  commands whose output is wanted, one section each
     * @param arguments what follows the options (program, core, --args ...)
     */
    public static Output run(List<String> setup, List<String> commands, List<String> arguments, Map<String, String> environment,
                      Path directory, Duration timeout) {
        List<String> command = new ArrayList<>(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off",
                "-ex", "set confirm off", "-ex", "set width 0"));
        command.addAll(setup);
        for (String each : commands) {
            command.addAll(List.of("-ex", "echo \\n" + MARK + each + "\\n", "-ex", each));
        }
        command.addAll(List.of("-ex", "echo \\n" + MARK + "end\\n"));
        command.addAll(arguments);
        try {
            Files.createDirectories(directory);
            // Output to a file, not a reader thread: LiveFixture keeps a common-pool thread busy draining
            // its program, and on a two-core machine the common pool has only that one thread.
            Path log = Files.createTempFile(directory, "gdb-", ".log");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .directory(directory.toFile());
            builder.environment().putAll(environment);
            Process gdb = builder.start();
            if (!gdb.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                gdb.descendants().forEach(ProcessHandle::destroyForcibly);
                gdb.destroyForcibly();
                gdb.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
                throw new IllegalStateException("gdb timed out after " + timeout + ":\n" + Files.readString(log));
            }
            String text = Files.readString(log);
            return new Output(gdb.exitValue(), text, sections(text));
        } catch (IOException e) {
            throw new UncheckedIOException("running gdb " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static Map<String, String> sections(String text) {
        Map<String, String> sections = new LinkedHashMap<>();
        String current = null;
        StringBuilder body = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.startsWith(MARK)) {
                if (current != null) {
                    sections.put(current, body.toString());
                }
                // A command given again gets "#2", "#3", ... after its name.
                String command = line.substring(MARK.length());
                current = command;
                for (int n = 2; sections.containsKey(current); n++) {
                    current = command + "#" + n;
                }
                body.setLength(0);
            } else if (current != null) {
                body.append(line).append('\n');
            }
        }
        if (current != null && !current.equals("end")) {
            sections.put(current, body.toString()); // gdb died inside this command
        }
        return sections;
    }

    /** The bridge's set-up: source jompd.py first. */
    public static List<String> withBridge(List<String> setup) {
        List<String> all = new ArrayList<>(List.of("-x", bridgeScript().toString()));
        all.addAll(setup);
        return all;
    }

    /** The reference plugin's set-up: source its loader, then `ompd init` comes as a command. */
    public static List<String> withReference(List<String> setup) {
        List<String> all = new ArrayList<>(setup);
        all.addAll(0, List.of("-ex", "source " + referencePlugin()));
        return all;
    }
}
