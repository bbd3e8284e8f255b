package dev.jompd.core.elf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A bounds-checked little-endian window on bytes (a memory-mapped file, a part of one, or a byte
 * array). Every access is checked against the window, so offsets taken from a file can be used as
 * they are: one that falls outside throws {@link ElfFormatException}, never an index error.
 *
 * <p>Offsets are {@code long} because mapped files may exceed 2 GB. A view over a mapped file is only
 * usable while that file is open. A mapped file cut short by someone else while we read it faults (SIGBUS);
 * the JVM turns the fault into an InternalError, which an access turns into an {@link ElfFormatException}
 * that says so when the error reaches it (compiled code may raise it a little later: see
 * {@link MappedFile#isFault}).
 */
public final class ByteView {
    private static final ValueLayout.OfShort U16 =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final MemorySegment segment;
    private final String source;
    /** Where this window starts in its source, so messages give offsets in the file. */
    private final long sourceOffset;

    private ByteView(MemorySegment segment, String source, long sourceOffset) {
        this.segment = segment;
        this.source = source;
        this.sourceOffset = sourceOffset;
    }

    /** A view of a whole memory segment; {@code source} names it in error messages. */
    public static ByteView of(MemorySegment segment, String source) {
        return new ByteView(Objects.requireNonNull(segment), Objects.requireNonNull(source), 0);
    }

    /** A view of a byte array (which is not copied); {@code source} names it in error messages. */
    public static ByteView of(byte[] bytes, String source) {
        return of(MemorySegment.ofArray(bytes), source);
    }

    public long size() { return segment.byteSize(); }

    /** What these bytes come from, for messages. */
    public String source() { return source; }

    /** Whether {@code [offset, offset + length)} lies inside this view; safe for any values. */
    public boolean contains(long offset, long length) {
        return offset >= 0 && length >= 0 && offset <= size() && length <= size() - offset;
    }

    private void check(long offset, long length, String what) {
        if (!contains(offset, length)) {
            throw new ElfFormatException(source, "%s (%d bytes at offset 0x%x) lies outside the %d bytes available at 0x%x"
                    .formatted(what, length, sourceOffset + offset, size(), sourceOffset));
        }
    }

    /** The error for bytes of a mapped file that faulted when read: the file was cut short meanwhile. */
    private ElfFormatException vanished(InternalError fault, long offset) {
        if (!MappedFile.isFault(fault)) {
            throw fault;
        }
        return MappedFile.changedWhileRead(source);
    }

    public int u8(long offset) {
        check(offset, 1, "byte");
        try {
            return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset));
        } catch (InternalError fault) {
            throw vanished(fault, offset);
        }
    }

    public int u16(long offset) {
        check(offset, 2, "16-bit value");
        try {
            return Short.toUnsignedInt(segment.get(U16, offset));
        } catch (InternalError fault) {
            throw vanished(fault, offset);
        }
    }

    /** An unsigned 32-bit value, widened to long. */
    public long u32(long offset) {
        return Integer.toUnsignedLong(s32(offset));
    }

    /** A signed 32-bit value (or the raw bits of an unsigned one). */
    public int s32(long offset) {
        check(offset, 4, "32-bit value");
        try {
            return segment.get(U32, offset);
        } catch (InternalError fault) {
            throw vanished(fault, offset);
        }
    }

    /** A 64-bit value; unsigned ones keep their bits (compare with {@link Long#compareUnsigned}). */
    public long u64(long offset) {
        check(offset, 8, "64-bit value");
        try {
            return segment.get(U64, offset);
        } catch (InternalError fault) {
            throw vanished(fault, offset);
        }
    }

    /**
     * The sub-window {@code [offset, offset + length)}.
     *
     * @param what names the part for the error message when it does not fit ("section 3", ...)
     */
    public ByteView slice(long offset, long length, String what) {
        check(offset, length, what);
        return new ByteView(segment.asSlice(offset, length), source, sourceOffset + offset);
    }

    /**
     * The NUL-terminated string at {@code offset}, decoded as UTF-8. It ends at the first NUL, after
     * {@code maxLength} bytes, or at the end of the view, whichever comes first.
     */
    public String cString(long offset, int maxLength) {
        check(offset, 0, "string");
        long limit = Math.min(size() - offset, Math.max(0, maxLength));
        int length = 0;
        byte[] bytes;
        try {
            while (length < limit && segment.get(ValueLayout.JAVA_BYTE, offset + length) != 0) {
                length++;
            }
            bytes = new byte[length];
            MemorySegment.copy(segment, offset, MemorySegment.ofArray(bytes), 0, length);
        } catch (InternalError fault) {
            throw vanished(fault, offset + length);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Whether the NUL-terminated string at {@code offset} equals {@code expected} (UTF-8 bytes),
     * without decoding it. Reads at most {@code expected.length + 1} bytes.
     */
    public boolean cStringEquals(long offset, byte[] expected) {
        if (!contains(offset, expected.length)) {
            return false;
        }
        try {
            for (int i = 0; i < expected.length; i++) {
                if (segment.get(ValueLayout.JAVA_BYTE, offset + i) != expected[i]) {
                    return false;
                }
            }
            long end = offset + expected.length;
            return end == size() || segment.get(ValueLayout.JAVA_BYTE, end) == 0;
        } catch (InternalError fault) {
            throw vanished(fault, offset);
        }
    }

    /** Copies {@code length} bytes at {@code offset} into {@code destination[destinationOffset..]}. */
    public void copyTo(long offset, byte[] destination, int destinationOffset, int length) {
        check(offset, length, "range");
        Objects.checkFromIndexSize(destinationOffset, length, destination.length);
        // segment to segment: the copy into an array dispatches on the array's type through a pattern
        // switch, whose class is made at run time and which is slow in the interpreter (cold start)
        try {
            MemorySegment.copy(segment, offset, MemorySegment.ofArray(destination), destinationOffset, length);
        } catch (InternalError fault) {
            throw vanished(fault, offset);
        }
    }

    /** All bytes of this view as a new array; the view must be smaller than 2 GB. */
    public byte[] toByteArray() {
        if (size() > Integer.MAX_VALUE - 16) {
            throw new ElfFormatException(source, "%d bytes at offset 0x%x are too many to copy".formatted(size(), sourceOffset));
        }
        byte[] bytes = new byte[(int) size()];
        copyTo(0, bytes, 0, bytes.length);
        return bytes;
    }

    /** The bytes as lower-case hex, as build-ids are written. */
    public String toHex() {
        StringBuilder hex = new StringBuilder((int) Math.min(size() * 2, 1 << 20));
        for (long i = 0; i < size(); i++) {
            int value = u8(i);
            hex.append(Character.forDigit(value >>> 4, 16)).append(Character.forDigit(value & 0xf, 16));
        }
        return hex.toString();
    }

    @Override
    public String toString() {
        return "%s[0x%x, +%d]".formatted(source, sourceOffset, size());
    }
}
