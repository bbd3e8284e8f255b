package dev.jompd.job.bench;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.model.RankView;
import dev.jompd.job.rendering.JobPicture;
import dev.jompd.job.wire.NodeMessages;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;

/**
 * The front end's merge alone, at scale: node summaries derived from real ones — the rank views of real
 * inspections (cores of a barrier straggler, a lock-order deadlock, a blocked taskwait) — perturbed (most ranks
 * alike, one in a thousand another hang, some ranks with a stack line of their own, whole nodes silent),
 * streamed as the framed lines node agents write ({@link NodeMessages}), decoded and merged one at a time. Prints, per job size, the
 * time of parse + merge, per node, the peak heap, the wire bytes per node summary and the classes found.
 *
 * <p>usage: JobMergeBenchmark [MAX_NODES (16384)] [RANKS_PER_NODE (64)]
 */
public final class JobMergeBenchmark {
    public static void main(String[] args) throws Exception {
        int maxNodes = args.length > 0 ? Integer.parseInt(args[0]) : 16_384;
        int ranksPerNode = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        List<JsonObject> views = realViews();
        System.out.printf("real rank views: %d (bytes each: %s)%n", views.size(),
                views.stream().map(v -> Integer.toString(v.toString().length())).toList());
        System.out.printf("%8s %8s %10s %10s %12s %11s %10s %10s %8s %9s%n", "nodes", "ranks", "merge s", "us/node",
                "heap peak MB", "retained MB", "avg B/node", "max B/node", "classes", "missing");
        for (int nodes = 1024; nodes <= maxNodes; nodes *= 4) {
            run(nodes, ranksPerNode, views);
        }
        if (Integer.bitCount(maxNodes) != 1 || Integer.numberOfTrailingZeros(maxNodes) % 2 != 0) {
            run(maxNodes, ranksPerNode, views);
        }
    }

    /** The views of real inspections, as a node agent would send them. */
    private static List<JsonObject> realViews() throws Exception {
        Path work = Fixtures.workDirectory("job-merge-bench");
        List<FixtureRun> runs = List.of(
                FixtureRun.of(Fixture.BARRIER_STRAGGLER, "4", "2").withEnvironment("KMP_BLOCKTIME", "0"),
                FixtureRun.of(Fixture.LOCK_DEADLOCK, "lock"),
                FixtureRun.of(Fixture.TASKWAIT_BLOCKED).withEnvironment("KMP_BLOCKTIME", "0"));
        List<JsonObject> views = new ArrayList<>();
        int rank = 0;
        for (FixtureRun run : runs) {
            StoppedFixture fixture = Fixtures.makeCore(run, work.resolve(run.label()));
            try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core())) {
                RankInspection.Seen seen = dev.jompd.job.JobInspections.inspect(core,
                        new RankId(OptionalInt.of(rank++), "n0", 0, fixture.core().toString()), "core", fixture.core().toString());
                views.add(dev.jompd.job.wire.JobWire.toJson(RankView.of(seen)));
            }
        }
        return views;
    }

    private static void run(int nodes, int ranksPerNode, List<JsonObject> views) {
        Random random = new Random(nodes);
        System.gc();
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        long mergeNanos = 0;
        long bytes = 0;
        long maxBytes = 0;
        JobSummary job = JobSummary.empty();
        for (int node = 0; node < nodes; node++) {
            // what the agent writes: its summary framed for srun's output (gzip, base64, lines of <= 1,000 bytes)
            List<String> lines = NodeMessages.answer("n" + node,
                    java.util.Optional.of(dev.jompd.job.wire.JobWire.summary(nodeSummary(node, ranksPerNode, views, random))));
            int wire = lines.stream().mapToInt(l -> l.length() + 1).sum();
            bytes += wire;
            maxBytes = Math.max(maxBytes, wire);
            long start = System.nanoTime();
            NodeMessages.Receiver receiver = new NodeMessages.Receiver(List.of("n" + node));
            for (String line : lines) {
                receiver.accept(line);
            }
            job = job.merge(((NodeMessages.Answer.Summary) receiver.answers().get("n" + node)).summary());
            mergeNanos += System.nanoTime() - start;
        }
        long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
        System.gc();
        long retained = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        long start = System.nanoTime();
        JobPicture picture = JobPicture.of(job);
        String text = picture.text();
        long renderNanos = System.nanoTime() - start;
        System.out.printf("%8d %8d %10.2f %10.1f %12.1f %11.1f %10d %10d %8d %9d   (picture + text %.2f s, %d chars)%n", nodes,
                (long) nodes * ranksPerNode, mergeNanos / 1e9, mergeNanos / 1e3 / nodes, peak / 1048576.0,
                retained / 1048576.0, bytes / nodes, maxBytes, job.classes().size(), job.missingCount(), renderNanos / 1e9,
                text.length());
    }

    /**
     * One node's summary: its ranks in the common class (view 0), one in a thousand in another hang (views 1
     * and 2), one node in a hundred with a rank whose stack shows a line of its own (a class of its own, one of
     * 50 such lines), and one node in 4096 silent (all its ranks missing, no answer).
     */
    private static JsonObject nodeSummary(int node, int ranksPerNode, List<JsonObject> views, Random random) {
        long first = (long) node * ranksPerNode;
        JsonObject json = new JsonObject();
        json.addProperty("schema", dev.jompd.job.wire.JobWire.SCHEMA);
        JsonArray classes = new JsonArray();
        JsonArray missing = new JsonArray();
        if (node % 4096 == 4095) {
            JsonObject lost = new JsonObject();
            lost.addProperty("reason", "NO_ANSWER");
            lost.addProperty("detail", "node n" + node + " did not answer within 30 s");
            lost.addProperty("ranks", first + "-" + (first + ranksPerNode - 1));
            lost.add("unnumbered", new JsonArray());
            missing.add(lost);
        } else {
            List<long[]> common = new ArrayList<>();
            long odd = -1;
            int oddView = 0;
            if (random.nextInt(1000) < ranksPerNode) { // about one rank in a thousand
                odd = first + random.nextInt(ranksPerNode);
                oddView = 1 + random.nextInt(views.size() - 1);
            }
            long perturbed = node % 100 == 7 ? first + random.nextInt(ranksPerNode) : -1;
            long start = first;
            for (long r = first; r < first + ranksPerNode; r++) {
                if (r == odd || r == perturbed) {
                    if (r > start) {
                        common.add(new long[]{start, r - 1});
                    }
                    start = r + 1;
                }
            }
            if (start < first + ranksPerNode) {
                common.add(new long[]{start, first + ranksPerNode - 1});
            }
            if (!common.isEmpty()) {
                StringBuilder ranks = new StringBuilder();
                for (long[] range : common) {
                    ranks.append(ranks.isEmpty() ? "" : ",").append(range[0]).append(range[0] == range[1] ? "" : "-" + range[1]);
                }
                classes.add(rankClass(ranks.toString(), common.getFirst()[0], node, views.getFirst()));
            }
            if (odd >= 0) {
                classes.add(rankClass(Long.toString(odd), odd, node, views.get(oddView)));
            }
            if (perturbed >= 0 && perturbed != odd) {
                JsonObject view = views.getFirst().deepCopy();
                JsonArray stack = view.getAsJsonArray("threads").get(0).getAsJsonObject().getAsJsonArray("stack");
                JsonObject step = new JsonObject();
                String line = "solver.c:" + (100 + random.nextInt(50));
                step.addProperty("function", "work");
                step.addProperty("source", line);
                step.addProperty("runtime", false);
                step.addProperty("words", "work (" + line + ")");
                stack.add(step);
                classes.add(rankClass(Long.toString(perturbed), perturbed, node, view));
            }
        }
        json.add("classes", classes);
        json.add("missing", missing);
        json.addProperty("duplicates", "");
        return json;
    }

    private static JsonObject rankClass(String ranks, long representative, int node, JsonObject view) {
        JsonObject cls = new JsonObject();
        cls.addProperty("ranks", ranks);
        cls.add("unnumbered", new JsonArray());
        JsonObject id = new JsonObject();
        id.addProperty("rank", representative);
        id.addProperty("host", "n" + node);
        id.addProperty("pid", 10_000 + representative % 64);
        id.addProperty("source", "pid");
        cls.add("representative", id);
        cls.add("view", view);
        return cls;
    }
}
