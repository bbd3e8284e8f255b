package dev.jompd.job.wire;

import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The framing of node answers through srun's output: lines short enough for Slurm's 1,024-byte messages, and
 * answers put together again whatever the interleaving (JobIT proves it through a real Slurm).
 */
class NodeMessagesTest {
    /** A summary of many ranks with long, distinct details, so that it needs many parts. */
    private static JobSummary bigSummary(String node, int ranks) {
        JobSummary summary = null;
        for (int r = 0; r < ranks; r++) {
            JobSummary one = JobSummary.of(new RankInspection.Missing(new RankId(OptionalInt.of(r), node, 1000 + r, "pid " + (1000 + r)),
                    RankInspection.MissingReason.UNREADABLE, "rank " + r + " on " + node + ": " + "détail ".repeat(40 + r % 7)));
            summary = summary == null ? one : summary.merge(one);
        }
        return summary;
    }

    @Test
    void everyLineFitsOneSlurmMessageAndInterleavedAnswersComeBackWhole() {
        JobSummary a = bigSummary("n1", 300);
        JobSummary b = bigSummary("node-with-a-long-name-017", 200);
        List<String> linesA = NodeMessages.answer("n1", Optional.of(a));
        List<String> linesB = NodeMessages.answer("node-with-a-long-name-017", Optional.of(b));
        assertThat(linesA.size()).as("a summary this size takes several parts").isGreaterThan(3);
        for (String line : concat(linesA, linesB)) {
            assertThat(line.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + 1).isLessThanOrEqualTo(1000);
        }
        // b's parts in reverse order, interleaved with a's, with srun's own words between them
        List<String> mixed = new ArrayList<>();
        Random random = new Random(7);
        List<String> restA = new ArrayList<>(linesA);
        List<String> restB = new ArrayList<>(linesB.reversed());
        while (!restA.isEmpty() || !restB.isEmpty()) {
            List<String> from = restB.isEmpty() || (!restA.isEmpty() && random.nextBoolean()) ? restA : restB;
            mixed.add(from.removeFirst());
            if (random.nextInt(5) == 0) {
                mixed.add("srun: warning: something");
            }
        }
        NodeMessages.Receiver receiver = new NodeMessages.Receiver(List.of("n1", "node-with-a-long-name-017"));
        List<String> completed = new ArrayList<>();
        mixed.forEach(line -> receiver.accept(line).ifPresent(completed::add));
        assertThat(completed).containsExactlyInAnyOrder("n1", "node-with-a-long-name-017");
        assertThat(JobWire.toJson(summaryOf(receiver, "n1"))).isEqualTo(JobWire.toJson(a));
        assertThat(JobWire.toJson(summaryOf(receiver, "node-with-a-long-name-017"))).isEqualTo(JobWire.toJson(b));
        assertThat(receiver.otherOutput()).allMatch(l -> l.startsWith("srun:"));
    }

    @Test
    void aNodeWithoutRanksAFailedAgentAndAnAnswerCutShortAreToldApart() {
        NodeMessages.Receiver receiver = new NodeMessages.Receiver(List.of("n1", "n2", "n3", "n4", "n5", "n6"));
        NodeMessages.answer("n1", Optional.empty()).forEach(receiver::accept);
        receiver.accept(NodeMessages.failure("n2", "scontrol listpids 5.0 n2 failed:\n no such step " + "x".repeat(3000)));
        List<String> parts = NodeMessages.answer("n3", Optional.of(bigSummary("n3", 100)));
        parts.subList(0, parts.size() - 1).forEach(receiver::accept);
        // a line cut by a foreign writer: its part number no longer fits
        receiver.accept("JOMPD-NODE n4 1/2 H4sI");
        receiver.accept("JOMPD-NODE n4 1/3 AAAA");
        receiver.accept("JOMPD-NODE n5 1/1 not-base64-!!");

        var answers = receiver.answers();
        assertThat(answers.get("n1")).isInstanceOf(NodeMessages.Answer.NoRanks.class);
        assertThat(answers.get("n2")).isInstanceOfSatisfying(NodeMessages.Answer.Failed.class, f -> {
            assertThat(f.why()).startsWith("scontrol listpids 5.0 n2 failed: no such step").endsWith("...");
        });
        assertThat(NodeMessages.failure("n2", "y".repeat(5000)).length() + 1).isLessThanOrEqualTo(1000);
        assertThat(answers.get("n3")).isInstanceOfSatisfying(NodeMessages.Answer.Garbled.class,
                g -> assertThat(g.why()).isEqualTo("only " + (parts.size() - 1) + " of its " + parts.size() + " parts arrived"));
        assertThat(answers.get("n4")).isInstanceOfSatisfying(NodeMessages.Answer.Garbled.class,
                g -> assertThat(g.why()).contains("does not fit"));
        assertThat(answers.get("n5")).isInstanceOfSatisfying(NodeMessages.Answer.Garbled.class,
                g -> assertThat(g.why()).contains("do not decode"));
        assertThat(answers).doesNotContainKey("n6");
    }

    @Test
    void onlyTheStepsNodesAreHeardAndNoAnswerHoldsMoreThanItsCaps() {
        List<String> flooders = List.of("f1", "f2", "f3", "f4", "f5");
        List<String> step = new ArrayList<>(List.of("n1", "n2", "n3"));
        step.addAll(flooders);
        long cap = 1 << 20; // as MAX_PENDING_CHARS (256 MiB), reached sooner
        NodeMessages.Receiver receiver = new NodeMessages.Receiver(step, cap);
        List<String> other = List.of("JOMPD-NODE intruder 1/1 H4sI", "JOMPD-NODE n9 none");
        other.forEach(receiver::accept);
        // the most parts a line may claim, and one more
        receiver.accept("JOMPD-NODE n1 1/65537 AAAA");
        receiver.accept("JOMPD-NODE n2 1/65536 AAAA");
        // a part longer than any line the agent writes (Slurm relays at most 1,024 bytes a message)
        receiver.accept("JOMPD-NODE n3 1/2 " + "A".repeat(NodeMessages.MAX_LINE));
        // parts that fit, from five nodes at once, more than the front end holds: the node whose part crosses
        // the cap is garbled, the others go on
        String chunk = "A".repeat(NodeMessages.MAX_LINE - 40);
        long fitting = cap / chunk.length();
        List<String> completed = new ArrayList<>();
        long accepted = 0;
        for (int part = 1; part <= NodeMessages.MAX_PARTS && completed.isEmpty(); part++) {
            for (String node : flooders) {
                receiver.accept("JOMPD-NODE " + node + " " + part + "/" + NodeMessages.MAX_PARTS + " " + chunk)
                        .ifPresent(completed::add);
                if (completed.isEmpty()) {
                    accepted++;
                }
            }
        }
        var answers = receiver.answers();
        assertThat(answers.keySet()).containsExactlyInAnyOrderElementsOf(step);
        assertThat(receiver.otherOutput()).isEqualTo(other);
        assertThat(answers.get("n1")).isEqualTo(new NodeMessages.Answer.Garbled("it claims 65537 parts, more than 65536"));
        assertThat(answers.get("n2")).isEqualTo(new NodeMessages.Answer.Garbled("only 1 of its 65536 parts arrived"));
        assertThat(answers.get("n3")).isEqualTo(new NodeMessages.Answer.Garbled(
                "a part of " + (18 + NodeMessages.MAX_LINE) + " characters, longer than any the agent writes"));
        assertThat(accepted).isEqualTo(fitting);
        String crossing = flooders.get((int) (fitting % flooders.size()));
        assertThat(completed).containsExactly(crossing);
        assertThat(answers.get(crossing)).isEqualTo(new NodeMessages.Answer.Garbled(
                "the answers still incomplete would hold more than 1048576 characters"));
    }

    private static JobSummary summaryOf(NodeMessages.Receiver receiver, String node) {
        assertThat(receiver.answers().get(node)).isInstanceOf(NodeMessages.Answer.Summary.class);
        return ((NodeMessages.Answer.Summary) receiver.answers().get(node)).summary();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
