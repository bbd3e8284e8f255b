package dev.jompd.cli;

import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.OmpdRc;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.JsonReport;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.RecordedHistory;
import dev.jompd.report.TargetSession;
import dev.jompd.report.TextReport;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What {@code jompd inspect} and {@code jompd diagnose} share: the target (a core or a process), how to find its
 * modules, and the reading. Each command declares the options it honours ({@link InspectCommand},
 * {@link DiagnoseCommand}): an option a command would ignore is not offered.
 */
abstract class TargetCommand extends StreamedCommand {

    static final class Target {
        @Option(names = "--core", paramLabel = "FILE", description = "an ELF core file (kernel or gdb gcore)")
        Path core;

        @Option(names = "--pid", paramLabel = "PID", converter = Values.ProcessId.class,
                description = "a running process (attached with ptrace, then left running)")
        Long pid;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @Option(names = "--exe", paramLabel = "PROGRAM", description = "the program the core came from (default: as the core records it)")
    Path executable;

    @Option(names = "--solib-search-path", paramLabel = "DIRS", split = ":",
            description = "directories to find the core's shared libraries in (colon-separated)")
    List<Path> solibSearchPath = List.of();

    // Set by the options of the command that offers them (InspectCommand, DiagnoseCommand), else these defaults.
    boolean json;
    boolean all;
    boolean stacks;
    /** {@code --history}, already checked ({@link Values.History}); null: the default. */
    String history;
    /** {@code --color}: auto, always or never ({@link Values.Colour}). */
    String color = "auto";

    /**
     * The launcher's ahead-of-time cache training run (its output discarded): every rendering of this
     * command and of {@code jompd diagnose} with stacks, so that the cache holds the classes and profiles of
     * each, whichever the user asks for later.
     */
    @Option(names = "--aot-training", hidden = true)
    boolean aotTraining;


    @Override
    public Integer call() {
        PrintWriter out = out();
        PrintWriter err = err();
        Timing timing = new Timing();
        // checked when the command line was read (a bad value is a usage error, exit 2)
        int historyEvents = history == null ? RecordedHistory.RECENT_EVENTS : TextReport.Options.parseHistory(history);
        AddressSpace space;
        try {
            space = open(err);
        } catch (TargetException | IllegalArgumentException e) {
            err.println("jompd: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
        try (TargetSession session = new TargetSession(space, target.core != null ? "core" : "pid",
                target.core != null ? target.core.toString() : Long.toString(target.pid))) {
            timing.mark("open");
            boolean withStacks = stacks || diagnose() || aotTraining;
            if (withStacks && target.core != null) {
                session.unwindAside(); // a live process is read on one thread
            }
            return report(session, withStacks, historyEvents, timing, out, err);
        } catch (OmpdException e) {
            err.println("jompd: " + e.reason());
            if (e.rc() == OmpdRc.INCOMPATIBLE) {
                return ExitCode.UNSUPPORTED_RUNTIME;
            }
            return e.rc() == OmpdRc.UNAVAILABLE ? ExitCode.NOT_OPENMP : ExitCode.BAD_INPUT;
        } catch (TargetException e) {
            err.println("jompd: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        }
    }

    private int report(TargetSession session, boolean withStacks, int historyEvents, Timing timing, PrintWriter out,
                       PrintWriter err) {
        OpenMpPicture picture = session.picture();
        timing.mark("picture");
        Optional<ParallelStacks> parallelStacks = Optional.empty();
        if (withStacks) {
            parallelStacks = Optional.of(session.stacks());
            timing.mark("stacks");
        }
        if (aotTraining) {
            AotTraining.inspect(picture, parallelStacks, out);
        } else if (diagnose()) {
            List<Diagnosis.Finding> findings = Diagnosis.of(picture, parallelStacks);
            if (json) {
                out.println(JsonReport.diagnosis(findings));
            } else {
                for (String notice : picture.notices()) {
                    out.println("note: " + notice);
                }
                out.print(TextReport.diagnosis(findings));
            }
        } else if (json) {
            // the text report shows the notices itself
            for (String notice : picture.notices()) {
                err.println("jompd: note: " + notice);
            }
            out.println(JsonReport.render(picture, parallelStacks));
        } else {
            boolean colour = switch (color) {
                case "always" -> true;
                case "never" -> false;
                default -> System.console() != null && System.console().isTerminal()
                        && !"dumb".equals(System.getenv("TERM")) && System.getenv("NO_COLOR") == null;
            };
            out.print(TextReport.render(picture, TextReport.Options.commandLine(all, colour).withHistory(historyEvents)));
            printStacks(parallelStacks, out);
        }
        out.flush();
        timing.mark("render");
        timing.report(err);
        return ExitCode.OK;
    }

    // Loops and methods rather than lambdas on the paths that the training run does not take: the
    // ahead-of-time cache holds only the lambdas that run made.
    private static void printStacks(Optional<ParallelStacks> stacks, PrintWriter out) {
        if (stacks.isPresent()) {
            out.print("\n" + TextReport.stacks(stacks.get()));
        }
    }

    /**
     * With {@code -Djompd.timing=true} (through {@code JOMPD_JAVA_OPTIONS}), how long each part of the command
     * took, from the JVM's start, on stderr: where a cold run's time goes.
     */
    private static final class Timing {
        private final boolean on = Boolean.getBoolean("jompd.timing");
        private final StringBuilder parts = new StringBuilder();
        private long last;

        Timing() {
            if (on) {
                last = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
                mark("jvm start");
            }
        }

        void mark(String part) {
            if (on) {
                long now = System.currentTimeMillis();
                parts.append(", ").append(part).append(' ').append(now - last).append(" ms");
                last = now;
            }
        }

        void report(PrintWriter err) {
            if (on) {
                err.println("jompd: timing" + parts);
                err.flush();
            }
        }
    }

    /** Whether this command prints the diagnosis instead of the report ({@code jompd diagnose}). */
    abstract boolean diagnose();

    private AddressSpace open(PrintWriter err) {
        if (target.core != null) {
            if (Files.isDirectory(target.core)) {
                throw new IllegalArgumentException(target.core + " is a directory, not a core file (the cores of a "
                        + "job's ranks: jompd job --cores " + target.core + ")");
            }
            if (!Files.exists(target.core)) {
                throw new IllegalArgumentException("no such core file: " + target.core);
            }
            if (!Files.isRegularFile(target.core)) {
                throw new IllegalArgumentException(target.core + " is not a regular file, so no core file");
            }
            CoreFileAddressSpace.Builder builder = CoreFileAddressSpace.builder(target.core);
            if (executable != null) {
                builder.withExecutable(executable);
            }
            if (!solibSearchPath.isEmpty()) {
                builder.withSolibSearchPath(solibSearchPath);
            }
            return builder.open();
        }
        LiveTargets.Opened opened = LiveTargets.open(target.pid);
        opened.notice().ifPresent(notice -> err.println("jompd: note: " + notice));
        return opened.space();
    }
}
