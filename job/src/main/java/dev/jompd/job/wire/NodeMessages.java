package dev.jompd.job.wire;

import com.google.gson.JsonParser;
import dev.jompd.job.model.JobSummary;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * How a node agent's answer travels back through Slurm's standard output, and how the front end reads it.
 *
 * <p>Slurm carries a task's output in messages of at most 1,024 bytes; a longer line is cut into pieces, and
 * the pieces of several nodes writing at once interleave in srun's output (measured on this machine's Slurm:
 * four nodes each writing one 100 kB line at once gave lines of 193 kB and 18 kB; lines of up to 1,000 bytes
 * never broke in 3,600). So an answer is framed: the summary's JSON, gzip-compressed and base64-encoded, in
 * numbered parts of lines no longer than {@link #MAX_LINE} bytes:
 * <pre>
 *   JOMPD-NODE n1 1/3 H4sIAAAAAAAA...
 *   JOMPD-NODE n1 none              the node runs none of the step's ranks
 *   JOMPD-NODE n1 failed WHY        the agent could not inspect its node
 * </pre>
 * A node's parts may arrive interleaved with other nodes' parts and with other output; a node whose parts do
 * not all arrive, or do not decode, is named as such, never merged in part.
 */
public final class NodeMessages {
    public static final String PREFIX = "JOMPD-NODE ";
    /** The longest line an answer is written in, its newline included (Slurm's message limit is 1,024). */
    public static final int MAX_LINE = 1000;
    /**
     * The most parts one answer may have: 62 MB of base64 (a node summary packs to some kilobytes a rank; the
     * unpacked cap below is reached long before).
     */
    static final int MAX_PARTS = 1 << 16;
    /** The most base64 text held for answers still incomplete, all nodes together. */
    static final long MAX_PENDING_CHARS = 256L << 20;
    /** The most bytes one answer may unpack to: a summary is a few MB at most. */
    static final int MAX_UNPACKED = 128 << 20;
    private static final String NONE = "none";
    private static final String FAILED = "failed";

    private NodeMessages() {}

    /** The lines that carry {@code node}'s summary (or that it has no ranks of the step). */
    public static List<String> answer(String node, Optional<JobSummary> summary) {
        checkNodeName(node);
        if (summary.isEmpty()) {
            return List.of(PREFIX + node + " " + NONE);
        }
        String payload = Base64.getEncoder().encodeToString(gzip(JobWire.toJson(summary.get()).toString()));
        // room for the prefix, the node, "NNNNNN/NNNNNN", the spaces and the newline
        int room = MAX_LINE - (PREFIX.length() + node.length() + 2 * 7 + 3);
        int parts = Math.max(1, (payload.length() + room - 1) / room);
        List<String> lines = new ArrayList<>(parts);
        for (int part = 0; part < parts; part++) {
            String chunk = payload.substring(part * room, Math.min(payload.length(), (part + 1) * room));
            lines.add(PREFIX + node + " " + (part + 1) + "/" + parts + " " + chunk);
        }
        return lines;
    }

    /** The line that says {@code node}'s agent could not inspect its node, and why. */
    public static String failure(String node, String why) {
        checkNodeName(node);
        String head = PREFIX + node + " " + FAILED + " ";
        String text = why.replaceAll("\\s+", " ").strip();
        int room = MAX_LINE - 1 - head.length();
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > room) {
            text = new String(bytes, 0, room - 3, StandardCharsets.UTF_8).replaceAll("\uFFFD$", "") + "...";
        }
        return head + text;
    }

    private static void checkNodeName(String node) {
        if (node.isEmpty() || node.chars().anyMatch(Character::isWhitespace) || node.length() > 200) {
            throw new IllegalArgumentException("not a node name: '" + node + "'");
        }
    }

    /** What the front end knows of one node's answer. */
    public sealed interface Answer {
        /** The node's summary, whole. */
        record Summary(JobSummary summary) implements Answer {}

        /** The node runs none of the step's ranks. */
        record NoRanks() implements Answer {}

        /** The agent said it could not inspect its node. */
        record Failed(String why) implements Answer {}

        /** Parts arrived but not all of them, or they did not decode. */
        record Garbled(String why) implements Answer {}
    }

    /**
     * Reads srun's output line by line and puts each node's parts together: only the step's nodes' answers,
     * in at most {@link #MAX_PARTS} parts of at most {@link #MAX_LINE} bytes, {@link #MAX_PENDING_CHARS} held
     * at once, so that what srun relays cannot fill the front end's heap. Not thread-safe: one reader.
     */
    public static final class Receiver {
        private final Set<String> nodes;
        private final Map<String, Answer> answers = new LinkedHashMap<>();
        private final Map<String, Pending> pending = new LinkedHashMap<>();
        private final List<String> otherOutput = new ArrayList<>();
        private final long maxPendingChars;
        private long pendingChars;

        /** A receiver of the answers of {@code nodes} (the step's); any other node's lines are other output. */
        public Receiver(Collection<String> nodes) {
            this(nodes, MAX_PENDING_CHARS);
        }

        /** With another cap on the text held for incomplete answers (a test's, to reach it quickly). */
        Receiver(Collection<String> nodes, long maxPendingChars) {
            this.nodes = Set.copyOf(nodes);
            this.maxPendingChars = maxPendingChars;
        }

        /** Takes one line of output; returns the node whose answer it completed, if it did. */
        public Optional<String> accept(String line) {
            if (!line.startsWith(PREFIX)) {
                otherOutput.add(line);
                return Optional.empty();
            }
            String[] fields = line.substring(PREFIX.length()).split(" ", 3);
            if (fields.length < 2 || !nodes.contains(fields[0]) || answers.containsKey(fields[0])) {
                otherOutput.add(line);
                return Optional.empty();
            }
            String node = fields[0];
            if (fields[1].equals(NONE)) {
                return complete(node, new Answer.NoRanks());
            }
            if (fields[1].equals(FAILED)) {
                return complete(node, new Answer.Failed(fields.length > 2 ? fields[2] : "(no reason given)"));
            }
            int slash = fields[1].indexOf('/');
            if (fields.length < 3 || slash <= 0 || !fields[1].matches("\\d{1,6}/\\d{1,6}")) {
                return complete(node, new Answer.Garbled("an unreadable line: " + abbreviate(line)));
            }
            int part = Integer.parseInt(fields[1].substring(0, slash));
            int parts = Integer.parseInt(fields[1].substring(slash + 1));
            if (parts > MAX_PARTS || line.length() >= MAX_LINE) {
                return garble(node, parts > MAX_PARTS ? "it claims " + parts + " parts, more than " + MAX_PARTS
                        : "a part of " + line.length() + " characters, longer than any the agent writes");
            }
            if (pendingChars + fields[2].length() > maxPendingChars) {
                return garble(node, "the answers still incomplete would hold more than " + maxPendingChars + " characters");
            }
            Pending held = pending.computeIfAbsent(node, n -> new Pending(new String[parts]));
            String[] chunks = held.chunks;
            if (parts != chunks.length || part < 1 || part > parts || chunks[part - 1] != null) {
                return garble(node, "part " + fields[1] + " does not fit the parts seen before");
            }
            chunks[part - 1] = fields[2];
            held.arrived++;
            pendingChars += fields[2].length();
            if (held.arrived < parts) {
                return Optional.empty();
            }
            forget(node);
            try {
                String json = gunzip(Base64.getDecoder().decode(String.join("", chunks)));
                return complete(node, new Answer.Summary(JobWire.summary(JsonParser.parseString(json).getAsJsonObject())));
            } catch (IOException | RuntimeException e) {
                return complete(node, new Answer.Garbled("its " + parts + " parts do not decode: " + e.getMessage()));
            }
        }

        private Optional<String> garble(String node, String why) {
            forget(node);
            return complete(node, new Answer.Garbled(why));
        }

        /** Drops the node's parts held so far. */
        private void forget(String node) {
            Pending held = pending.remove(node);
            if (held != null) {
                for (String chunk : held.chunks) {
                    pendingChars -= chunk == null ? 0 : chunk.length();
                }
            }
        }

        /** A node's parts so far, and how many (not counted again at each part: up to 65,536 of them). */
        private static final class Pending {
            final String[] chunks;
            int arrived;

            Pending(String[] chunks) {
                this.chunks = chunks;
            }
        }

        private Optional<String> complete(String node, Answer answer) {
            answers.put(node, answer);
            return Optional.of(node);
        }

        /** Every node's answer so far; a node with parts still missing is {@link Answer.Garbled}. */
        public Map<String, Answer> answers() {
            Map<String, Answer> all = new LinkedHashMap<>(answers);
            pending.forEach((node, held) -> all.put(node,
                    new Answer.Garbled("only " + held.arrived + " of its " + held.chunks.length + " parts arrived")));
            return all;
        }

        /** Lines that were not answers (an agent's or srun's own words), in order. */
        public List<String> otherOutput() {
            return otherOutput;
        }

        private static String abbreviate(String line) {
            return line.length() <= 120 ? line : line.substring(0, 117) + "...";
        }
    }

    private static byte[] gzip(String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static String gunzip(byte[] data) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(data))) {
            // bounded: a summary is a few MB at most; a corrupt stream must not fill the heap
            byte[] text = in.readNBytes(MAX_UNPACKED);
            if (in.read() != -1) {
                throw new IOException("larger than " + (MAX_UNPACKED >> 20) + " MiB once unpacked");
            }
            return new String(text, StandardCharsets.UTF_8);
        }
    }
}
