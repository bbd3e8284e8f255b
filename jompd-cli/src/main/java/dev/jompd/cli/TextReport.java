package dev.jompd.cli;

import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.ompd.FunctionNames;
import dev.jompd.core.target.Symbolizer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The human-readable report: process ICVs, the tree of regions with each thread under its team, task
 * chains with function names, problems. Threads of one team that look the same (state, task function,
 * chain depth, ICVs) are grouped unless {@code --all}; a 256-thread program stays readable.
 */
final class TextReport {
    private final boolean colour;
    private final boolean all;
    private final Symbolizer symbols;
    private final SourceLines lines;
    /** Closed with the JVM: a report is rendered once per command. */
    private final FunctionNames names;

    TextReport(boolean colour, boolean all, Symbolizer symbols, SourceLines lines) {
        this.colour = colour;
        this.all = all;
        this.symbols = symbols;
        this.lines = lines;
        this.names = new FunctionNames(symbols);
    }

    String render(TargetDescription target, ProcessSnapshot snapshot) {
        StringBuilder out = new StringBuilder();
        out.append(bold("OpenMP process")).append(' ').append(target.name()).append(" (").append(target.backend())
                .append(")\n  runtime ").append(target.runtime()).append(", OpenMP ").append(snapshot.ompVersion())
                .append(", ").append(snapshot.threads().size()).append(" OpenMP threads, ")
                .append(snapshot.regions().size()).append(" parallel regions\n");
        for (String notice : InspectCommand.notices(snapshot)) {
            out.append(paint("33", "  note: " + notice)).append('\n');
        }
        out.append('\n');

        RegionTree tree = RegionTree.of(snapshot);
        out.append(bold("Parallel regions")).append('\n');
        for (String root : tree.roots()) {
            region(snapshot, root, 1, tree, out);
        }
        if (tree.threadsByRegion().containsKey(RegionTree.NO_TEAM)) {
            out.append("  threads in no team (idle in the pool):\n");
            threads(tree.threadsByRegion().get(RegionTree.NO_TEAM), 2, out);
        }

        out.append('\n').append(bold("Process ICVs")).append('\n');
        snapshot.processIcvs().forEach((name, value) -> out.append("  ").append(pad(name, 24))
                .append(value.startsWith("<ompd_rc_") ? "(" + value.substring(9, value.length() - 1) + ")" : value).append('\n'));
        if (!snapshot.controlVariables().isEmpty()) {
            out.append('\n').append(bold("Display control variables"))
                    .append(" (as libomp recorded them at start-up, before it read the environment)\n");
            snapshot.controlVariables().stream().filter(line -> line.startsWith("OMP_"))
                    .forEach(line -> out.append("  ").append(line).append('\n'));
        }
        if (!snapshot.problems().isEmpty()) {
            out.append('\n').append(paint("31", "Problems")).append('\n');
            snapshot.problems().forEach(p -> out.append("  ").append(p).append('\n'));
        }
        return out.toString();
    }

    private void region(ProcessSnapshot snapshot, String key, int depth, RegionTree tree, StringBuilder out) {
        ProcessSnapshot.RegionView region = snapshot.regions().get(key);
        String indent = "  ".repeat(depth);
        out.append(indent).append(paint("36", tree.ids().get(key) + " level " + region.level()))
                .append(region.level() > 0 && region.teamSize() == 1 ? " serialized" : "").append(", team of ").append(region.teamSize())
                .append(", active level ").append(region.activeLevel());
        if (region.toolData().value() != 0) {
            out.append(", tool data ").append(Long.toUnsignedString(region.toolData().value()));
        }
        out.append('\n');
        threads(tree.threadsByRegion().getOrDefault(key, List.of()), depth + 1, out);
        for (String child : tree.children().getOrDefault(key, List.of())) {
            region(snapshot, child, depth + 1, tree, out);
        }
    }

    private void threads(List<ProcessSnapshot.ThreadView> threads, int depth, StringBuilder out) {
        String indent = "  ".repeat(depth);
        List<List<ProcessSnapshot.ThreadView>> groups = new ArrayList<>();
        for (ProcessSnapshot.ThreadView thread : threads) {
            if (!all && !groups.isEmpty() && sameShape(groups.getLast().getFirst(), thread)
                    && !thread.tasks().isEmpty() && groups.getLast().size() < Integer.MAX_VALUE) {
                groups.getLast().add(thread);
            } else {
                groups.add(new ArrayList<>(List.of(thread)));
            }
        }
        for (List<ProcessSnapshot.ThreadView> group : groups) {
            ProcessSnapshot.ThreadView first = group.getFirst();
            if (group.size() == 1) {
                out.append(indent).append(paint("1", "thread " + first.threadNum())).append("  gtid ").append(first.gtid())
                        .append(first.lwp().isPresent() ? "  LWP " + first.lwp().getAsLong() : "");
            } else {
                out.append(indent).append(paint("1", "threads " + first.threadNum() + ".." + group.getLast().threadNum()))
                        .append(" (").append(group.size()).append(" alike)  gtids ")
                        .append(Ranges.compact(group.stream().map(ProcessSnapshot.ThreadView::gtid).toList()));
            }
            out.append("  ").append(paint(stateColour(first.state()), first.state().replace("ompt_state_", "")));
            if (first.waitId() != 0 && group.size() == 1) {
                out.append(" on 0x").append(Long.toHexString(first.waitId()));
            }
            if (first.toolData().value() != 0 && group.size() == 1) {
                out.append("  tool data ").append(Long.toUnsignedString(first.toolData().value()));
            }
            out.append('\n');
            for (ProcessSnapshot.TaskView task : first.tasks()) {
                boolean initial = task == first.tasks().getLast() && task.function().orElse(0) == 0
                        && task.flags().map(f -> !f.explicit()).orElse(false);
                out.append(indent).append("    ").append(initial ? "initial task"
                                : task.flags().map(f -> f.explicit() ? "explicit task" : "implicit task").orElse("task"))
                        .append(" 0x").append(Long.toHexString(task.address()));
                task.flags().ifPresent(f -> {
                    if (f.isFinal()) out.append(" final");
                    if (f.explicit() && !f.tied()) out.append(" untied");
                });
                if (task.function().isPresent() && !initial) {
                    names.ofTask(task).ifPresent(code -> out.append("  ").append(code.displayName()).append(
                            code.location().flatMap(lines::shortOf).map(line -> " (" + line + ")").orElse("")));
                }
                out.append('\n');
                if (task == first.tasks().getFirst()) {
                    out.append(indent).append("      ICVs: ");
                    List<String> icvs = new ArrayList<>();
                    first.icvs().forEach((name, value) -> icvs.add(name + "=" + value));
                    task.icvs().forEach((name, value) -> {
                        if (!name.startsWith("ompd-") && !name.equals("implicit-task-var") && !name.equals("final-task-var")) {
                            icvs.add(name + "=" + value);
                        }
                    });
                    // Unreadable ICVs (<ompd_rc_...>) are left to --json, which keeps the reason.
                    out.append(String.join(" ", icvs.stream().filter(s -> !s.startsWith("ompd-") && !s.contains("=<ompd_rc_"))
                            .toList())).append('\n');
                }
            }
        }
    }

    private static boolean sameShape(ProcessSnapshot.ThreadView a, ProcessSnapshot.ThreadView b) {
        return a.state().equals(b.state()) && a.tasks().size() == b.tasks().size()
                && Objects.equals(a.icvs().get("nthreads-var"), b.icvs().get("nthreads-var"))
                && Objects.equals(a.tasks().isEmpty() ? null : a.tasks().getFirst().function(),
                        b.tasks().isEmpty() ? null : b.tasks().getFirst().function())
                && Objects.equals(a.tasks().isEmpty() ? null : a.tasks().getFirst().icvs(),
                        b.tasks().isEmpty() ? null : b.tasks().getFirst().icvs());
    }

    private static String stateColour(String state) {
        return state.contains("wait") ? "33" : state.contains("work") ? "32" : "0";
    }

    private String bold(String text) {
        return paint("1", text);
    }

    private String paint(String code, String text) {
        return colour ? "\033[" + code + "m" + text + "\033[0m" : text;
    }

    private static String pad(String text, int width) {
        return text.length() >= width ? text + " " : text + " ".repeat(width - text.length());
    }
}
