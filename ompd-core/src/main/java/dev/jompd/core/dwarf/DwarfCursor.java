package dev.jompd.core.dwarf;

import dev.jompd.core.elf.ByteView;

import java.nio.charset.StandardCharsets;

/**
 * A read position in a DWARF section: fixed-size integers, LEB128 numbers, strings and the pointer
 * encodings of {@code .eh_frame}. Reading past the end raises {@link dev.jompd.core.elf.ElfFormatException}.
 */
final class DwarfCursor {
    static final int DW_EH_PE_OMIT = 0xff;

    private final ByteView bytes;
    private long position;

    DwarfCursor(ByteView bytes, long position) {
        this.bytes = bytes;
        this.position = position;
    }

    ByteView bytes() { return bytes; }

    long position() { return position; }

    void seek(long newPosition) { position = newPosition; }

    void skip(long count) {
        if (count < 0 || !bytes.contains(position, count)) {
            throw new DwarfFormatException(bytes.source(), "skipping %d bytes at 0x%x leaves the section".formatted(count, position));
        }
        position += count;
    }

    boolean atOrPast(long limit) { return position >= limit; }

    int u8() { return bytes.u8(position++); }

    int u16() {
        int value = bytes.u16(position);
        position += 2;
        return value;
    }

    long u32() {
        long value = bytes.u32(position);
        position += 4;
        return value;
    }

    int s32() {
        int value = bytes.s32(position);
        position += 4;
        return value;
    }

    long u64() {
        long value = bytes.u64(position);
        position += 8;
        return value;
    }

    /** An unsigned integer of {@code size} bytes (1, 2, 3, 4 or 8). */
    long unsigned(int size) {
        return switch (size) {
            case 1 -> u8();
            case 2 -> u16();
            case 3 -> u16() | ((long) u8() << 16);
            case 4 -> u32();
            case 8 -> u64();
            default -> throw new DwarfFormatException(bytes.source(), "unsupported integer size " + size);
        };
    }

    long uleb() {
        long result = 0;
        int shift = 0;
        while (true) {
            int b = u8();
            if (shift < 64) {
                result |= (long) (b & 0x7f) << shift;
            }
            shift += 7;
            if ((b & 0x80) == 0) {
                return result;
            }
            if (shift > 7 * 20) {
                throw new DwarfFormatException(bytes.source(), "LEB128 number at 0x%x is too long".formatted(position));
            }
        }
    }

    long sleb() {
        long result = 0;
        int shift = 0;
        int b;
        do {
            b = u8();
            if (shift < 64) {
                result |= (long) (b & 0x7f) << shift;
            }
            shift += 7;
            if (shift > 7 * 20) {
                throw new DwarfFormatException(bytes.source(), "LEB128 number at 0x%x is too long".formatted(position));
            }
        } while ((b & 0x80) != 0);
        if (shift < 64 && (b & 0x40) != 0) {
            result |= -1L << shift;
        }
        return result;
    }

    /** A ULEB128 that must fit an int (register numbers, lengths of small things). */
    int ulebInt(String what) {
        long value = uleb();
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new DwarfFormatException(bytes.source(), "%s %d at 0x%x is out of range".formatted(what, value, position));
        }
        return (int) value;
    }

    String cString() {
        long start = position;
        long end = start;
        long size = bytes.size();
        while (end < size && bytes.u8(end) != 0) {
            end++;
        }
        if (end >= size) {
            throw new DwarfFormatException(bytes.source(), "string at 0x%x is not terminated".formatted(start));
        }
        byte[] raw = new byte[(int) Math.min(end - start, Integer.MAX_VALUE - 8)];
        bytes.copyTo(start, raw, 0, raw.length);
        position = end + 1;
        return new String(raw, StandardCharsets.UTF_8);
    }

    /** An initial length: returns the unit's length and sets {@link #lastWas64Bit}. */
    long initialLength() {
        long length = u32();
        if (length == 0xffff_ffffL) {
            lastWas64Bit = true;
            return u64();
        }
        lastWas64Bit = false;
        if (length >= 0xffff_fff0L) {
            throw new DwarfFormatException(bytes.source(), "reserved initial length 0x%x".formatted(length));
        }
        return length;
    }

    boolean lastWas64Bit;

    /** A section offset: 4 bytes in 32-bit DWARF, 8 in 64-bit. */
    long offset(boolean dwarf64) {
        return dwarf64 ? u64() : u32();
    }

    /**
     * A pointer in {@code .eh_frame}'s encoding ({@code DW_EH_PE_*}).
     *
     * @param sectionAddress the virtual address of the section these bytes are ({@code pcrel})
     * @param dataBase       the base of {@code datarel} pointers ({@code .eh_frame_hdr}'s address)
     */
    long encodedPointer(int encoding, long sectionAddress, long dataBase) {
        if (encoding == DW_EH_PE_OMIT) {
            return 0;
        }
        long fieldAddress = sectionAddress + position;
        long value = switch (encoding & 0x0f) {
            case 0x00 -> u64();
            case 0x01 -> uleb();
            case 0x02 -> u16();
            case 0x03 -> u32();
            case 0x04 -> u64();
            case 0x09 -> sleb();
            case 0x0a -> (short) u16();
            case 0x0b -> s32();
            case 0x0c -> u64();
            default -> throw new DwarfFormatException(bytes.source(),
                    "unknown pointer encoding 0x%x at 0x%x".formatted(encoding, position));
        };
        switch (encoding & 0x70) {
            case 0x00 -> { }
            case 0x10 -> value += fieldAddress;
            case 0x30 -> value += dataBase;
            case 0x20, 0x40, 0x50 -> { } // textrel, funcrel, aligned: not used on x86-64 Linux
            default -> throw new DwarfFormatException(bytes.source(),
                    "unknown pointer application 0x%x at 0x%x".formatted(encoding, position));
        }
        return value;
    }
}
