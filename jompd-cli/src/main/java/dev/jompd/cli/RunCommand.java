package dev.jompd.cli;

import dev.jompd.core.launch.OpenMpLaunch;
import dev.jompd.core.launch.RecorderTool;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code jompd run [--] PROGRAM ARGS…}: runs a program on jompd's OMPD-enabled libomp, which it finds
 * under the names {@code libomp.so.5} and {@code libgomp.so.1}, with {@code OMP_DEBUG=enabled}: so a
 * gcc/gfortran-built program (GCC's libgomp has no debugging interface) and a clang-built one on a
 * stripped libomp can both be read by jompd, gdb's {@code ompd} commands and the DAP server.
 *
 * <p>The launcher execs the program itself (same pid, signals, stdio and exit status): this command only
 * prepares, and writes the environment and command line to the launcher's plan file
 * ({@code --exec-plan}). Run without the launcher it starts the program as a child and waits for it.
 */
@Command(name = "run", sortOptions = false, mixinStandardHelpOptions = true,
        description = {"Runs PROGRAM on jompd's OMPD-enabled libomp (as libomp.so.5 and libgomp.so.1, with "
                + "OMP_DEBUG=enabled), so that jompd can read it: needed for programs built with gcc or gfortran "
                + "-fopenmp, whose runtime (GCC's libgomp) has no debugging interface.",
                "The runtime is $JOMPD_RUNTIME, else the one scripts/build-runtime.sh installed in "
                        + "~/.cache/jompd/llvm-19; it is built on first use.",
                "With --recorder the jompd-recorder (an OMPT tool) records what OpenMP does, for jompd to show: "
                        + "each thread's recent events, lock holders, why a thread is where it is, devices.",
                "The program's exit status is jompd's."})
public final class RunCommand implements Callable<Integer> {
    /** What GCC's entry points that LLVM 19's libomp lacks are for, to say which construct to avoid. */
    private static final Map<String, String> CONSTRUCTS = Map.of(
            "GOMP_warning", "#pragma omp error (severity(warning))",
            "GOMP_error", "#pragma omp error",
            "GOMP_scope_start", "#pragma omp scope",
            "GOMP_teams4", "#pragma omp teams (GCC 12's host teams)",
            "GOMP_target_ext", "#pragma omp target (offloading)");

    @Option(names = "--exec-plan", hidden = true, description = "for the launcher: write the plan here, don't run")
    Path execPlan;

    @Option(names = "--print-environment", description = "print what the program's environment gets (NAME=VALUE "
            + "lines, for gdb's `set environment`) instead of running it")
    boolean printEnvironment;

    @Option(names = "--recorder", description = "load the jompd-recorder (OMP_TOOL_LIBRARIES; built on first use; "
            + "JOMPD_RECORDER_EVENTS sets the events kept per thread, JOMPD_RECORDER a library of your own)")
    boolean recorder;

    @Parameters(arity = "1..*", paramLabel = "PROGRAM", description = "the program and its arguments")
    List<String> command;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Map<String, String> environment = System.getenv();
        Optional<Path> program = OpenMpLaunch.resolveProgram(command.getFirst(), environment);
        if (program.isEmpty()) {
            err.println("jompd: no such program: " + command.getFirst());
            return ExitCode.BAD_INPUT;
        }
        Path libomp;
        try {
            libomp = OpenMpLaunch.findRuntime(environment).orElseGet(() -> build(environment, err));
        } catch (IllegalArgumentException | IllegalStateException e) {
            err.println("jompd: " + e.getMessage());
            return ExitCode.UNSUPPORTED_RUNTIME;
        }
        Set<String> missing = OpenMpLaunch.missingGompEntryPoints(program.get(), libomp);
        if (!missing.isEmpty()) {
            err.println("jompd: " + command.getFirst() + " needs " + String.join(", ", missing) + describe(missing)
                    + " from GCC's libgomp, which LLVM " + OpenMpLaunch.RUNTIME_VERSION + "'s libomp does not "
                    + "implement: it cannot run on jompd's libomp (" + libomp + "), and GCC's libgomp has no OpenMP "
                    + "debugging interface. Build it with clang -fopenmp, or without what needs those, to debug it "
                    + "with jompd.");
            err.flush();
            return ExitCode.UNSUPPORTED_RUNTIME;
        }
        Path aliases;
        try {
            aliases = OpenMpLaunch.aliasDirectory(libomp, environment);
        } catch (IllegalArgumentException e) {
            err.println("jompd: " + e.getMessage());
            return ExitCode.UNSUPPORTED_RUNTIME;
        }
        Map<String, String> changes = new java.util.LinkedHashMap<>(OpenMpLaunch.environmentChanges(environment, aliases));
        if (recorder) {
            Path library;
            try {
                library = RecorderTool.library(RecorderTool.script(distributionHome()), environment,
                        line -> {
                            err.println("jompd: jompd-recorder: " + line);
                            err.flush();
                        });
            } catch (IllegalStateException e) {
                err.println("jompd: " + e.getMessage());
                return ExitCode.UNSUPPORTED_RUNTIME;
            }
            RecorderTool.environment(environment, library).forEach((name, value) -> {
                if (!value.equals(environment.get(name))) {
                    changes.put(name, value);
                }
            });
            if (!printEnvironment) {
                err.println("jompd: " + RecorderTool.notice(environment, library));
                err.flush();
            }
        }
        if (printEnvironment) {
            PrintWriter out = spec.commandLine().getOut();
            changes.forEach((name, value) -> out.println(name + "=" + value));
            out.flush();
            return ExitCode.OK;
        }
        if (execPlan != null) {
            return writePlan(changes, err);
        }
        Map<String, String> childEnvironment = new java.util.LinkedHashMap<>(environment);
        childEnvironment.putAll(changes);
        return runChild(childEnvironment, err);
    }

    private Path build(Map<String, String> environment, PrintWriter err) {
        OpenMpLaunch.privateCache(environment); // built only into a cache of this user's alone
        Path script = distributionHome().resolve("scripts/build-runtime.sh");
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("jompd's libomp is not built and " + script + " is missing: run "
                    + "scripts/build-runtime.sh " + OpenMpLaunch.RUNTIME_VERSION + " from jompd's sources, or set "
                    + "JOMPD_RUNTIME to an OMPD-enabled libomp");
        }
        err.println("jompd: jompd's OMPD-enabled libomp " + OpenMpLaunch.RUNTIME_VERSION + " is not built yet: "
                + "building it now with " + script + " (once; about a minute)");
        err.flush();
        Path built = OpenMpLaunch.buildRuntime(script, environment, line -> {
            err.println("jompd: build: " + line.replaceAll("\u001B\\[[0-9;]*m", "")); // the script's bold
            err.flush();
        });
        err.println("jompd: libomp built: " + built);
        return built;
    }

    /** The distribution's directory: {@code -Djompd.home} from the launcher, else the jar's {@code ../}. */
    static Path distributionHome() {
        String home = System.getProperty("jompd.home");
        if (home != null) {
            return Path.of(home);
        }
        try {
            Path jar = Path.of(RunCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().getParent();
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return Path.of(".");
        }
    }

    private static String describe(Set<String> missing) {
        List<String> constructs = missing.stream().map(symbol -> CONSTRUCTS.get(symbol.replaceFirst("@.*", ""))).filter(c -> c != null).distinct().toList();
        return constructs.isEmpty() ? "" : " (" + String.join(", ", constructs) + ")";
    }

    /** NUL-separated: the changed variables as NAME=VALUE, an empty entry, then the command line. */
    private int writePlan(Map<String, String> changes, PrintWriter err) {
        StringBuilder plan = new StringBuilder();
        changes.forEach((name, value) -> plan.append(name).append('=').append(value).append('\0'));
        plan.append('\0');
        command.forEach(argument -> plan.append(argument).append('\0'));
        try {
            Files.writeString(execPlan, plan, StandardCharsets.UTF_8);
            return ExitCode.OK;
        } catch (IOException e) {
            err.println("jompd: cannot write " + execPlan + ": " + e.getMessage());
            return ExitCode.INTERNAL_ERROR;
        }
    }

    private int runChild(Map<String, String> environment, PrintWriter err) {
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().clear();
        builder.environment().putAll(environment);
        try {
            Process process = builder.start();
            Thread forward = new Thread(process::destroy); // our SIGTERM/SIGINT ends the program too
            Runtime.getRuntime().addShutdownHook(forward);
            int exit = process.waitFor();
            Runtime.getRuntime().removeShutdownHook(forward);
            return exit;
        } catch (IOException e) {
            err.println("jompd: cannot start " + command.getFirst() + ": " + e.getMessage());
            return ExitCode.BAD_INPUT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.INTERNAL_ERROR;
        }
    }
}
