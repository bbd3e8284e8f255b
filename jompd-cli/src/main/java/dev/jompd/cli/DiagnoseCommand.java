package dev.jompd.cli;

import dev.jompd.report.JsonReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code jompd diagnose}: why the threads wait, in plain words with evidence (who reached each team's
 * barrier and who did not and where those are; lock and critical-section waiters and holders; deadlocks).
 * The targets of {@code inspect}; of its options only {@code --json}, which has a schema of its own (the
 * diagnosis always reads the stacks, groups no threads, shows no recorded history and has no colour).
 */
@Command(name = "diagnose", mixinStandardHelpOptions = true,
        description = {"Says why the threads of a core file or a running process wait.",
                "Per team who reached the barrier and who did not (and where those are), who waits for which lock or "
                        + "critical section and who holds it, deadlocks; each finding with its evidence (OMPD states, "
                        + "stacks, libomp's lock memory)."})
final class DiagnoseCommand extends TargetCommand {

    @Option(names = "--json", description = "print one JSON document (schema " + JsonReport.DIAGNOSIS_SCHEMA
            + ", see docs/command-line.md)")
    void json(boolean json) {
        this.json = json;
    }

    @Override
    boolean diagnose() {
        return true;
    }
}
