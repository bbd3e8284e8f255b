package dev.jompd.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.Optional;
import java.util.function.IntSupplier;

/** The {@code jompd} command: OpenMP debugging from the command line. */
@Command(name = "jompd", mixinStandardHelpOptions = true, versionProvider = Jompd.Version.class,
        description = "Shows what an OpenMP program (LLVM libomp) is doing: teams, threads, tasks, ICVs.",
        subcommands = {InspectCommand.class, DiagnoseCommand.class, RunCommand.class, JobCommand.class, JobAgentCommand.class,
                LibompdCommand.class,
                CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
                "0:the report was produced",
                "1:internal error (a bug in jompd: please report it)",
                "2:invalid command line",
                "3:bad input: no such file or process, unreadable or corrupt core, permission denied",
                "4:not an OpenMP process (no OpenMP runtime, or not initialised yet)",
                "5:unsupported runtime: libomp without OMPD breadcrumbs (built without OMPD, or stripped with no debug "
                        + "file and no runtime profile that validates), GCC's libgomp (use jompd run), or a GOMP "
                        + "entry point jompd's libomp lacks"})
public final class Jompd {
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and answers its exit code (for tests and embedding). */
    public static int run(String... args) {
        return guarded(() -> runCommandLine(args), new PrintWriter(System.err, true));
    }

    /**
     * Runs {@code command}; a fault reading a mapped file (a core or library cut short while we read it, see
     * {@link dev.jompd.core.elf.MappedFile#isFault}) is bad input, said so, not an internal error.
     */
    static int guarded(IntSupplier command, PrintWriter err) {
        try {
            return command.getAsInt();
        } catch (InternalError e) {
            if (!dev.jompd.core.elf.MappedFile.isFault(e)) {
                throw e;
            }
            err.println("jompd: a file jompd was reading (the core or a module) changed while being read: it is shorter"
                    + " than when it was opened (truncated?)");
            err.flush();
            return ExitCode.BAD_INPUT;
        }
    }

    private static int runCommandLine(String... args) {
        // inspect, diagnose and the node agent as they are usually written, without picocli's start-up cost
        // (DirectCommandLine)
        Optional<IntSupplier> direct = DirectCommandLine.command(args);
        if (direct.isPresent()) {
            return direct.get().getAsInt();
        }
        CommandLine commandLine = new CommandLine(new Jompd());
        // jompd run PROGRAM --its-options: everything from PROGRAM on belongs to the program.
        commandLine.getSubcommands().get("run").setStopAtPositional(true);
        commandLine.setExecutionExceptionHandler((exception, cmd, parseResult) -> internalError(exception, cmd.getErr()));
        return commandLine.execute(args);
    }

    /** What a command threw: a bug in jompd, said so with the stack trace. */
    static int internalError(Exception exception, PrintWriter err) {
        err.println("jompd: internal error: " + exception);
        exception.printStackTrace(err);
        return ExitCode.INTERNAL_ERROR;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Jompd.class.getPackage().getImplementationVersion();
            return new String[] {"jompd " + (version == null ? "dev" : version) + " (OMPD 5.1 for LLVM libomp)"};
        }
    }
}
