package dev.jompd.cli;

import picocli.CommandLine.Command;

/**
 * {@code jompd diagnose}: why the threads wait, in plain words with evidence (who reached each team's
 * barrier and who did not and where those are; lock and critical-section waiters and, with the
 * jompd-recorder, holders; deadlocks). The same targets and options as {@code inspect}.
 */
@Command(name = "diagnose", mixinStandardHelpOptions = true,
        description = {"Says why the threads of a core file or a running process wait: per team who reached the",
                "barrier and who did not (and where those are), who waits for which lock or critical section",
                "and who holds it (with the jompd-recorder), deadlocks. Evidence from OMPD states and stacks."})
final class DiagnoseCommand extends InspectCommand {
    @Override
    boolean diagnose() {
        return true;
    }
}
