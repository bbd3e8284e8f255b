package dev.jompd.core.ompd;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.target.TargetException;

import java.util.OptionalLong;

/**
 * An immutable place in the target's memory with the C path that led there, read as one fluent chain:
 * <pre>
 * // libomp: __kmp_threads[gtid]->th.th_current_task->td_icvs.dynamic
 * thread.field("kmp_base_info_t", "th_current_task").deref("kmp_taskdata_t")
 *       .field("td_icvs").field("kmp_internal_control_t", "dynamic").asLong()
 * </pre>
 * Offsets and sizes come from {@link RuntimeLayout}. A failing step throws an {@link OmpdException}
 * naming the path walked so far and the address, so an error says which field could not be read.
 */
public final class RemoteValue {
    private final TargetMemory memory;
    private final RuntimeLayout layout;
    private final long address;
    /** The C type at this address when known (for {@link #field(String)}), else null. */
    private final String type;
    /** Size in bytes of the value here when known (a field's size), else 0. */
    private final long size;
    /**
     * How this value was reached: the value it came from and the step taken. The C path is spelled out
     * only when asked for (an error message): walks build no strings.
     */
    private final RemoteValue from;
    /** '.' member {@code name}, '*' dereference, '[' element {@code index}, '=' cast; unused at a root. */
    private final char step;
    private final String name;
    private final long index;
    private String path;

    private RemoteValue(TargetMemory memory, RuntimeLayout layout, long address, String type, long size,
                        RemoteValue from, char step, String name, long index) {
        this.memory = memory;
        this.layout = layout;
        this.address = address;
        this.type = type;
        this.size = size;
        this.from = from;
        this.step = step;
        this.name = name;
        this.index = index;
        this.path = from == null ? name : null;
    }

    /** The value at {@code address}, seen as {@code type}. */
    public static RemoteValue at(TargetMemory memory, RuntimeLayout layout, long address, String type, String path) {
        return new RemoteValue(memory, layout, address, type, 0, null, '=', path, 0);
    }

    public long address() {
        return address;
    }

    /**
     * The C path that led here, such as {@code __kmp_threads[3]->th.th_current_task}; a trailing
     * {@code *} marks a dereference whose member has not been taken yet.
     */
    public String path() {
        if (path == null) {
            String base = from.path();
            path = switch (step) {
                case '.' -> base.endsWith("*") ? base.substring(0, base.length() - 1) + "->" + name : base + "." + name;
                case '*' -> base + "*";
                case '[' -> from.cleanPath() + "[" + index + "]";
                default -> base; // a cast: same place, same path
            };
        }
        return path;
    }

    /** The same place seen as another struct type (a C cast of the address). */
    public RemoteValue as(String newType) {
        return new RemoteValue(memory, layout, address, newType, size, this, '=', null, 0);
    }

    /** The member {@code field} of this value seen as {@code structType}. */
    public RemoteValue field(String structType, String field) {
        long offset = layout.offset(structType, field);
        long fieldSize = layout.fieldSize(structType, field);
        return new RemoteValue(memory, layout, address + offset, null, fieldSize, this, '.', field, 0);
    }

    /**
     * The member {@code field} placed by layout data rather than a breadcrumb (no breadcrumb describes
     * libomp's locks or task counters: {@link LockLayout}, {@link TaskLayout}, each checked against DWARF).
     */
    public RemoteValue field(String field, LockLayout.Member member) {
        return new RemoteValue(memory, layout, address + member.offset(), null, member.size(), this, '.', field, 0);
    }

    /** The member {@code field} of this value's own struct type. */
    public RemoteValue field(String field) {
        if (type == null) {
            throw new IllegalStateException("type of " + path() + " unknown: use field(type, field)");
        }
        return field(type, field);
    }

    /** Follows the pointer stored here to a {@code pointeeType}; a NULL pointer is an error. */
    public RemoteValue deref(String pointeeType) {
        long pointer = pointerValue();
        if (pointer == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, path() + " is NULL", OptionalLong.of(address), null);
        }
        return new RemoteValue(memory, layout, pointer, pointeeType, 0, this, '*', null, 0);
    }

    /** Element {@code index} of an array of {@code elementSize}-byte elements starting here. */
    public RemoteValue element(long index, long elementSize, String elementType) {
        return new RemoteValue(memory, layout, address + index * elementSize, elementType,
                elementType == null ? elementSize : 0, this, '[', null, index);
    }

    /** The pointer stored here, as an address (0 for NULL). */
    public long pointerValue() {
        return read(memory.architecture().pointerSize(), false);
    }

    /** The integer stored here, sign-extended from the field's size. */
    public long asLong() {
        return read(requireSize(), true);
    }

    /** The integer stored here, zero-extended from the field's size. */
    public long asUnsigned() {
        return read(requireSize(), false);
    }

    /** The integer stored here with an explicit size (for globals sized by a breadcrumb). */
    public long asLong(long explicitSize) {
        return read((int) explicitSize, true);
    }

    public long asUnsigned(long explicitSize) {
        return read((int) explicitSize, false);
    }

    /** The NUL-terminated string this {@code char *} points to (bounded), or empty for NULL. */
    public java.util.Optional<String> asCString(int maxLength) {
        long pointer = pointerValue();
        if (pointer == 0) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(memory.readCString(pointer, maxLength));
        } catch (TargetException e) {
            throw readFailure(pointer, e);
        }
    }

    private int requireSize() {
        if (size <= 0) {
            throw new IllegalStateException("size of " + path() + " unknown");
        }
        return (int) size;
    }

    private long read(int bytes, boolean signed) {
        if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) {
            throw new OmpdException(OmpdRc.INCOMPATIBLE, path() + " has size " + bytes + ", not an integer size");
        }
        try {
            return signed ? memory.readSigned(address, bytes) : memory.readUnsigned(address, bytes);
        } catch (TargetException e) {
            throw readFailure(address, e);
        }
    }

    private OmpdException readFailure(long at, TargetException e) {
        return new OmpdException(OmpdRc.DEVICE_READ_ERROR,
                "cannot read %s at 0x%x: %s".formatted(cleanPath(), at, e.getMessage()), OptionalLong.of(at), e);
    }

    private String cleanPath() {
        String full = path();
        return full.endsWith("*") ? "*" + full.substring(0, full.length() - 1) : full;
    }

    @Override
    public String toString() {
        return "%s @ 0x%x".formatted(cleanPath(), address);
    }
}
