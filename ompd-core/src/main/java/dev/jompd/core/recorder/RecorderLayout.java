package dev.jompd.core.recorder;

import dev.jompd.core.memory.TargetMemory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The recorder's description of itself: its layout table ({@code "<type>.<field>"} = offset,
 * {@code "<type>.<field>.size"} = size, {@code "<type>.size"} = struct size, {@code "constant.*"}), as
 * {@code jompd_recorder_descriptor} points to it. The descriptor's fixed head is what the version pins:
 * {@code char magic[16]; u32 version; u32 layout_count; layout*; state*}, entries {@code char name[48]; u64 value}.
 */
public final class RecorderLayout {
    /** Version 2 added coarse-clock events ("constant.coarse_callbacks"); a version-1 recorder has none. */
    static final long KNOWN_VERSION = 2;
    static final long OLDEST_KNOWN_VERSION = 1;
    static final byte[] MAGIC = "jompd-recorder\0\0".getBytes(StandardCharsets.US_ASCII);
    static final int HEAD_SIZE = 40;
    private static final int ENTRY_NAME = 48;
    private static final int ENTRY_SIZE = 56;
    private static final int MAX_ENTRIES = 4096;
    /** No struct of the recorder comes near this (its state, the largest, is some 40 KB). */
    static final long MAX_STRUCT_SIZE = 1 << 20;
    /**
     * The counts the reader loops over, with the most each may be (the recorder's own are 16 to 64): a
     * corrupt count must not make the reader walk the target for hours.
     */
    private static final Map<String, Long> MAX_COUNTS = Map.of("constant.callbacks", 1024L, "constant.held_max", 64L,
            "constant.marks", 4096L, "constant.commands", 4096L, "constant.devices", 256L, "constant.device_trace", 1024L);

    private final Map<String, Long> entries;
    private final long statePointer;
    private final long descriptorAddress;

    private RecorderLayout(Map<String, Long> entries, long statePointer, long descriptorAddress) {
        this.entries = entries;
        this.statePointer = statePointer;
        this.descriptorAddress = descriptorAddress;
    }

    /** Reads and checks the descriptor at {@code address}. */
    static RecorderLayout read(TargetMemory memory, long address) {
        ByteOrder order = memory.architecture().byteOrder();
        ByteBuffer head = ByteBuffer.wrap(memory.read(address, HEAD_SIZE)).order(order);
        byte[] magic = new byte[MAGIC.length];
        head.get(magic);
        if (!java.util.Arrays.equals(magic, MAGIC)) {
            throw new RecorderFormatException("jompd_recorder_descriptor at 0x%x does not start with the magic \"jompd-recorder\""
                    .formatted(address), address);
        }
        long version = head.getInt(16) & 0xffff_ffffL;
        if (version < OLDEST_KNOWN_VERSION || version > KNOWN_VERSION) {
            throw new UnsupportedRecorderVersionException(version, address);
        }
        long count = head.getInt(20) & 0xffff_ffffL;
        long layoutPointer = head.getLong(24);
        long statePointer = head.getLong(32);
        if (count == 0 || count > MAX_ENTRIES) {
            throw new RecorderFormatException("jompd_recorder_descriptor at 0x%x claims %d layout entries (1..%d expected)"
                    .formatted(address, count, MAX_ENTRIES), address);
        }
        if (layoutPointer == 0 || statePointer == 0) {
            throw new RecorderFormatException("jompd_recorder_descriptor at 0x%x has a null layout or state pointer"
                    .formatted(address), address);
        }
        ByteBuffer table = ByteBuffer.wrap(memory.read(layoutPointer, (int) count * ENTRY_SIZE)).order(order);
        Map<String, Long> entries = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int at = i * ENTRY_SIZE;
            int length = 0;
            while (length < ENTRY_NAME && table.get(at + length) != 0) {
                length++;
            }
            byte[] name = new byte[length];
            table.get(at, name);
            entries.put(new String(name, StandardCharsets.US_ASCII), table.getLong(at + ENTRY_NAME));
        }
        check(entries, address);
        return new RecorderLayout(Collections.unmodifiableMap(entries), statePointer, address);
    }

    /**
     * Every struct size in 1..{@link #MAX_STRUCT_SIZE}, every field inside its struct, every count within
     * {@link #MAX_COUNTS}: what the reader computes from them then stays in range.
     */
    private static void check(Map<String, Long> entries, long address) {
        for (Map.Entry<String, Long> entry : entries.entrySet()) {
            String name = entry.getKey();
            long value = entry.getValue();
            Long maxCount = MAX_COUNTS.get(name);
            if (maxCount != null && (value < 1 || value > maxCount)) {
                throw malformed(address, name, value, "1.." + maxCount);
            }
            if (name.startsWith("constant.")) {
                continue;
            }
            if (name.endsWith(".size")) {
                if (value < 1 || value > MAX_STRUCT_SIZE) {
                    throw malformed(address, name, value, "1.." + MAX_STRUCT_SIZE);
                }
                continue;
            }
            int dot = name.indexOf('.');
            Long structSize = dot < 0 ? null : entries.get(name.substring(0, dot) + ".size");
            Long fieldSize = entries.get(name + ".size");
            if (structSize == null || fieldSize == null) {
                continue; // not a field the reader knows how to place
            }
            if (value < 0 || value >= structSize || fieldSize > structSize - value) {
                throw malformed(address, name, value, "a field of %d bytes inside %d".formatted(fieldSize, structSize));
            }
        }
    }

    private static RecorderFormatException malformed(long address, String name, long value, String expected) {
        return new RecorderFormatException("the jompd-recorder's layout at 0x%x has %s = %d (%s expected)"
                .formatted(address, name, value, expected), address);
    }

    /** Offset of {@code field} in {@code struct jompd_recorder_<type>}. */
    public long offset(String type, String field) {
        return require(type + "." + field);
    }

    /** Size in bytes of {@code field} in {@code struct jompd_recorder_<type>}. */
    public int fieldSize(String type, String field) {
        return (int) require(type + "." + field + ".size");
    }

    /** {@code sizeof(struct jompd_recorder_<type>)}. */
    public long sizeOf(String type) {
        return require(type + ".size");
    }

    /** A constant of the recorder ({@code constant.<name>}). */
    public long constant(String name) {
        return require("constant." + name);
    }

    /** Whether the recorder describes {@code type.field}: later recorders may add fields. */
    public boolean has(String type, String field) {
        return entries.containsKey(type + "." + field);
    }

    public OptionalLong entry(String name) {
        Long value = entries.get(name);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** Every entry, in the recorder's order. */
    public Map<String, Long> entries() {
        return entries;
    }

    long statePointer() {
        return statePointer;
    }

    long descriptorAddress() {
        return descriptorAddress;
    }

    private long require(String name) {
        Long value = entries.get(name);
        if (value == null) {
            throw new RecorderFormatException("the jompd-recorder's layout at 0x%x lacks the entry %s"
                    .formatted(descriptorAddress, name), descriptorAddress);
        }
        return value;
    }
}
