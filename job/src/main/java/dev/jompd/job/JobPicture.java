package dev.jompd.job;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.jompd.job.JobSummary.MissingRanks;
import dev.jompd.job.JobSummary.RankClass;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The picture of a whole job, made once from the merged {@link JobSummary} and rendered by every door (CLI
 * text, the {@code jompd-job/1} JSON, the HTML page, the VS Code view): the classes of ranks (outliers
 * first), the parallel stacks merged over ranks × threads with rank sets as ranges, the hang diagnosis per
 * class and across ranks where MPI waits explain it, and the ranks that are missing, with why.
 */
public final class JobPicture {
    /** The JSON document's name and version. */
    public static final String SCHEMA = "jompd-job/1";
    /** The schema file of {@link #toJson()} on the class path. */
    public static final String SCHEMA_RESOURCE = "/dev/jompd/job/jompd-job.schema.json";

    /**
     * A node of the merged stacks: a step (a frame by function and line, or a folded run of libomp's
     * frames), the ranks whose threads pass through it, how many threads (over all those ranks) do, how many of
     * those have it as their innermost step, and the steps after it. A thread stopped in a caller of another
     * thread's frame ends at an inner node: {@code stopped} counts it there.
     */
    public record StackNode(String step, RankSet ranks, List<RankId> unnumbered, long threads, long stopped,
                            List<StackNode> children) {
        public String who() {
            return JobSummary.who(ranks, unnumbered);
        }

        /** The threads that stop here while others go on into the children (none at a leaf, where all stop). */
        public long stoppedBeforeChildren() {
            return children.isEmpty() ? 0 : stopped;
        }
    }

    private final JobSummary summary;
    private final List<RankClass> classes;
    private final List<StackNode> stacks;
    private final List<String> diagnosis;

    private JobPicture(JobSummary summary) {
        this.summary = summary;
        this.classes = summary.classes();
        this.stacks = mergeStacks(classes);
        this.diagnosis = diagnose(classes);
    }

    public static JobPicture of(JobSummary summary) {
        return new JobPicture(summary);
    }

    public JobSummary summary() {
        return summary;
    }

    public List<RankClass> classes() {
        return classes;
    }

    public List<StackNode> stacks() {
        return stacks;
    }

    /** The job's diagnosis in plain words: across ranks first, then each class's own. */
    public List<String> diagnosis() {
        return diagnosis;
    }

    /**
     * Across ranks: where some classes wait in an MPI call and others do not, the others are why ("ranks
     * 0-2,4-31 wait in MPI_Allreduce (from solver.c:120); rank 3 never arrives: …"); then per class, what
     * its own threads wait for.
     */
    private static List<String> diagnose(List<RankClass> classes) {
        List<String> sentences = new ArrayList<>();
        Map<String, List<RankClass>> byCall = new LinkedHashMap<>();
        List<RankClass> notInMpi = new ArrayList<>();
        for (RankClass c : classes) {
            if (c.view().mpi().isPresent()) {
                byCall.computeIfAbsent(c.view().mpi().get().describe(), k -> new ArrayList<>()).add(c);
            } else {
                notInMpi.add(c);
            }
        }
        if (!byCall.isEmpty()) {
            List<String> waits = new ArrayList<>();
            byCall.forEach((call, members) -> waits.add(who(members) + " wait" + (count(members) == 1 ? "s" : "")
                    + " in " + call));
            String sentence = String.join("; ", waits);
            if (!notInMpi.isEmpty()) {
                List<String> why = new ArrayList<>();
                for (RankClass c : notInMpi) {
                    why.add(c.who() + (c.count() == 1 ? " never arrives" : " never arrive") + ": " + hangOf(c.view()));
                }
                sentence += "; " + String.join("; ", why);
            } else if (byCall.size() > 1) {
                sentence += " (the ranks wait in different MPI calls)";
            }
            sentences.add(sentence);
        }
        for (RankClass c : classes) {
            sentences.add(c.who() + ": " + hangOf(c.view()));
        }
        return List.copyOf(sentences);
    }

    private static long count(List<RankClass> classes) {
        return classes.stream().mapToLong(RankClass::count).sum();
    }

    private static String who(List<RankClass> classes) {
        RankSet ranks = RankSet.empty();
        List<RankId> unnumbered = new ArrayList<>();
        for (RankClass c : classes) {
            ranks = ranks.union(c.ranks());
            unnumbered.addAll(c.unnumbered());
        }
        return JobSummary.who(ranks, unnumbered);
    }

    /** What a class's threads wait for, in one sentence: its findings without their kinds. */
    static String hangOf(RankView view) {
        List<String> findings = view.findings().stream().map(f -> f.substring(f.indexOf(": ") + 2)).toList();
        // a deadlock says it all; otherwise every finding
        Optional<String> deadlock = view.findings().stream().filter(f -> f.startsWith("deadlock: "))
                .map(f -> f.substring("deadlock: ".length())).findFirst();
        if (deadlock.isPresent()) {
            return deadlock.get();
        }
        return findings.isEmpty() ? "no diagnosis (no stacks or states)" : String.join("; ", findings);
    }

    /** The classes' stacks merged into one tree: each class's threads count once per rank of the class. */
    private static List<StackNode> mergeStacks(List<RankClass> classes) {
        final class Building {
            final String step;
            RankSet ranks = RankSet.empty();
            final List<RankId> unnumbered = new ArrayList<>();
            long threads;
            long stopped;
            final Map<String, Building> children = new LinkedHashMap<>();

            Building(String step) {
                this.step = step;
            }

            StackNode freeze() {
                return new StackNode(step, ranks, List.copyOf(unnumbered), threads, stopped,
                        children.values().stream().map(Building::freeze).toList());
            }
        }
        Map<String, Building> roots = new LinkedHashMap<>();
        // the biggest classes first: the common path on top, the outliers' paths after it
        for (RankClass c : classes.reversed()) {
            for (RankView.ThreadView thread : c.view().threads()) {
                Map<String, Building> level = roots;
                Building innermost = null;
                List<String> path = thread.stack().isEmpty() ? List.of("(no stack: " + thread.thread() + ", "
                        + thread.state() + ")") : thread.stack();
                for (String stepName : path) {
                    Building step = level.computeIfAbsent(stepName, Building::new);
                    step.ranks = step.ranks.union(c.ranks());
                    c.unnumbered().stream().filter(id -> !step.unnumbered.contains(id)).forEach(step.unnumbered::add);
                    step.threads += c.count();
                    level = step.children;
                    innermost = step;
                }
                innermost.stopped += c.count();
            }
        }
        return roots.values().stream().map(Building::freeze).toList();
    }

    /** The job as text, for the command line. */
    public String text() {
        StringBuilder out = new StringBuilder();
        out.append("Job: ").append(summary.rankCount()).append(summary.rankCount() == 1 ? " rank, " : " ranks, ").append(summary.seenCount()).append(" seen in ")
                .append(classes.size()).append(classes.size() == 1 ? " class" : " classes");
        if (summary.missingCount() > 0) {
            out.append(", ").append(summary.missingCount()).append(" missing");
        }
        out.append('\n');
        if (!summary.duplicates().isEmpty()) {
            out.append("  note: ").append(summary.duplicates().words()).append(" came more than once (inspected twice?)\n");
        }
        out.append("\nDiagnosis\n");
        diagnosis.forEach(d -> out.append("  - ").append(d).append('\n'));
        out.append("\nClasses (outliers first)\n");
        int n = 1;
        for (RankClass c : classes) {
            out.append("  class ").append(n++).append(": ").append(c.who()).append(" (").append(c.count())
                    .append(c.count() == 1 ? " rank" : " ranks").append("; shown: ").append(JobSummary.describe(c.representative()))
                    .append(")\n");
            for (RankView.ThreadView thread : c.view().threads()) {
                out.append("    ").append(thread.thread()).append(" · ").append(thread.state());
                thread.roles().forEach(r -> out.append(" — ").append(r));
                out.append('\n');
            }
            c.view().mpi().ifPresent(m -> out.append("    in MPI: ").append(m.describe()).append(" on ").append(m.thread()).append('\n'));
            c.view().notices().forEach(notice -> out.append("    note: ").append(notice).append('\n'));
        }
        out.append("\nParallel stacks over ranks × threads\n");
        for (StackNode root : stacks) {
            text(root, 1, out);
        }
        if (summary.missingCount() > 0) {
            out.append("\nMissing ranks\n");
            for (MissingRanks m : summary.missing()) {
                out.append("  ").append(m.who()).append(": ").append(words(m.reason())).append(": ").append(m.detail())
                        .append('\n');
            }
        }
        return out.toString();
    }

    private static void text(StackNode node, int depth, StringBuilder out) {
        out.append("  ".repeat(depth)).append(node.threads()).append("× ").append(node.step());
        boolean parts = node.children().isEmpty() || node.children().size() > 1
                || node.children().getFirst().threads() != node.threads();
        if (parts) {
            out.append("   [").append(node.who()).append(']');
        }
        if (node.stoppedBeforeChildren() > 0) {
            out.append("   (").append(node.stoppedBeforeChildren()).append(" stopped here)");
        }
        out.append('\n');
        int childDepth = node.children().size() == 1 && node.children().getFirst().threads() == node.threads() ? depth : depth + 1;
        for (StackNode child : node.children()) {
            text(child, childDepth, out);
        }
    }

    /** Why a rank is missing, for people. */
    static String words(RankInspection.MissingReason reason) {
        return switch (reason) {
            case NO_ANSWER -> "no answer";
            case EXITED -> "exited";
            case PERMISSION_DENIED -> "permission denied";
            case ALREADY_TRACED -> "already traced";
            case UNINTERRUPTIBLE -> "in uninterruptible sleep";
            case DAMAGED_CORE -> "damaged core";
            case NOT_OPENMP -> "no OpenMP runtime";
            case UNREADABLE -> "unreadable";
        };
    }

    /** The {@code jompd-job/1} document (see {@code jompd-job.schema.json}). */
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        json.addProperty("schema", SCHEMA);
        JsonObject ranks = new JsonObject();
        ranks.addProperty("total", summary.rankCount());
        ranks.addProperty("seen", summary.seenCount());
        ranks.addProperty("missing", summary.missingCount());
        ranks.addProperty("duplicates", summary.duplicates().toString());
        json.add("ranks", ranks);
        JsonArray diagnosisArray = new JsonArray();
        diagnosis.forEach(diagnosisArray::add);
        json.add("diagnosis", diagnosisArray);
        JsonArray classArray = new JsonArray();
        for (RankClass c : classes) {
            JsonObject cls = new JsonObject();
            cls.addProperty("ranks", c.ranks().toString());
            cls.addProperty("count", c.count());
            cls.addProperty("who", c.who());
            cls.add("unnumbered", idArray(c.unnumbered()));
            cls.add("representative", JobSummary.id(c.representative()));
            cls.addProperty("hang", hangOf(c.view()));
            JsonObject view = c.view().toJson();
            view.entrySet().forEach(e -> cls.add(e.getKey(), e.getValue()));
            classArray.add(cls);
        }
        json.add("classes", classArray);
        JsonArray tree = new JsonArray();
        stacks.forEach(node -> tree.add(node(node)));
        json.add("stacks", tree);
        JsonArray missingArray = new JsonArray();
        for (MissingRanks m : summary.missing()) {
            JsonObject lost = new JsonObject();
            lost.addProperty("reason", m.reason().name().toLowerCase(java.util.Locale.ROOT));
            lost.addProperty("words", words(m.reason()));
            lost.addProperty("detail", m.detail());
            lost.addProperty("ranks", m.ranks().toString());
            lost.addProperty("count", m.count());
            lost.add("unnumbered", idArray(m.unnumbered()));
            missingArray.add(lost);
        }
        json.add("missing", missingArray);
        return json;
    }

    private static JsonArray idArray(List<RankId> ids) {
        JsonArray array = new JsonArray();
        ids.forEach(id -> array.add(JobSummary.id(id)));
        return array;
    }

    private static JsonObject node(StackNode node) {
        JsonObject json = new JsonObject();
        json.addProperty("step", node.step());
        json.addProperty("runtime", node.step().startsWith("[libomp: "));
        json.addProperty("ranks", node.ranks().toString());
        json.addProperty("rankCount", node.ranks().size() + node.unnumbered().size());
        json.addProperty("who", node.who());
        json.addProperty("threads", node.threads());
        json.addProperty("stopped", node.stopped());
        JsonArray children = new JsonArray();
        node.children().forEach(child -> children.add(node(child)));
        json.add("children", children);
        return json;
    }
}
