package dev.jompd.cli;

import com.google.gson.JsonParser;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.jompd.cli.InspectCommandIT.jompd;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line as a user meets it, on a real core: every bad value is refused with exit 2 (the README's code
 * for an invalid command line) and the option named, whichever reader took the line (DirectCommandLine for the
 * usual inspect, diagnose and job lines, picocli for the rest); an option a command would ignore is not offered;
 * the help texts are whole and name the schema each command prints.
 */
class CommandLineIT {

    private static String core() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2"));
        return fixture.core().toString();
    }

    private static String firstLine(String text) {
        return text.lines().findFirst().orElse("");
    }

    /** exit 2, and the first line of stderr is exactly {@code message} (picocli's usage follows it). */
    private static void refused(String message, String... args) {
        InspectCommandIT.Result result = jompd(args);
        assertThat(result.exitCode()).as(String.join(" ", args) + "\n" + result.err()).isEqualTo(2);
        assertThat(firstLine(result.err())).as(String.join(" ", args)).isEqualTo(message);
        assertThat(result.out()).as("nothing reported").isEmpty();
    }

    @Test
    void badValuesAreRefusedWithTheOptionNamed() {
        String core = core();
        for (String form : List.of("--color=bogus", "--color bogus")) {
            List<String> args = new ArrayList<>(List.of("inspect", "--core", core));
            args.addAll(List.of(form.split(" ")));
            refused("Invalid value for option '--color': expected auto, always or never, got 'bogus'", args.toArray(String[]::new));
        }
        refused("Invalid value for option '--color': expected auto, always or never, got 'ALWAYS'",
                "inspect", "--core", core, "--color=ALWAYS");
        refused("Invalid value for option '--history': expected a number of events (0 or more) or 'all', got 'abc'",
                "inspect", "--core", core, "--history=abc");
        refused("Invalid value for option '--history': expected a number of events (0 or more) or 'all', got '-1'",
                "inspect", "--core", core, "--history=-1");
        refused("Invalid value for option '--pid': expected a process id (a positive number), got '0'",
                "inspect", "--pid", "0");
        refused("Invalid value for option '--pid': expected a process id (a positive number), got '-5'",
                "diagnose", "--pid=-5");
        refused("Invalid value for option '--pids' (PID[,PID...]): expected a process id (a positive number), got 'x'",
                "job", "--pids", "1,x");
        refused("Invalid value for option '--mpirun': expected a process id (a positive number), got '0'",
                "job", "--mpirun", "0");
        refused("Invalid value for option '--timeout': expected a number of seconds greater than 0, got '0'",
                "job", "--slurm", "12", "--timeout", "0");
        refused("Invalid value for option '--timeout': expected a number of seconds greater than 0, got '-3'",
                "job", "--slurm", "12", "--timeout=-3");
        refused("Invalid value for option '--parallel': expected a positive number, got '0'",
                "job", "--cores", core, "--parallel", "0");
        // the values that are right still read the core
        InspectCommandIT.Result good = jompd("inspect", "--core", core, "--color=never", "--history=all");
        assertThat(good.exitCode()).as(good.err()).isZero();
    }

    @Test
    void optionsACommandWouldIgnoreAreNotOffered() {
        String core = core();
        for (String option : List.of("--stacks", "--all", "--history=3", "--color=never")) {
            refused("Unknown option: '" + option + "'", "diagnose", "--core", core, option);
        }
        refused("jompd job: --exe applies to --cores only (a live rank's program is its process's own)",
                "job", "--pids", Long.toString(ProcessHandle.current().pid()), "--exe", "/bin/true");
        refused("jompd job: --timeout applies to --slurm and --mpirun only (how long to wait for a node's agent)",
                "job", "--cores", core, "--timeout", "5");
        refused("jompd job: --parallel applies to ranks read here (--mpirun, --pids, --cores), not to --slurm, whose "
                + "agents read their nodes' ranks", "job", "--slurm", "12", "--parallel", "2");
        // what diagnose offers, it honours: --json prints the schema its help names
        InspectCommandIT.Result json = jompd("diagnose", "--core", core, "--json");
        assertThat(json.exitCode()).as(json.err()).isZero();
        String schema = JsonParser.parseString(json.out()).getAsJsonObject().get("schema").getAsString();
        String help = String.join(" ", jompd("diagnose", "--help").out().lines().map(String::strip).toList());
        Matcher named = Pattern.compile("--json\\s+print one JSON document \\(schema ([^,]+),").matcher(help);
        assertThat(named.find()).as(help).isTrue();
        assertThat(named.group(1)).isEqualTo(schema);
        String inspectHelp = String.join(" ", jompd("inspect", "--help").out().lines().map(String::strip).toList());
        Matcher inspectNamed = Pattern.compile("--json\\s+print one JSON document \\(schema ([^,]+),").matcher(inspectHelp);
        assertThat(inspectNamed.find()).as(inspectHelp).isTrue();
        assertThat(inspectNamed.group(1)).isEqualTo(JsonParser.parseString(jompd("inspect", "--core", core, "--json").out())
                .getAsJsonObject().get("schema").getAsString());
    }

    /** {@code jompd --help} lists each command with a whole sentence, and each command's description is whole sentences. */
    @Test
    void helpTextsAreWholeSentences() {
        InspectCommandIT.Result help = jompd("--help");
        assertThat(help.exitCode()).isZero();
        List<String> lines = help.out().lines().toList();
        int from = lines.indexOf("Commands:") + 1;
        List<String> summaries = new ArrayList<>();
        for (int i = from; i < lines.size() && !lines.get(i).isBlank(); i++) {
            if (lines.get(i).startsWith("  ") && !lines.get(i).startsWith("    ")) {
                summaries.add(lines.get(i).strip().replaceFirst("^\\S+\\s+", ""));
            } else {
                summaries.set(summaries.size() - 1, summaries.getLast() + " " + lines.get(i).strip());
            }
        }
        assertThat(summaries).hasSize(6); // inspect diagnose run job libompd help
        for (String summary : summaries) {
            assertThat(summary).as(help.out()).endsWith(".");
        }
        for (String command : List.of("inspect", "diagnose", "job", "run", "libompd")) {
            List<String> text = jompd(command, "--help").out().lines().toList();
            // the description: from the line after the usage to the first option
            int start = 1;
            while (text.get(start).startsWith(" ")) {
                start++;
            }
            int end = start;
            while (!text.get(end).startsWith("  ")) {
                end++;
            }
            String description = String.join(" ", text.subList(start, end));
            assertThat(description).as(command).endsWith(".");
            for (String line : text.subList(start, end - 1)) {
                // a line ends within a sentence only where the terminal's width wrapped it, never short of it
                assertThat(line.length() > 60 || line.endsWith(".")).as(command + ": " + line).isTrue();
            }
        }
    }

    @Test
    void aDirectoryGivenAsACoreIsSaidToBeOne(@TempDir Path directory) {
        InspectCommandIT.Result result = jompd("inspect", "--core", directory.toString());
        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.err()).isEqualTo("jompd: " + directory + " is a directory, not a core file (the cores of a "
                + "job's ranks: jompd job --cores " + directory + ")\n");
        InspectCommandIT.Result missing = jompd("diagnose", "--core", directory.resolve("core").toString());
        assertThat(missing.exitCode()).isEqualTo(3);
        assertThat(missing.err()).isEqualTo("jompd: no such core file: " + directory.resolve("core") + "\n");
    }

    /** A program without OpenMP: exit 4, and why in words (no OMPD return code). */
    @Test
    void aProgramWithoutOpenMpIsSaidSoInWords(@TempDir Path directory) throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "120").start();
        try {
            Path core = directory.resolve("sleep.core");
            Process gcore = new ProcessBuilder("gdb", "-batch", "-nx", "-p", Long.toString(sleeper.pid()),
                    "-ex", "gcore " + core).redirectErrorStream(true).redirectOutput(directory.resolve("gdb.log").toFile()).start();
            assertThat(gcore.waitFor()).isZero();
            for (String command : List.of("inspect", "diagnose")) {
                InspectCommandIT.Result result = jompd(command, "--core", core.toString());
                assertThat(result.exitCode()).as(result.err()).isEqualTo(4);
                assertThat(result.err()).isEqualTo("jompd: the core file " + core + " has no OpenMP runtime loaded (no libomp "
                        + "among its modules: a program without OpenMP, or one that has not loaded it yet)\n");
            }
        } finally {
            sleeper.destroyForcibly();
        }
    }
}
