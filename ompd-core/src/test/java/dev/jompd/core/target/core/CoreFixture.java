package dev.jompd.core.target.core;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Builds threads_fixture.c with gcc and makes real cores of it: one written by the kernel (the program
 * aborts in its marker) and one written by gdb's gcore (stopped at a breakpoint on the marker). Records
 * what the program printed about its threads, and asks gdb for independent answers.
 *
 * <p>Missing tools or a core_pattern that sends cores elsewhere skip the tests that need them, with
 * the reason printed.
 */
final class CoreFixture {
    static final int WORKER_THREADS = 3;

    enum Kind { KERNEL, GDB }

    /** A line "fixture thread LWP SELF VALUE" or "fixture main LWP SELF" the program printed. */
    record PrintedThread(long lwp, long pthreadSelf, long value) {}

    /** What one run printed: the main thread first, then the workers. */
    record Printed(PrintedThread main, List<PrintedThread> workers) {
        List<PrintedThread> all() {
            List<PrintedThread> all = new ArrayList<>();
            all.add(main);
            all.addAll(workers);
            return all;
        }
    }

    final Path directory;
    final Path program;
    /** The same source built with -DFIXTURE_VARIANT=1: another build-id. */
    final Path variantProgram;
    private final Map<Kind, Path> cores = new EnumMap<>(Kind.class);
    private final Map<Kind, Printed> printed = new EnumMap<>(Kind.class);
    private final Map<Kind, String> unavailable = new EnumMap<>(Kind.class);

    private CoreFixture(Path directory) throws IOException, InterruptedException {
        this.directory = directory;
        requireTool("gcc");
        Path source = directory.resolve("threads_fixture.c");
        try (InputStream in = CoreFixture.class.getResourceAsStream("threads_fixture.c")) {
            Files.copy(in, source);
        }
        program = directory.resolve("threads_fixture");
        variantProgram = directory.resolve("threads_fixture_variant");
        compile(source, program);
        compile(source, variantProgram, "-DFIXTURE_VARIANT=1");
        makeKernelCore();
        makeGdbCore();
    }

    /** Builds the fixture and its cores in {@code directory}; skips the caller when gcc is missing. */
    static CoreFixture build(Path directory) {
        try {
            return new CoreFixture(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The core of this kind; skips the calling test (printing why) when it could not be made. */
    Path core(Kind kind) {
        String reason = unavailable.get(kind);
        if (reason != null) {
            System.out.println("SKIPPED (" + kind + " core): " + reason);
        }
        Assumptions.assumeTrue(reason == null, reason);
        return cores.get(kind);
    }

    /** Any core that could be made, the kernel's preferred. */
    Path anyCore() {
        return cores.containsKey(Kind.KERNEL) ? cores.get(Kind.KERNEL) : core(Kind.GDB);
    }

    Printed printed(Kind kind) {
        core(kind);
        return printed.get(kind);
    }

    /**
     * gdb's value of a pointer-sized expression in the core of {@code kind}, such as {@code &thread_values}:
     * an answer independent of our ELF reader. Empty when gdb cannot evaluate it.
     */
    Optional<Long> gdbAddress(Kind kind, String expression) {
        try {
            String output = run(List.of("gdb", "-batch", "-nx", "-ex", "printf \"truth %lx\\n\", " + expression,
                    program.toString(), core(kind).toString()), directory).output();
            return output.lines().filter(line -> line.startsWith("truth "))
                    .map(line -> Long.parseUnsignedLong(line.substring("truth ".length()).trim(), 16))
                    .findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void requireTool(String tool) throws InterruptedException {
        boolean present;
        try {
            present = run(List.of(tool, "--version"), Path.of(".")).exitCode() == 0;
        } catch (IOException e) {
            present = false;
        }
        if (!present) {
            System.out.println("SKIPPED: " + tool + " is not installed; the core-file integration tests need it");
        }
        Assumptions.assumeTrue(present, tool + " is not installed");
    }

    private void compile(Path source, Path output, String... defines) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("gcc", "-g", "-O1", "-pthread", "-o", output.toString(), source.toString()));
        command.addAll(List.of(defines));
        Result result = run(command, directory);
        if (result.exitCode() != 0) {
            throw new IllegalStateException("gcc failed:\n" + result.output());
        }
    }

    private void makeKernelCore() throws IOException, InterruptedException {
        String pattern = Files.readString(Path.of("/proc/sys/kernel/core_pattern")).trim();
        if (pattern.startsWith("|")) {
            unavailable.put(Kind.KERNEL, "core_pattern pipes cores to a program (" + pattern + "), not to a file here");
            return;
        }
        if (pattern.contains("/")) {
            unavailable.put(Kind.KERNEL, "core_pattern writes cores to another directory (" + pattern + ")");
            return;
        }
        Path runDirectory = Files.createDirectories(directory.resolve("kernel-core"));
        // bash sets the core size limit, then becomes the program: the core is the program's. The JVM
        // sets its coredump_filter to 0x3f (dump file-backed mappings too) and children inherit it;
        // restore the kernel's default 0x33 so the core leaves read-only file mappings out, as usual.
        Result result = run(List.of("bash", "-c",
                "echo 0x33 > /proc/self/coredump_filter; ulimit -c unlimited; exec \"$0\" \"$@\"", program.toString(),
                String.valueOf(WORKER_THREADS), "abort"), runDirectory);
        Optional<Path> core;
        try (Stream<Path> files = Files.list(runDirectory)) {
            core = files.filter(file -> file.getFileName().toString().startsWith("core")).findFirst();
        }
        if (core.isEmpty()) {
            unavailable.put(Kind.KERNEL, "the program aborted (exit %d) but no core appeared in %s (core_pattern %s; is the core size limit fixed?)"
                    .formatted(result.exitCode(), runDirectory, pattern));
            return;
        }
        cores.put(Kind.KERNEL, core.get());
        printed.put(Kind.KERNEL, parsePrinted(result.output()));
    }

    private void makeGdbCore() throws IOException, InterruptedException {
        try {
            requireTool("gdb");
        } catch (org.opentest4j.TestAbortedException e) {
            unavailable.put(Kind.GDB, "gdb is not installed");
            return;
        }
        Path core = directory.resolve("gdb.core");
        Result result = run(List.of("gdb", "-batch", "-nx", "-ex", "break stop_here", "-ex", "run", "-ex", "gcore " + core,
                "-ex", "kill", "--args", program.toString(), String.valueOf(WORKER_THREADS)), directory);
        if (!Files.exists(core)) {
            unavailable.put(Kind.GDB, "gdb could not write a core (no ptrace permission?):\n" + result.output());
            return;
        }
        cores.put(Kind.GDB, core);
        printed.put(Kind.GDB, parsePrinted(result.output()));
    }

    private static Printed parsePrinted(String output) {
        PrintedThread main = null;
        List<PrintedThread> workers = new ArrayList<>();
        for (String line : output.lines().toList()) {
            String[] words = line.trim().split(" ");
            if (words.length == 4 && words[0].equals("fixture") && words[1].equals("main")) {
                main = new PrintedThread(Long.parseLong(words[2]), Long.parseUnsignedLong(words[3], 16), 0);
            } else if (words.length == 5 && words[0].equals("fixture") && words[1].equals("thread")) {
                workers.add(new PrintedThread(Long.parseLong(words[2]), Long.parseUnsignedLong(words[3], 16), Long.parseLong(words[4])));
            }
        }
        if (main == null || workers.size() != WORKER_THREADS) {
            throw new IllegalStateException("the fixture did not print its threads:\n" + output);
        }
        return new Printed(main, List.copyOf(workers));
    }

    record Result(int exitCode, String output) {}

    /** Runs {@code command} in {@code directory}, output (with stderr) to a file so a hang times out. */
    static Result run(List<String> command, Path directory) throws IOException, InterruptedException {
        Path output = Files.createTempFile("jompd-fixture", ".out");
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("timed out after 120 s: " + command);
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.ISO_8859_1));
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
