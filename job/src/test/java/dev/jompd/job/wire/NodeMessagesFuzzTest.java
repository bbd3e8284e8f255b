package dev.jompd.job.wire;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Arbitrary output of srun, line by line, into the front end's {@link NodeMessages.Receiver}: whatever arrives,
 * each node's answer is a summary, none, failed or garbled, and nothing is thrown (a part that does not decode
 * is a garbled answer, never an exception out of the reader thread). Seeds in NodeMessagesFuzzTestInputs/: the
 * framed answers of small summaries, interleaved. JAZZER_FUZZ=1 fuzzes for maxDuration.
 */
class NodeMessagesFuzzTest {
    private static final List<String> NODES = List.of("n1", "n2", "node-3");

    @FuzzTest(maxDuration = "5s")
    void anySrunOutputGivesEachNodeAnAnswerAndThrowsNothing(byte[] data) {
        NodeMessages.Receiver receiver = new NodeMessages.Receiver(NODES);
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n", -1)) {
            receiver.accept(line);
        }
        receiver.answers().forEach((node, answer) -> {
            if (!NODES.contains(node) || answer == null) {
                throw new IllegalStateException("an answer of " + node + ": " + answer);
            }
        });
    }

    /** Writes the seeds into {@code args[0]}: answers of small summaries as agents frame them. */
    public static void main(String[] args) throws java.io.IOException {
        java.nio.file.Path directory = java.nio.file.Path.of(args[0]);
        JobSummary one = JobSummary.of(new RankInspection.Missing(new RankId(java.util.OptionalInt.of(0), "n1", 4711,
                "pid 4711"), RankInspection.MissingReason.UNREADABLE, "rank 0 on n1: permission denied"));
        StringBuilder simple = new StringBuilder();
        NodeMessages.answer("n1", java.util.Optional.of(one)).forEach(line -> simple.append(line).append('\n'));
        NodeMessages.answer("n2", java.util.Optional.empty()).forEach(line -> simple.append(line).append('\n'));
        simple.append(NodeMessages.failure("node-3", "scontrol listpids 5.0 node-3 failed: no such step")).append('\n');
        java.nio.file.Files.writeString(directory.resolve("one-of-each"), simple);
        JobSummary many = null;
        for (int rank = 0; rank < 40; rank++) {
            JobSummary next = JobSummary.of(new RankInspection.Missing(new RankId(java.util.OptionalInt.of(rank), "node-3",
                    1000 + rank, "pid " + (1000 + rank)), RankInspection.MissingReason.NO_ANSWER, "rank " + rank + " gone " + Long.toHexString(rank * 0x9E3779B97F4A7C15L) + Long.toHexString(rank * 0xC2B2AE3D27D4EB4FL)));
            many = many == null ? next : many.merge(next);
        }
        List<String> parts = NodeMessages.answer("node-3", java.util.Optional.of(many));
        StringBuilder interleaved = new StringBuilder();
        for (int i = parts.size() - 1; i >= 0; i--) {
            interleaved.append(parts.get(i)).append('\n');
            if (i % 2 == 0) {
                interleaved.append("srun: warning: step 5.1 is running\n");
            }
        }
        java.nio.file.Files.writeString(directory.resolve("parts-reversed"), interleaved);
    }
}
