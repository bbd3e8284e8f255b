package dev.jompd.cli;

import dev.jompd.core.ompd.ProcessSnapshot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A snapshot's regions as the text reports print them (the command line's, the gdb bridge's {@code ompd
 * tree}): each region's id ({@code r0, r1, …}, as in the JSON report), the regions each one encloses,
 * the outermost ones, and each region's threads ({@link #NO_TEAM}: threads in no team).
 */
public record RegionTree(Map<String, String> ids, Map<String, List<String>> children, List<String> roots,
                         Map<String, List<ProcessSnapshot.ThreadView>> threadsByRegion) {
    /** The key of {@link #threadsByRegion} for threads in no team (idle in the pool). */
    public static final String NO_TEAM = "";

    public static RegionTree of(ProcessSnapshot snapshot) {
        Map<String, List<ProcessSnapshot.ThreadView>> threadsByRegion = new LinkedHashMap<>();
        snapshot.threads().forEach(t -> threadsByRegion.computeIfAbsent(t.region().orElse(NO_TEAM), k -> new ArrayList<>()).add(t));
        Map<String, List<String>> children = new LinkedHashMap<>();
        List<String> roots = new ArrayList<>();
        snapshot.regions().values().forEach(region -> region.enclosing().ifPresentOrElse(
                parent -> children.computeIfAbsent(parent, k -> new ArrayList<>()).add(region.key()),
                () -> roots.add(region.key())));
        return new RegionTree(JsonReport.regionIds(snapshot), children, roots, threadsByRegion);
    }
}
