package dev.jompd.core.target.core;

import dev.jompd.core.elf.ByteView;
import dev.jompd.core.elf.ProgramHeader;
import dev.jompd.core.target.MemoryReadException;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A core's memory as the core's segments over the mapped files, on hand-made bytes: every byte's origin
 * is known by construction (the core's bytes are 0x10+i, the file's 0x80+i).
 */
class SplicedMemoryTest {
    private static final long MAPPING = 0x40_0000L;
    private static final int PAGE = 0x1000;

    /** A core file of {@code size} bytes, byte i being {@code 0x10 + i}. */
    private static ByteView core(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (0x10 + i);
        }
        return ByteView.of(bytes, "core");
    }

    /** A mapped file of three pages, byte i being {@code 0x80 + i}. */
    private static final byte[] FILE = new byte[3 * PAGE];

    static {
        for (int i = 0; i < FILE.length; i++) {
            FILE[i] = (byte) (0x80 + i);
        }
    }

    private static ProgramHeader load(long fileOffset, long address, long fileSize, long memorySize) {
        return new ProgramHeader(0, ProgramHeader.PT_LOAD, ProgramHeader.PF_R, fileOffset, address, 0, fileSize, memorySize, PAGE);
    }

    /** The file mapped at {@link #MAPPING} (three pages from offset 0); the core holds its middle page at core offset 0x100. */
    private static SplicedMemory spliced(ByteView core, AtomicInteger fileOpens) {
        FileMapping mapping = new FileMapping(MAPPING, MAPPING + 3 * PAGE, 0, "/lib/libx.so");
        return new SplicedMemory("core:test", core, List.of(load(0x100, MAPPING + PAGE, PAGE, PAGE)), List.of(mapping),
                (m, address, length) -> {
                    fileOpens.incrementAndGet();
                    return ByteView.of(FILE, "/lib/libx.so");
                });
    }

    private static byte[] read(SplicedMemory memory, long address, int length) {
        byte[] buffer = new byte[length];
        memory.read(address, buffer, 0, length);
        return buffer;
    }

    @Test
    void theCoresCopyWinsAndTheMappedFileFillsWhatTheCoreLeftOut() {
        AtomicInteger opens = new AtomicInteger();
        SplicedMemory memory = spliced(core(0x100 + PAGE), opens);

        // The last 4 bytes of the first page (file), the first 4 of the second (core).
        byte[] across = read(memory, MAPPING + PAGE - 4, 8);

        byte[] expected = new byte[8];
        for (int i = 0; i < 4; i++) {
            expected[i] = FILE[PAGE - 4 + i];
            expected[4 + i] = (byte) (0x10 + 0x100 + i);
        }
        assertThat(across).containsExactly(expected);
        // From the core through to the third page (file again).
        assertThat(read(memory, MAPPING + 2 * PAGE - 2, 4)).containsExactly(
                (byte) (0x10 + 0x100 + PAGE - 2), (byte) (0x10 + 0x100 + PAGE - 1), FILE[2 * PAGE], FILE[2 * PAGE + 1]);
        assertThat(opens).as("the file is found once, then kept").hasValue(1);
    }

    @Test
    void readingOnlyTheCoreNeverTouchesTheFiles() {
        AtomicInteger opens = new AtomicInteger();
        SplicedMemory memory = spliced(core(0x100 + PAGE), opens);

        assertThat(memory.readCoreOnly(MAPPING + PAGE, 4)).hasValueSatisfying(bytes ->
                assertThat(bytes).containsExactly((byte) (0x10 + 0x100), (byte) (0x10 + 0x101), (byte) (0x10 + 0x102), (byte) (0x10 + 0x103)));
        assertThat(memory.readCoreOnly(MAPPING, 4)).isEmpty();
        assertThat(memory.readCoreOnly(MAPPING + 2 * PAGE - 2, 4)).as("runs out of the core").isEmpty();
        assertThat(opens).hasValue(0);
    }

    @Test
    void aTruncatedCoreKeepsWhatItHoldsAndSaysItIsTruncated() {
        // The core ends half-way through the segment; no file mapping behind it.
        ByteView core = core(0x100 + PAGE / 2);
        SplicedMemory memory = new SplicedMemory("core:test", core, List.of(load(0x100, MAPPING, PAGE, PAGE)), List.of(),
                (m, address, length) -> { throw new AssertionError("no mapping to read"); });

        assertThat(read(memory, MAPPING + PAGE / 2 - 1, 1)).containsExactly((byte) (0x10 + 0x100 + PAGE / 2 - 1));
        assertThatThrownBy(() -> read(memory, MAPPING + PAGE / 2, 1))
                .isInstanceOf(MemoryReadException.class).hasMessageContaining("truncated");
    }

    @Test
    void bytesInNeitherTheCoreNorAFileAreAnErrorNeverZeros() {
        SplicedMemory memory = spliced(core(0x100 + PAGE), new AtomicInteger());

        assertThatThrownBy(() -> read(memory, 0x1000, 8)).isInstanceOf(MemoryReadException.class)
                .hasMessageContaining("neither in the core nor in a file");
        // Running from the mapping's end into nothing fails whole.
        assertThatThrownBy(() -> read(memory, MAPPING + 3 * PAGE - 4, 8)).isInstanceOf(MemoryReadException.class);
    }

    @Test
    void aMappingBeyondTheFilesEndIsAnError() {
        FileMapping mapping = new FileMapping(MAPPING, MAPPING + 4 * PAGE, 0, "/lib/short.so");
        SplicedMemory memory = new SplicedMemory("core:test", core(16), List.of(), List.of(mapping),
                (m, address, length) -> ByteView.of(Arrays.copyOf(FILE, PAGE), "/lib/short.so"));

        assertThat(read(memory, MAPPING + 8, 2)).containsExactly(FILE[8], FILE[9]);
        assertThatThrownBy(() -> read(memory, MAPPING + PAGE, 8)).isInstanceOf(MemoryReadException.class)
                .hasMessageContaining("beyond its end");
    }

    @Test
    void whyAFileCannotBeReadReachesTheCaller() {
        FileMapping mapping = new FileMapping(MAPPING, MAPPING + PAGE, 0, "/lib/gone.so");
        SplicedMemory memory = new SplicedMemory("core:test", core(16), List.of(), List.of(mapping),
                (m, address, length) -> { throw new MemoryReadException("core:test", address, length, "the mapped file is gone"); });

        assertThatThrownBy(() -> read(memory, MAPPING, 8)).isInstanceOf(MemoryReadException.class).hasMessageContaining("gone");
        assertThat(memory.mappingAt(MAPPING + 5)).map(FileMapping::path).contains("/lib/gone.so");
        assertThat(memory.mappingAt(MAPPING + PAGE)).isEmpty();
    }
}
