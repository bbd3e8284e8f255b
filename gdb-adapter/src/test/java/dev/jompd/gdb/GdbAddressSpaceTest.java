package dev.jompd.gdb;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The remote backend against a scripted gdb that holds a small made-up memory. */
class GdbAddressSpaceTest {
    private static final long R_DEBUG = 0x7000_0000_1000L;
    private static final long LINK_MAP = 0x7000_0000_2000L;

    /** gdb's side: answers read, symbol and threads questions from {@link #memory} on its own thread. */
    static final class FakeGdb implements AutoCloseable {
        final TreeMap<Long, byte[]> memory = new TreeMap<>();
        final AtomicInteger reads = new AtomicInteger();
        final GdbChannel channel;
        private final Thread responder;

        FakeGdb() throws IOException {
            PipedInputStream toEngine = new PipedInputStream(1 << 20);
            PipedOutputStream gdbWrites = new PipedOutputStream(toEngine);
            PipedInputStream fromEngine = new PipedInputStream(1 << 20);
            PipedOutputStream engineWrites = new PipedOutputStream(fromEngine);
            channel = new GdbChannel(toEngine, engineWrites);
            responder = Thread.ofPlatform().daemon().start(() -> respond(fromEngine, gdbWrites));
        }

        void map(long address, byte[] bytes) {
            memory.put(address, bytes);
        }

        private void respond(PipedInputStream in, PipedOutputStream out) {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                 Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
                for (String line; (line = reader.readLine()) != null; ) {
                    JsonObject question = JsonParser.parseString(line).getAsJsonObject();
                    JsonObject answer = new JsonObject();
                    answer.add("answer", question.get("ask"));
                    switch (question.get("what").getAsString()) {
                        case "read" -> {
                            reads.incrementAndGet();
                            long address = Long.parseUnsignedLong(question.get("address").getAsString().substring(2), 16);
                            Optional<byte[]> bytes = read(address, question.get("length").getAsInt());
                            if (bytes.isPresent()) {
                                answer.addProperty("bytes", Base64.getEncoder().encodeToString(bytes.get()));
                            } else {
                                answer.addProperty("error", "Cannot access memory at address 0x" + Long.toHexString(address));
                            }
                        }
                        case "symbol" -> answer.addProperty("address", "0x" + Long.toHexString(R_DEBUG));
                        case "threads" -> {
                            JsonArray threads = new JsonArray();
                            JsonObject thread = new JsonObject();
                            thread.addProperty("num", 1);
                            thread.addProperty("lwp", 4711);
                            thread.addProperty("pthread", "0x7fff00001000");
                            threads.add(thread);
                            answer.add("threads", threads);
                        }
                        default -> answer.addProperty("error", "unknown question");
                    }
                    writer.write(answer + "\n");
                    writer.flush();
                }
            } catch (IOException e) {
                // the engine side closed
            }
        }

        private Optional<byte[]> read(long address, int length) {
            Map.Entry<Long, byte[]> region = memory.floorEntry(address);
            if (region == null || address + length > region.getKey() + region.getValue().length) {
                return Optional.empty();
            }
            byte[] bytes = new byte[length];
            System.arraycopy(region.getValue(), (int) (address - region.getKey()), bytes, 0, length);
            return Optional.of(bytes);
        }

        @Override
        public void close() {
            responder.interrupt();
        }
    }

    private FakeGdb gdb;

    @AfterEach
    void stopGdb() {
        if (gdb != null) {
            gdb.close();
        }
    }

    private GdbAddressSpace space(Optional<Path> executable) throws IOException {
        gdb = new FakeGdb();
        return new GdbAddressSpace("remote:test", "process 1 on test", gdb.channel, new GdbThreads(gdb.channel), executable);
    }

    private static byte[] filled(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 7 + seed);
        }
        return bytes;
    }

    @Test
    void memoryComesInBlocksCachedUntilTheTargetResumes() throws IOException {
        GdbAddressSpace space = space(Optional.empty());
        long base = 0x5555_0000_0000L;
        gdb.map(base, filled(2 * GdbAddressSpace.BLOCK_SIZE, 3));
        byte[] first = new byte[8];
        byte[] second = new byte[8];
        space.read(base + 16, first, 0, 8);
        space.read(base + 4000, second, 0, 8);
        assertThat(gdb.reads.get()).isEqualTo(1);
        assertThat(first[0]).isEqualTo((byte) (16 * 7 + 3));
        space.resumed();
        space.read(base + 16, first, 0, 8);
        assertThat(gdb.reads.get()).isEqualTo(2);
    }

    @Test
    void aBlockMappedOnlyInPartIsReadExactly() throws IOException {
        GdbAddressSpace space = space(Optional.empty());
        long base = 0x5555_0000_0000L;
        gdb.map(base, filled(100, 1)); // the mapping ends 100 bytes into its block
        byte[] bytes = new byte[10];
        space.read(base + 90, bytes, 0, 10);
        assertThat(bytes[0]).isEqualTo((byte) (90 * 7 + 1));
        assertThatThrownBy(() -> space.read(base + 95, new byte[10], 0, 10)).isInstanceOf(MemoryReadException.class)
                .hasMessageContaining("0x" + Long.toHexString(base + 95)).hasMessageContaining("remote:test");
    }

    @Test
    void modulesComeFromTheLinkMapWithTheirLoadBias() throws IOException {
        Path executable = Path.of(ProcessHandle.current().info().command().orElseThrow());
        Path library = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        GdbAddressSpace space = space(Optional.of(executable));
        // r_debug { int r_version; link_map *r_map }
        gdb.map(R_DEBUG, longs(1, LINK_MAP));
        // link_map { l_addr, l_name, l_ld, l_next, l_prev }: the executable (empty name), then libjvm.so,
        // then the vDSO (no file).
        long names = LINK_MAP + 0x400;
        byte[] map = new byte[0x800];
        ByteBuffer buffer = ByteBuffer.wrap(map).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(0, 0x5555_5555_4000L).putLong(8, names).putLong(24, LINK_MAP + 0x40);
        buffer.putLong(0x40, 0x7fff_f000_0000L).putLong(0x48, names + 0x10).putLong(0x58, LINK_MAP + 0x80);
        buffer.putLong(0x80, 0x7fff_ffff_0000L).putLong(0x88, names + 0x200).putLong(0x98, 0);
        byte[] path = library.toString().getBytes(StandardCharsets.UTF_8);
        System.arraycopy(path, 0, map, 0x410, path.length);
        System.arraycopy("linux-vdso.so.1".getBytes(StandardCharsets.UTF_8), 0, map, 0x600, 15);
        gdb.map(LINK_MAP, map);

        List<LoadedModule> modules = space.modules();
        assertThat(modules).extracting(LoadedModule::path).containsExactly(executable, library);
        assertThat(modules).extracting(LoadedModule::loadBias).containsExactly(0x5555_5555_4000L, 0x7fff_f000_0000L);
        assertThat(space.lookupSymbol("JNI_CreateJavaVM", "libjvm")).hasValueSatisfying(symbol ->
                assertThat(Long.compareUnsigned(symbol.address(), 0x7fff_f000_0000L)).isPositive());
        assertThat(space.threads()).containsExactly(TargetThread.identity(4711, 0x7fff_0000_1000L));
    }

    private static byte[] longs(long... values) {
        ByteBuffer buffer = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long value : values) {
            buffer.putLong(value);
        }
        return buffer.array();
    }
}
