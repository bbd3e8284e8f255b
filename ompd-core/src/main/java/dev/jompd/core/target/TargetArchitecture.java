package dev.jompd.core.target;

import java.nio.ByteOrder;

/** Type sizes and byte order of a target, as OMPD's {@code ompd_device_type_sizes_t} describes them. */
public record TargetArchitecture(
        int charSize, int shortSize, int intSize, int longSize, int longLongSize, int pointerSize,
        ByteOrder byteOrder) {

    /** x86-64 Linux (LP64, little endian): the only target this version supports. */
    public static final TargetArchitecture X86_64_LINUX =
            new TargetArchitecture(1, 2, 4, 8, 8, 8, ByteOrder.LITTLE_ENDIAN);
}
