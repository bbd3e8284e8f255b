package dev.jompd.core.target;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A process's environment as it is in its memory: the strings glibc's {@code __environ} points to (what the
 * program's own {@code getenv} reads), from a core or a stopped process alike. Bounded in count and length.
 */
public final class ProcessEnvironment {
    private static final int MAX_ENTRIES = 100_000;
    private static final int MAX_STRING = 128 * 1024;

    private ProcessEnvironment() {}

    /**
     * Every {@code NAME=value} of the environment, in its order (the first of a name repeated, as getenv finds
     * it); empty when the process has no {@code __environ} (no glibc).
     *
     * @throws MemoryReadException when the array or one of its strings cannot be read
     */
    public static Map<String, String> read(AddressSpace space) {
        Map<String, String> environment = new LinkedHashMap<>();
        Optional<TargetSymbol> symbol = space.lookupSymbol("__environ", "libc");
        if (symbol.isEmpty()) {
            symbol = space.lookupSymbol("environ");
        }
        if (symbol.isEmpty()) {
            return environment;
        }
        byte[] pointer = new byte[8];
        space.read(symbol.get().address(), pointer, 0, 8);
        // char **__environ
        long array = ByteBuffer.wrap(pointer).order(ByteOrder.LITTLE_ENDIAN).getLong();
        for (int i = 0; array != 0 && i < MAX_ENTRIES; i++) {
            space.read(array + 8L * i, pointer, 0, 8);
            long string = ByteBuffer.wrap(pointer).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (string == 0) {
                break;
            }
            String entry = readString(space, string);
            int equals = entry.indexOf('=');
            if (equals > 0) {
                environment.putIfAbsent(entry.substring(0, equals), entry.substring(equals + 1));
            }
        }
        return environment;
    }

    /** A NUL-terminated string, read a page at most at a time (the environment ends where the stack's mapping ends). */
    public static String readString(AddressSpace space, long address) {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        byte[] chunk = new byte[256];
        long at = address;
        while (text.size() < MAX_STRING) {
            int length = (int) Math.min(chunk.length, 4096 - (at & 4095)); // never across a page boundary
            space.read(at, chunk, 0, length);
            for (int i = 0; i < length; i++) {
                if (chunk[i] == 0) {
                    text.write(chunk, 0, i);
                    return text.toString(StandardCharsets.UTF_8);
                }
            }
            text.write(chunk, 0, length);
            at += length;
        }
        return text.toString(StandardCharsets.UTF_8);
    }
}
