package dev.jompd.cli;

import java.io.BufferedWriter;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.IntSupplier;

/**
 * The plain {@code inspect} and {@code diagnose} command lines, the {@code job-agent} line {@code jompd job}
 * starts on every node and the usual {@code job} lines, read without picocli: building picocli's model
 * of jompd's commands (reflection over their annotations, proxies, some 180 classes that the ahead-of-time
 * cache cannot hold because picocli is Java 5 bytecode) costs a cold {@code jompd inspect} about 200 ms of
 * its ~450, and each node agent ~0.25 CPU-s (measured: an agent that fails at once, 0.70 against 0.44 CPU-s),
 * which a job pays once per node — on emulated nodes sharing a host, sixteen times over. Only what this class fully understands is taken — {@code --core FILE} or {@code --pid PID}, {@code
 * --exe}, {@code --solib-search-path}, {@code --json}, {@code --all}, {@code --stacks}, {@code --color},
 * {@code --history}, each
 * at most once, as {@code --name value} or {@code --name=value} — with the values picocli would give the
 * fields; anything else (help, version, a usage error, an argument file, a value that looks like an option,
 * any {@code picocli.*} system property) goes to picocli, so what a command line does does not depend on which
 * of the two read it.
 */
final class DirectCommandLine {
    private static final Set<String> INSPECT_FLAGS = Set.of("--json", "--all", "--stacks", "--aot-training");
    private static final Set<String> INSPECT_VALUED = Set.of("--core", "--pid", "--exe", "--solib-search-path", "--color",
            "--history");
    /** diagnose offers only the options it honours (DiagnoseCommand): the rest are picocli's usage errors */
    private static final Set<String> DIAGNOSE_FLAGS = Set.of("--json", "--aot-training");
    private static final Set<String> DIAGNOSE_VALUED = Set.of("--core", "--pid", "--exe", "--solib-search-path");

    private DirectCommandLine() {}

    /** What the command line asks for when this class fully understands it; empty: ask picocli. */
    static Optional<IntSupplier> command(String... args) {
        if (args.length > 0 && args[0].equals("job-agent")) {
            return parseJobAgent(args).map(agent -> () -> execute(agent));
        }
        if (args.length > 0 && args[0].equals("job")) {
            return parseJob(args).map(job -> () -> execute(job));
        }
        return parse(args).map(inspect -> () -> execute(inspect));
    }

    /**
     * {@code job-agent --step JOBID.STEP}, optionally with {@code --node NODE} (each at most once, as {@code --name
     * value} or {@code --name=value}): the line {@code jompd job} starts on every node; anything else to picocli.
     */
    static Optional<JobAgentCommand> parseJobAgent(String... args) {
        if (args.length < 2 || !args[0].equals("job-agent") || picocliIsConfigured()) {
            return Optional.empty();
        }
        Optional<Map<String, String>> options = options(args, Set.of(), Set.of("--step", "--node"));
        if (options.isEmpty() || !options.get().containsKey("--step")) {
            return Optional.empty();
        }
        JobAgentCommand agent = new JobAgentCommand();
        agent.stopTimeout = dev.jompd.job.sources.JobOptions.DEFAULT_STOP_TIMEOUT_SECONDS;
        agent.step = options.get().get("--step");
        agent.node = options.get().get("--node");
        return Optional.of(agent);
    }

    /**
     * {@code job --slurm JOBID[.STEP]} or {@code job --mpirun PID}, optionally with {@code --json} and {@code --timeout
     * SECONDS} (a plain decimal number): the front end's usual lines, whose picocli model cost ~0.3 s before the
     * first agent could start (the agents of every node wait for it); anything else to picocli.
     */
    static Optional<JobCommand> parseJob(String... args) {
        if (args.length < 2 || !args[0].equals("job") || picocliIsConfigured()) {
            return Optional.empty();
        }
        Optional<Map<String, String>> options = options(args, Set.of("--json"), Set.of("--slurm", "--mpirun", "--timeout"));
        if (options.isEmpty()) {
            return Optional.empty();
        }
        JobCommand job = new JobCommand();
        job.source = new JobCommand.Source();
        job.timeoutSeconds = dev.jompd.job.sources.JobOptions.DEFAULT_AGENT_TIMEOUT_SECONDS;
        for (Map.Entry<String, String> option : options.get().entrySet()) {
            String value = option.getValue();
            switch (option.getKey()) {
                case "--json" -> job.json = true;
                case "--slurm" -> job.source.slurm = value;
                case "--mpirun" -> {
                    if (!isPlainNumber(value)) {
                        return Optional.empty();
                    }
                    job.source.mpirun = Long.valueOf(value);
                }
                default -> {
                    if (!isPlainDecimal(value) || Double.parseDouble(value) <= 0) {
                        return Optional.empty(); // picocli refuses it, naming the option (Values.Seconds)
                    }
                    job.timeoutSeconds = Double.parseDouble(value);
                }
            }
        }
        if ((job.source.slurm == null) == (job.source.mpirun == null)) {
            return Optional.empty(); // exactly one source: picocli says which is missing or extra
        }
        return Optional.of(job);
    }

    private static boolean picocliIsConfigured() {
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("picocli.")) {
                return true; // picocli's own settings (tracing, quotes, end of options...)
            }
        }
        return false;
    }

    /** The command {@code args} asks for, with its fields set as picocli would set them; empty: ask picocli. */
    static Optional<TargetCommand> parse(String... args) {
        if (args.length < 2 || !(args[0].equals("inspect") || args[0].equals("diagnose")) || picocliIsConfigured()) {
            return Optional.empty();
        }
        boolean diagnose = args[0].equals("diagnose");
        Optional<Map<String, String>> options = diagnose ? options(args, DIAGNOSE_FLAGS, DIAGNOSE_VALUED)
                : options(args, INSPECT_FLAGS, INSPECT_VALUED);
        if (options.isEmpty()) {
            return Optional.empty();
        }
        TargetCommand command = diagnose ? new DiagnoseCommand() : new InspectCommand();
        TargetCommand.Target target = new TargetCommand.Target();
        for (Map.Entry<String, String> option : options.get().entrySet()) {
            String value = option.getValue();
            try {
                switch (option.getKey()) {
                    case "--json" -> command.json = true;
                    case "--all" -> command.all = true;
                    case "--stacks" -> command.stacks = true;
                    case "--aot-training" -> command.aotTraining = true;
                    case "--core" -> target.core = Path.of(value);
                    case "--pid" -> {
                        if (!isPlainNumber(value)) {
                            return Optional.empty();
                        }
                        target.pid = Long.valueOf(value);
                    }
                    case "--exe" -> command.executable = Path.of(value);
                    case "--solib-search-path" -> {
                        List<Path> directories = new ArrayList<>();
                        for (String directory : value.split(":", -1)) {
                            if (directory.isEmpty()) {
                                return Optional.empty();
                            }
                            directories.add(Path.of(directory));
                        }
                        command.solibSearchPath = directories;
                    }
                    case "--history" -> {
                        if (!Values.isHistory(value)) {
                            return Optional.empty(); // picocli names the option and what it expects
                        }
                        command.history = value;
                    }
                    default -> {
                        if (!Values.COLOURS.contains(value)) {
                            return Optional.empty();
                        }
                        command.color = value;
                    }
                }
            } catch (InvalidPathException e) {
                return Optional.empty();
            }
        }
        if ((target.core == null) == (target.pid == null)) {
            return Optional.empty(); // exactly one of --core and --pid: picocli says which is missing or extra
        }
        command.target = target;
        return Optional.of(command);
    }

    /**
     * The options after the command's name, each at most once: a flag of {@code flags} without a value (mapped to
     * ""), an option of {@code valued} with a plain value as {@code --name value} or {@code --name=value}; empty
     * for anything else (an unknown or repeated name, {@code --stacks=true}, a missing or option-like value).
     */
    private static Optional<Map<String, String>> options(String[] args, Set<String> flags, Set<String> valued) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            String name = nameOf(args[i]);
            String value = inlineValueOf(args[i]);
            if (options.containsKey(name)) {
                return Optional.empty();
            }
            if (flags.contains(name)) {
                if (value != null) {
                    return Optional.empty(); // --stacks=true and the like: picocli's rules
                }
                options.put(name, "");
                continue;
            }
            if (!valued.contains(name)) {
                return Optional.empty();
            }
            if (value == null) {
                if (i + 1 == args.length) {
                    return Optional.empty();
                }
                value = args[++i];
            }
            if (!isPlainValue(value)) {
                return Optional.empty();
            }
            options.put(name, value);
        }
        return Optional.of(options);
    }

    /** An option's name: {@code --name} of {@code --name=value}, else the argument itself. */
    private static String nameOf(String arg) {
        int equals = arg.indexOf('=');
        return arg.startsWith("--") && equals > 0 ? arg.substring(0, equals) : arg;
    }

    /** The value of {@code --name=value}; null when the argument has none (the value is the next argument). */
    private static String inlineValueOf(String arg) {
        int equals = arg.indexOf('=');
        return arg.startsWith("--") && equals > 0 ? arg.substring(equals + 1) : null;
    }

    /** A value picocli would take as it is: not empty, no option, no argument file, no NUL. */
    private static boolean isPlainValue(String value) {
        return !value.isEmpty() && !value.startsWith("-") && !value.startsWith("@") && !value.contains("\0");
    }

    /** Decimal digits without a leading zero, at most 18: the same number to Long.valueOf and Long.decode. */
    private static boolean isPlainNumber(String value) {
        if (value.length() > 18 || value.charAt(0) == '0') {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Digits, or digits, a point and digits ({@code 900}, {@code 2.5}; at most 9 each): one number to every reader. */
    private static boolean isPlainDecimal(String value) {
        int point = value.indexOf('.');
        return point < 0 ? isDigits(value) : isDigits(value.substring(0, point)) && isDigits(value.substring(point + 1));
    }

    private static boolean isDigits(String value) {
        return !value.isEmpty() && value.length() <= 9 && value.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /**
     * Runs a command this class parsed as picocli would run it: its output and error streams made as picocli
     * makes them, its exit code returned, an exception it throws reported as Jompd's handler reports it.
     */
    static int execute(StreamedCommand command) {
        PrintWriter err = standardError();
        command.directOut = standardOutput();
        command.directErr = err;
        return execute(command, err);
    }

    private static int execute(Callable<Integer> command, PrintWriter err) {
        try {
            Integer code = command.call();
            return code == null ? 0 : code;
        } catch (Exception exception) {
            return Jompd.internalError(exception, err);
        }
    }

    private static PrintWriter standardOutput() {
        return printWriter(System.out, charset(System.getProperty("sun.stdout.encoding")));
    }

    private static PrintWriter standardError() {
        return printWriter(System.err, charset(System.getProperty("sun.stderr.encoding")));
    }

    /** picocli's CommandLine.newPrintWriter: buffered, flushed at each println. */
    private static PrintWriter printWriter(OutputStream stream, Charset charset) {
        return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset)), true);
    }

    /** picocli's CommandLine.charsetForName: the stream's console encoding, else the default charset. */
    private static Charset charset(String name) {
        if (name == null) {
            return Charset.defaultCharset();
        }
        try {
            return Charset.forName("cp65001".equalsIgnoreCase(name) ? "UTF-8" : name);
        } catch (Exception e) {
            return Charset.defaultCharset();
        }
    }
}
