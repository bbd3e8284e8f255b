package dev.jompd.core.recorder;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.core.CoreFileAddressSpace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Arbitrary memory as a target with the jompd-recorder: {@link Recorder#find} may reject it only with a
 * {@link TargetException} (RecorderFormatException and the reads it could not make), never another exception
 * (the report would end in an internal error), never hang or fill the heap. An input is the descriptor's
 * address (u64) and memory segments, each a u64 address, a u16 length and the bytes; the rest of the address
 * space cannot be read. The seed in RecorderFuzzTestInputs/ is what Recorder.find read of a real recording (the
 * recorder_events fixture's core, 2 threads: {@link #main} writes it). JAZZER_FUZZ=1 fuzzes for maxDuration.
 */
public class RecorderFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void recorderReaderRejectsArbitraryMemoryOnlyWithTargetExceptions(byte[] data) {
        recorderReader(data);
    }

    /** The property, for {@link dev.jompd.core.ParsersFuzzTest} too. */
    public static void recorderReader(byte[] data) {
        try {
            read(data);
        } catch (TargetException expected) {
            // the documented rejection
        }
    }

    /** The seed is read whole: a harness whose memory the reader could not use would fuzz nothing. */
    @org.junit.jupiter.api.Test
    void theSeedIsARealRecordingOfTwoThreads() throws IOException {
        try (var in = RecorderFuzzTest.class.getResourceAsStream(
                "RecorderFuzzTestInputs/recorderReaderRejectsArbitraryMemoryOnlyWithTargetExceptions/recorder-events-2-threads")) {
            RecorderSnapshot snapshot = read(in.readAllBytes()).orElseThrow();
            org.assertj.core.api.Assertions.assertThat(snapshot.threads()).hasSize(2)
                    .allSatisfy(thread -> org.assertj.core.api.Assertions.assertThat(thread.events()).isNotEmpty());
        }
    }

    private static Optional<RecorderSnapshot> read(byte[] data) {
        ByteBuffer input = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        if (input.remaining() < 8) {
            return Optional.empty();
        }
        long descriptor = input.getLong();
        TreeMap<Long, byte[]> segments = new TreeMap<>(Long::compareUnsigned);
        while (input.remaining() >= 10) {
            long address = input.getLong();
            byte[] bytes = new byte[Math.min(Short.toUnsignedInt(input.getShort()), input.remaining())];
            input.get(bytes);
            segments.put(address, bytes);
        }
        return Recorder.find(new SegmentSpace(descriptor, segments));
    }

    /** Memory made of segments; the descriptor symbol where the input says. */
    private record SegmentSpace(long descriptor, TreeMap<Long, byte[]> segments) implements AddressSpace {
        @Override public String name() { return "fuzz"; }
        @Override public TargetArchitecture architecture() { return TargetArchitecture.X86_64_LINUX; }
        @Override public List<LoadedModule> modules() { return List.of(); }
        @Override public List<TargetThread> threads() { return List.of(); }
        @Override public void resumed() { }
        @Override public void close() { }

        @Override
        public Optional<TargetSymbol> lookupSymbol(String name) {
            return name.equals(Recorder.DESCRIPTOR_SYMBOL)
                    ? Optional.of(new TargetSymbol(name, descriptor, 40, "libjompd-recorder.so", false)) : Optional.empty();
        }

        @Override
        public Optional<TargetSymbol> lookupSymbol(String name, String module) {
            return lookupSymbol(name);
        }

        @Override
        public void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
            Map.Entry<Long, byte[]> segment = segments.floorEntry(address);
            long into = segment == null ? -1 : address - segment.getKey();
            if (segment == null || into < 0 || into + length > segment.getValue().length) {
                throw new MemoryReadException(name(), address, length, "not in the input's memory");
            }
            System.arraycopy(segment.getValue(), (int) into, buffer, offset, length);
        }
    }

    /**
     * Writes a seed: what {@link Recorder#find} reads of the core {@code args[0]}, every read a segment (merged
     * where they touch), to {@code args[1]}.
     */
    public static void main(String[] args) throws IOException {
        TreeMap<Long, byte[]> reads = new TreeMap<>(Long::compareUnsigned);
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(Path.of(args[0]))) {
            AddressSpace recording = new AddressSpace() {
                @Override public String name() { return core.name(); }
                @Override public TargetArchitecture architecture() { return core.architecture(); }
                @Override public Optional<TargetSymbol> lookupSymbol(String name) { return core.lookupSymbol(name); }
                @Override public Optional<TargetSymbol> lookupSymbol(String name, String module) { return core.lookupSymbol(name, module); }
                @Override public List<LoadedModule> modules() { return core.modules(); }
                @Override public List<TargetThread> threads() { return core.threads(); }
                @Override public void resumed() { }
                @Override public void close() { }

                @Override
                public void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
                    core.read(address, buffer, offset, length);
                    byte[] copy = new byte[length];
                    System.arraycopy(buffer, offset, copy, 0, length);
                    reads.put(address, copy);
                }
            };
            Recorder.find(recording).orElseThrow();
            long descriptor = core.lookupSymbol(Recorder.DESCRIPTOR_SYMBOL).orElseThrow().address();
            ByteArrayOutputStream seed = new ByteArrayOutputStream();
            ByteBuffer word = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            seed.writeBytes(word.putLong(0, descriptor).array());
            for (Map.Entry<Long, byte[]> read : merge(reads).entrySet()) {
                for (int at = 0; at < read.getValue().length; at += 0xffff) {
                    int length = Math.min(0xffff, read.getValue().length - at);
                    seed.writeBytes(word.putLong(0, read.getKey() + at).array());
                    seed.write(length);
                    seed.write(length >>> 8);
                    seed.write(read.getValue(), at, length);
                }
            }
            Files.write(Path.of(args[1]), seed.toByteArray());
        }
    }

    private static TreeMap<Long, byte[]> merge(TreeMap<Long, byte[]> reads) {
        TreeMap<Long, byte[]> merged = new TreeMap<>(Long::compareUnsigned);
        long start = 0;
        ByteArrayOutputStream run = null;
        for (Map.Entry<Long, byte[]> read : reads.entrySet()) {
            if (run != null && read.getKey() <= start + run.size()) {
                int overlap = (int) (start + run.size() - read.getKey());
                if (overlap < read.getValue().length) {
                    run.write(read.getValue(), overlap, read.getValue().length - overlap);
                }
                continue;
            }
            if (run != null) {
                merged.put(start, run.toByteArray());
            }
            start = read.getKey();
            run = new ByteArrayOutputStream();
            run.writeBytes(read.getValue());
        }
        if (run != null) {
            merged.put(start, run.toByteArray());
        }
        return merged;
    }
}
