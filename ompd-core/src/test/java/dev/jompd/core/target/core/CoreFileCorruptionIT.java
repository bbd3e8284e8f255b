package dev.jompd.core.target.core;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Damaged copies of a real core (truncated at many points, headers and notes overwritten) give the
 * documented exceptions (ElfFormatException, MemoryReadException, ...) and nothing else, quickly. The
 * anchors: the undamaged core is read in full, and damage that leaves the headers and notes alone still
 * opens (so a backend that rejected every file could not pass).
 */
class CoreFileCorruptionIT {
    private static final Duration NO_HANG = Duration.ofSeconds(30);

    @TempDir
    static Path directory;
    static Path core;
    static byte[] head;

    @BeforeAll
    static void makeCore() throws IOException {
        core = CoreFixture.build(directory).anyCore();
        try (RandomAccessFile file = new RandomAccessFile(core.toFile(), "r")) {
            head = new byte[(int) Math.min(file.length(), 1 << 20)];
            file.readFully(head);
        }
    }

    private static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static CoreExercise.Outcome exerciseWithoutHanging(Path damaged) {
        return assertTimeoutPreemptively(NO_HANG, () -> CoreExercise.exercise(damaged), () -> "exercising " + damaged);
    }

    @Test
    void theUndamagedCoreIsReadInFull() {
        CoreExercise.Outcome outcome = exerciseWithoutHanging(core);

        assertThat(outcome.opened()).isTrue();
        assertThat(outcome.threads()).as("threads").isPositive();
        assertThat(outcome.modules()).as("modules").isGreaterThanOrEqualTo(2); // the fixture and libc at least
        assertThat(outcome.symbols()).as("symbols found").isPositive();
        assertThat(outcome.reads()).as("reads at the addresses the core names").isPositive();
    }

    @Test
    void truncatedCopiesGiveOnlyDocumentedExceptions() throws IOException {
        long size = Files.size(core);
        ByteBuffer header = le(head);
        long programHeaders = header.getLong(32);
        int programHeaderCount = Short.toUnsignedInt(header.getShort(56));
        long noteOffset = header.getLong((int) programHeaders + 8);
        long noteSize = header.getLong((int) programHeaders + 32);
        List<Long> cuts = new ArrayList<>(List.of(0L, 1L, 4L, 16L, 63L, 64L, 64L + 56, programHeaders + 56L * programHeaderCount - 1,
                noteOffset + 5, noteOffset + noteSize / 2, noteOffset + noteSize - 1, noteOffset + noteSize,
                size / 4, size / 2, size * 3 / 4, size - 4097, size - 1));
        int openedPastTheNotes = 0;
        for (long cut : cuts) {
            if (cut < 0 || cut > size) {
                continue;
            }
            Path truncated = directory.resolve("truncated-" + cut);
            try (var in = Files.newInputStream(core); var out = Files.newOutputStream(truncated)) {
                byte[] buffer = new byte[1 << 16];
                long remaining = cut;
                while (remaining > 0) {
                    int read = in.read(buffer, 0, (int) Math.min(buffer.length, remaining));
                    out.write(buffer, 0, read);
                    remaining -= read;
                }
            }
            CoreExercise.Outcome outcome = exerciseWithoutHanging(truncated);
            if (cut >= noteOffset + noteSize) {
                // headers and notes intact: a truncated core is still read, what it holds of memory too
                assertThat(outcome.opened()).as("cut at %d, after the notes", cut).isTrue();
                assertThat(outcome.threads()).as("threads of the core cut at %d", cut).isPositive();
                openedPastTheNotes++;
            }
            Files.delete(truncated);
        }
        assertThat(openedPastTheNotes).as("cuts after the notes").isPositive();
    }

    /** Copies the core with the first MiB patched by {@code damage}. */
    private static Path damaged(String name, Consumer<ByteBuffer> damage) throws IOException {
        Path copy = directory.resolve("damaged-" + name);
        Files.copy(core, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        byte[] patched = head.clone();
        damage.accept(le(patched));
        try (RandomAccessFile file = new RandomAccessFile(copy.toFile(), "rw")) {
            file.write(patched);
        }
        return copy;
    }

    @Test
    void damagedProgramHeadersGiveOnlyDocumentedExceptions() throws IOException {
        ByteBuffer header = le(head);
        long programHeaders = header.getLong(32);
        int count = Short.toUnsignedInt(header.getShort(56));
        long[] badValues = {-1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 40, 0};
        int opened = 0;
        // p_offset, p_vaddr, p_filesz, p_memsz of a few segments, including the note segment (0)
        for (int segment : new int[] {0, 1, count / 2, count - 1}) {
            for (int field : new int[] {8, 16, 32, 40}) {
                for (long bad : badValues) {
                    int at = (int) (programHeaders + 56L * segment + field);
                    if (exerciseWithoutHanging(damaged("ph", buffer -> buffer.putLong(at, bad))).opened()) {
                        opened++;
                    }
                }
            }
        }
        // a load segment's p_memsz is not read from the core: such damage must not stop it opening
        assertThat(opened).as("cores with one damaged program header that still open").isPositive();
        for (int field : new int[] {32, 40}) { // e_phoff, e_shoff
            for (long bad : badValues) {
                exerciseWithoutHanging(damaged("eh", buffer -> buffer.putLong(field, bad)));
            }
        }
        for (short bad : new short[] {(short) 0xffff, (short) 0x7fff, 0}) {
            exerciseWithoutHanging(damaged("phnum", buffer -> buffer.putShort(56, bad)));
            exerciseWithoutHanging(damaged("phentsize", buffer -> buffer.putShort(54, bad)));
        }
    }

    @Test
    void damagedNotesGiveOnlyDocumentedExceptions() throws IOException {
        ByteBuffer header = le(head);
        long programHeaders = header.getLong(32);
        long noteOffset = header.getLong((int) programHeaders + 8);
        long noteSize = header.getLong((int) programHeaders + 32);
        {
            // Walk the notes and damage each one's sizes and the start of its descriptor.
            long position = noteOffset;
            int index = 0;
            while (position + 12 <= noteOffset + noteSize && position + 12 <= head.length) {
                long nameSize = Integer.toUnsignedLong(header.getInt((int) position));
                long descriptorSize = Integer.toUnsignedLong(header.getInt((int) position + 4));
                long descriptor = position + 12 + ((nameSize + 3) & ~3L);
                final long at = position;
                for (int bad : new int[] {-1, 0x7fffffff, 0, 13}) {
                    exerciseWithoutHanging(damaged("note-name-" + index, buffer -> buffer.putInt((int) at, bad)));
                    exerciseWithoutHanging(damaged("note-desc-" + index, buffer -> buffer.putInt((int) at + 4, bad)));
                }
                if (descriptor + 16 <= head.length) {
                    // NT_FILE's count and page size, prstatus's first fields, auxv's first pair
                    for (long bad : new long[] {-1L, 1L << 62, 0}) {
                        exerciseWithoutHanging(damaged("desc-" + index, buffer -> buffer.putLong((int) descriptor, bad)));
                        exerciseWithoutHanging(damaged("desc8-" + index, buffer -> buffer.putLong((int) descriptor + 8, bad)));
                    }
                }
                position = descriptor + ((descriptorSize + 3) & ~3L);
                index++;
            }
        }
    }
}
