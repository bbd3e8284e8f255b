package dev.jompd.job.rendering;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.jompd.job.model.JobSummary.MissingRanks;
import dev.jompd.job.model.JobSummary.RankClass;
import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.model.RankSet;
import dev.jompd.job.model.RankView;
import dev.jompd.job.wire.JobWire;
import dev.jompd.report.Diagnosis.FindingKind;

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
    public record StackNode(RankView.Step step, RankSet ranks, List<RankId> unnumbered, long threads, long stopped,
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
    private final List<Box> boxes;
    private final List<String> diagnosis;

    /**
     * A box of the merged stacks as every view draws it: a chain of steps the same threads all pass through (one
     * line each; where paths part, each callee starts a box of its own), whether it is an outlier's (a step none
     * of the biggest class's ranks reaches: only ranks that differ from the bulk of the job pass there), and
     * whether it is all libomp's frames.
     */
    public record Box(List<StackNode> chain, boolean outlier, boolean runtime, List<Box> children) {
        public StackNode last() {
            return chain.getLast();
        }
    }

    private JobPicture(JobSummary summary) {
        this.summary = summary;
        this.classes = summary.classes();
        this.stacks = mergeStacks(classes);
        // the biggest class (the last in outliers-first order: of two as big, the one with the higher first rank)
        RankSet majority = classes.size() < 2 ? RankSet.empty() : classes.getLast().ranks();
        this.boxes = stacks.stream().map(root -> box(root, majority)).toList();
        this.diagnosis = diagnose(classes);
    }

    private static Box box(StackNode first, RankSet majority) {
        List<StackNode> chain = new ArrayList<>();
        StackNode current = first;
        chain.add(current);
        while (current.children().size() == 1 && current.children().getFirst().threads() == current.threads()) {
            current = current.children().getFirst();
            chain.add(current);
        }
        boolean outlier = !majority.isEmpty() && current.ranks().intersection(majority).isEmpty();
        boolean runtime = chain.stream().allMatch(node -> node.step().runtime());
        return new Box(List.copyOf(chain), outlier, runtime,
                current.children().stream().map(child -> box(child, majority)).toList());
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

    /** The merged stacks as boxes (see {@link Box}): the one layout the text, the page and the JSON show. */
    public List<Box> boxes() {
        return boxes;
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
    public static String hangOf(RankView view) {
        // a deadlock says it all; otherwise every finding
        Optional<String> deadlock = view.findings().stream().filter(f -> f.kind() == FindingKind.DEADLOCK)
                .map(RankView.Finding::summary).findFirst();
        if (deadlock.isPresent()) {
            return deadlock.get();
        }
        return view.findings().isEmpty() ? "no diagnosis (no stacks or states)"
                : String.join("; ", view.findings().stream().map(RankView.Finding::summary).toList());
    }

    /** The classes' stacks merged into one tree: each class's threads count once per rank of the class. */
    private static List<StackNode> mergeStacks(List<RankClass> classes) {
        final class Building {
            final RankView.Step step;
            RankSet ranks = RankSet.empty();
            final List<RankId> unnumbered = new ArrayList<>();
            long threads;
            long stopped;
            final Map<RankView.Step, Building> children = new LinkedHashMap<>();

            Building(RankView.Step step) {
                this.step = step;
            }

            StackNode freeze() {
                return new StackNode(step, ranks, List.copyOf(unnumbered), threads, stopped,
                        children.values().stream().map(Building::freeze).toList());
            }
        }
        Map<RankView.Step, Building> roots = new LinkedHashMap<>();
        // the biggest classes first: the common path on top, the outliers' paths after it
        for (RankClass c : classes.reversed()) {
            for (RankView.ThreadView thread : c.view().threads()) {
                Map<RankView.Step, Building> level = roots;
                Building innermost = null;
                for (RankView.Step stepOfThread : thread.path()) {
                    Building step = level.computeIfAbsent(stepOfThread, Building::new);
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
                out.append("    ").append(thread.thread()).append(" · ").append(thread.stateWords());
                thread.roles().forEach(r -> out.append(" — ").append(r));
                out.append('\n');
            }
            c.view().mpi().ifPresent(m -> out.append("    in MPI: ").append(m.describe()).append(" on ").append(m.thread().words()).append('\n'));
            c.view().notices().forEach(notice -> out.append("    note: ").append(notice).append('\n'));
        }
        out.append("\nParallel stacks over ranks × threads\n");
        for (Box box : boxes) {
            text(box, 1, out);
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

    /** A box: its steps one under the other, its ranks after the last one; its callees' boxes indented. */
    private static void text(Box box, int depth, StringBuilder out) {
        for (StackNode node : box.chain()) {
            out.append("  ".repeat(depth)).append(node.threads()).append("× ").append(node.step().words());
            if (node == box.last()) {
                out.append("   [").append(node.who()).append(']');
                if (node.stoppedBeforeChildren() > 0) {
                    out.append("   (").append(node.stoppedBeforeChildren()).append(" stopped here)");
                }
            }
            out.append('\n');
        }
        for (Box child : box.children()) {
            text(child, depth + 1, out);
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
            cls.add("representative", JobWire.id(c.representative()));
            cls.addProperty("hang", hangOf(c.view()));
            view(c.view(), cls);
            classArray.add(cls);
        }
        json.add("classes", classArray);
        JsonArray tree = new JsonArray();
        stacks.forEach(node -> tree.add(node(node)));
        json.add("stacks", tree);
        JsonArray boxArray = new JsonArray();
        boxes.forEach(box -> boxArray.add(box(box)));
        json.add("boxes", boxArray);
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
        ids.forEach(id -> array.add(JobWire.id(id)));
        return array;
    }

    private static JsonObject node(StackNode node) {
        JsonObject json = new JsonObject();
        json.addProperty("step", node.step().words());
        json.addProperty("runtime", node.step().runtime());
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

    /** A box for the views that draw it: its steps, and its last step's ranks and threads. */
    private static JsonObject box(Box box) {
        JsonObject json = new JsonObject();
        JsonArray steps = new JsonArray();
        for (StackNode node : box.chain()) {
            JsonObject step = new JsonObject();
            step.addProperty("step", node.step().words());
            step.addProperty("runtime", node.step().runtime());
            steps.add(step);
        }
        json.add("steps", steps);
        StackNode last = box.last();
        json.addProperty("ranks", last.ranks().toString());
        json.addProperty("rankCount", last.ranks().size() + last.unnumbered().size());
        json.addProperty("who", last.who());
        json.addProperty("threads", last.threads());
        json.addProperty("stoppedHere", last.stoppedBeforeChildren());
        json.addProperty("outlier", box.outlier());
        json.addProperty("runtime", box.runtime());
        JsonArray children = new JsonArray();
        box.children().forEach(child -> children.add(box(child)));
        json.add("children", children);
        return json;
    }

    /** A class's view in the job's words, its members in a fixed order. */
    private static void view(RankView view, JsonObject json) {
        JsonArray threadArray = new JsonArray();
        for (RankView.ThreadView thread : view.threads()) {
            JsonObject t = new JsonObject();
            t.addProperty("thread", thread.thread());
            t.addProperty("state", thread.stateWords());
            thread.region().ifPresent(r -> t.addProperty("region", r));
            t.add("tasks", strings(thread.tasks()));
            t.add("stack", strings(thread.stack().stream().map(RankView.Step::words).toList()));
            t.add("roles", strings(thread.roles()));
            threadArray.add(t);
        }
        json.add("threads", threadArray);
        json.add("findings", strings(view.findings().stream().map(RankView.Finding::words).toList()));
        view.mpi().ifPresent(m -> {
            JsonObject call = new JsonObject();
            call.addProperty("call", m.call());
            m.from().ifPresent(f -> call.addProperty("from", f));
            call.addProperty("thread", m.thread().words());
            json.add("mpi", call);
        });
        json.add("notices", strings(view.notices()));
    }

    private static JsonArray strings(List<String> values) {
        JsonArray array = new JsonArray();
        values.forEach(array::add);
        return array;
    }
}
