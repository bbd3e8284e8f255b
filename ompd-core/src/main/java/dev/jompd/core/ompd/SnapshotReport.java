package dev.jompd.core.ompd;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Renders a {@link ProcessSnapshot} as a plain-text tree: regions outermost first, threads under them. */
public final class SnapshotReport {
    private SnapshotReport() {}

    public static String render(ProcessSnapshot snapshot) {
        StringBuilder out = new StringBuilder();
        out.append("OpenMP ").append(snapshot.ompVersion()).append(", ").append(snapshot.threads().size())
                .append(" OpenMP threads, ").append(snapshot.regions().size()).append(" parallel regions\n");
        out.append("process ICVs:\n");
        snapshot.processIcvs().forEach((name, value) -> out.append("  ").append(name).append(" = ").append(value).append('\n'));

        Map<String, List<ProcessSnapshot.ThreadView>> threadsByRegion = new LinkedHashMap<>();
        for (ProcessSnapshot.ThreadView thread : snapshot.threads()) {
            threadsByRegion.computeIfAbsent(thread.region().orElse("(no region)"), k -> new ArrayList<>()).add(thread);
        }
        Map<String, List<String>> children = new LinkedHashMap<>();
        List<String> roots = new ArrayList<>();
        snapshot.regions().values().forEach(region -> region.enclosing().ifPresentOrElse(
                parent -> children.computeIfAbsent(parent, k -> new ArrayList<>()).add(region.key()),
                () -> roots.add(region.key())));
        out.append("regions:\n");
        for (String root : roots) {
            renderRegion(snapshot, root, 1, children, threadsByRegion, out);
        }
        if (threadsByRegion.containsKey("(no region)")) {
            out.append("  threads in no region:\n");
            threadsByRegion.get("(no region)").forEach(t -> renderThread(t, 2, out));
        }
        if (!snapshot.problems().isEmpty()) {
            out.append("problems:\n");
            snapshot.problems().forEach(p -> out.append("  ").append(p).append('\n'));
        }
        return out.toString();
    }

    private static void renderRegion(ProcessSnapshot snapshot, String key, int depth, Map<String, List<String>> children,
                                     Map<String, List<ProcessSnapshot.ThreadView>> threads, StringBuilder out) {
        ProcessSnapshot.RegionView region = snapshot.regions().get(key);
        String indent = "  ".repeat(depth);
        out.append(indent).append("level ").append(region.level()).append(" (active ").append(region.activeLevel())
                .append("), team of ").append(region.teamSize()).append(", tool data ")
                .append(region.toolData().value()).append("  [").append(key).append("]\n");
        for (ProcessSnapshot.ThreadView thread : threads.getOrDefault(key, List.of())) {
            renderThread(thread, depth + 1, out);
        }
        for (String child : children.getOrDefault(key, List.of())) {
            renderRegion(snapshot, child, depth + 1, children, threads, out);
        }
    }

    private static void renderThread(ProcessSnapshot.ThreadView thread, int depth, StringBuilder out) {
        String indent = "  ".repeat(depth);
        out.append(indent).append("thread ").append(thread.threadNum()).append(": gtid ").append(thread.gtid())
                .append(thread.lwp().isPresent() ? ", LWP " + thread.lwp().getAsLong() : "")
                .append(", ").append(thread.state().replace("ompt_state_", ""))
                .append(thread.waitId() != 0 ? " (wait id 0x" + Long.toHexString(thread.waitId()) + ")" : "")
                .append(", nthreads-var ").append(thread.icvs().get("nthreads-var")).append('\n');
        for (ProcessSnapshot.TaskView task : thread.tasks()) {
            out.append(indent).append("  task 0x").append(Long.toHexString(task.address()))
                    .append(task.flags().map(f -> f.explicit() ? " explicit" : " implicit").orElse(""))
                    .append(task.flags().filter(TaskHandle.TaskFlags::isFinal).map(f -> " final").orElse(""))
                    .append(task.flags().filter(f -> f.explicit() && !f.tied()).map(f -> " untied").orElse(""))
                    .append(task.function().isPresent() ? " fn 0x" + Long.toHexString(task.function().getAsLong()) : "")
                    .append(", run-sched-var ").append(task.icvs().get("run-sched-var")).append('\n');
        }
    }
}
