package dev.jompd.cli;

import dev.jompd.report.JsonReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code jompd inspect}: the OpenMP report of a core file or a running process. */
@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"Reports the OpenMP state of a core file or a running process.",
                "The tree of parallel regions, each thread under its team (state, wait id, current task), explicit "
                        + "tasks, the ICVs by scope and libomp's defaults (recorded before it read the environment); with --stacks also where every "
                        + "thread is."})
class InspectCommand extends TargetCommand {

    @Option(names = "--json", description = "print one JSON document (schema " + JsonReport.SCHEMA
            + ", see docs/command-line.md)")
    void json(boolean json) {
        this.json = json;
    }

    @Option(names = "--all", description = "list every thread instead of grouping identical ones")
    void all(boolean all) {
        this.all = all;
    }

    @Option(names = "--stacks", description = "also every OpenMP thread's native stack, merged by common call path "
            + "(parallel stacks), each frame with the OpenMP task it runs for")
    void stacks(boolean stacks) {
        this.stacks = stacks;
    }

    @Option(names = "--history", paramLabel = "N|all", converter = Values.History.class,
            description = "with the jompd-recorder: how many of each thread's recorded events the text report shows, "
                    + "or all it keeps (default: the last 8; the JSON always has every one)")
    void history(String history) {
        this.history = history;
    }

    @Option(names = "--color", paramLabel = "WHEN", defaultValue = "auto", converter = Values.Colour.class,
            description = "colour the text report: auto (on a terminal), always, never")
    void color(String color) {
        this.color = color;
    }

    @Override
    boolean diagnose() {
        return false;
    }
}
