package dev.jompd.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The command lines jompd reads without picocli give the command picocli would give; the rest go to picocli. */
class DirectCommandLineTest {

    /** What a parsed command would do: its class and every option's value. */
    private static List<Object> fields(TargetCommand command) {
        return List.of(command.getClass(), Optional.ofNullable(command.target.core), Optional.ofNullable(command.target.pid),
                Optional.ofNullable(command.executable), command.solibSearchPath, command.json, command.all, command.stacks,
                command.color, command.aotTraining, Optional.ofNullable(command.history));
    }

    private static TargetCommand byPicocli(String... args) {
        CommandLine.ParseResult result = new CommandLine(new Jompd()).parseArgs(args);
        return (TargetCommand) result.subcommand().commandSpec().userObject();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "inspect --core /tmp/core",
            "inspect --core=/tmp/core --stacks --color=never",
            "inspect --stacks --core /tmp/core --color never --json --all",
            "diagnose --core /tmp/core --json",
            "diagnose --pid 1234",
            "inspect --pid 99 --stacks",
            "inspect --core core --exe ./prog --solib-search-path /a:/b/c",
            "inspect --core /tmp/a=b --solib-search-path=/lib",
            "inspect --core /tmp/core --stacks --aot-training",
            "diagnose --core /tmp/core --aot-training", "inspect --core /tmp/core --color always",
            "inspect --core /tmp/core --history all", "inspect --core /tmp/core --history=20 --all"})
    void readsWhatPicocliReads(String commandLine) {
        String[] args = commandLine.split(" ");
        Optional<TargetCommand> direct = DirectCommandLine.parse(args);
        assertThat(direct).as(commandLine).isPresent();
        assertThat(fields(direct.get())).as(commandLine).isEqualTo(fields(byPicocli(args)));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "inspect", "diagnose", "run ./prog", "--version", "inspect --help", "inspect -h", "diagnose --core c -V",
            "inspect --core a --core b", "inspect --core a --pid 1", "inspect --stacks", "inspect --core",
            "inspect --core --stacks", "inspect --core -x", "inspect --core @args", "inspect @args",
            "inspect --core c --stacks --stacks", "inspect --core c --stacks=true", "inspect --core= ",
            "inspect --pid 0x10", "inspect --pid 010", "inspect --pid -5", "inspect --pid 12345678901234567890",
            "inspect --core c --solib-search-path a::b", "inspect --core c --solib-search-path :a",
            "inspect --core c --unknown", "inspect --core c extra", "inspect --cor c", "inspect --core c --",
            "inspect --core c --history", "inspect --core c --history -1", "inspect --core c --history 3 --history 4",
            // values picocli refuses, naming the option (Values): never taken here
            "inspect --core c --color bogus", "inspect --core c --color=ALWAYS", "inspect --core c --history abc",
            "inspect --core c --history=1x",
            // options diagnose does not offer (it always reads the stacks, groups nothing, has no colour)
            "diagnose --core c --stacks", "diagnose --core c --all", "diagnose --core c --history 3",
            "diagnose --core c --color never", "diagnose --core c --color=always"})
    void leavesEverythingElseToPicocli(String commandLine) {
        assertThat(DirectCommandLine.parse(commandLine.split(" "))).as(commandLine).isEmpty();
    }

    @Test
    void aPicocliSettingSendsTheCommandLineToPicocli() {
        System.setProperty("picocli.trace", "OFF");
        try {
            assertThat(DirectCommandLine.parse("inspect", "--core", "/tmp/core")).isEmpty();
        } finally {
            System.clearProperty("picocli.trace");
        }
        assertThat(DirectCommandLine.parse("inspect", "--core", "/tmp/core")).isPresent();
    }

    @Test
    void eachReadCommandLineIsOnePicocliAccepts() {
        for (String commandLine : List.of("inspect --core c --exe e --solib-search-path a:b --json --all --stacks --color=never --history 9",
                "diagnose --pid 7 --json --exe e --solib-search-path a")) {
            String[] args = commandLine.split(" ");
            assertThat(DirectCommandLine.parse(args)).isPresent();
            byPicocli(args); // throws when picocli would reject it
        }
    }

    /** What a parsed agent would do: every option's value. */
    private static List<Object> agentFields(JobAgentCommand agent) {
        return List.of(Optional.ofNullable(agent.step), Optional.ofNullable(agent.node), agent.stopTimeout,
                Optional.ofNullable(agent.parallel), agent.aotTraining);
    }

    private static JobAgentCommand agentByPicocli(String... args) {
        CommandLine.ParseResult result = new CommandLine(new Jompd()).parseArgs(args);
        return (JobAgentCommand) result.subcommand().commandSpec().userObject();
    }

    @ParameterizedTest
    @ValueSource(strings = {"job-agent --step 12.0", "job-agent --step=12.3 --node n7", "job-agent --node=n1 --step 4.0"})
    void readsTheNodeAgentAsPicocliReadsIt(String commandLine) {
        String[] args = commandLine.split(" ");
        Optional<JobAgentCommand> direct = DirectCommandLine.parseJobAgent(args);
        assertThat(direct).as(commandLine).isPresent();
        assertThat(agentFields(direct.get())).as(commandLine).isEqualTo(agentFields(agentByPicocli(args)));
        assertThat(DirectCommandLine.command(args)).as(commandLine).isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {"job-agent", "job-agent --node n1", "job-agent --step", "job-agent --step -1",
            "job-agent --step 1.0 --step 2.0", "job-agent --step 1.0 --parallel 2", "job-agent --step 1.0 --stop-timeout 9",
            "job-agent --step 1.0 --aot-training", "job-agent --aot-training", "job-agent --step 1.0 --help",
            "job-agent --step @args", "job-agent --step 1.0 extra", "job-agent --step= "})
    void leavesEveryOtherAgentLineToPicocli(String commandLine) {
        assertThat(DirectCommandLine.parseJobAgent(commandLine.split(" "))).as(commandLine).isEmpty();
    }

    /** What a parsed front end would do: every option's value. */
    private static List<Object> jobFields(JobCommand job) {
        return List.of(Optional.ofNullable(job.source.slurm), Optional.ofNullable(job.source.mpirun),
                Optional.ofNullable(job.source.pids), Optional.ofNullable(job.source.cores), Optional.ofNullable(job.executable),
                job.timeoutSeconds, job.json, Optional.ofNullable(job.html), Optional.ofNullable(job.parallel),
                Optional.ofNullable(job.agent));
    }

    private static JobCommand jobByPicocli(String... args) {
        CommandLine.ParseResult result = new CommandLine(new Jompd()).parseArgs(args);
        return (JobCommand) result.subcommand().commandSpec().userObject();
    }

    @ParameterizedTest
    @ValueSource(strings = {"job --slurm 12", "job --slurm 12.0 --json", "job --json --slurm=7 --timeout 900",
            "job --timeout=2.5 --slurm 3.1", "job --mpirun 4242", "job --mpirun=17 --json --timeout 30"})
    void readsTheJobFrontEndAsPicocliReadsIt(String commandLine) {
        String[] args = commandLine.split(" ");
        Optional<JobCommand> direct = DirectCommandLine.parseJob(args);
        assertThat(direct).as(commandLine).isPresent();
        assertThat(jobFields(direct.get())).as(commandLine).isEqualTo(jobFields(jobByPicocli(args)));
        assertThat(DirectCommandLine.command(args)).as(commandLine).isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {"job", "job --json", "job --slurm", "job --slurm 1 --mpirun 2", "job --slurm 1 --slurm 2",
            "job --slurm 1 --cores d", "job --pids 1,2", "job --cores /tmp/c", "job --slurm 1 --html p.html",
            "job --slurm 1 --parallel 2", "job --slurm 1 --agent x", "job --slurm 1 --help", "job --slurm 1 -h",
            "job --slurm 1 --json=true", "job --slurm 1 --timeout", "job --slurm 1 --timeout 1e3",
            "job --slurm 1 --timeout .5", "job --slurm 1 --timeout 5.", "job --slurm 1 --timeout 1.2.3",
            "job --slurm 1 --timeout -1", "job --slurm 1 --timeout 0x10", "job --slurm 1 --timeout 0",
            "job --slurm 1 --timeout 0.0", "job --mpirun 5 --timeout 00", "job --mpirun 0x10", "job --mpirun 010",
            "job --slurm @args", "job --slurm 1 extra", "job --slurm= "})
    void leavesEveryOtherJobLineToPicocli(String commandLine) {
        assertThat(DirectCommandLine.parseJob(commandLine.split(" "))).as(commandLine).isEmpty();
    }
}
