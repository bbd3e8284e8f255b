package dev.jompd.core.target;

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
        // char **__environ
        long array = space.readPointer(symbol.get().address());
        int pointerSize = space.architecture().pointerSize();
        for (int i = 0; array != 0 && i < MAX_ENTRIES; i++) {
            long string = space.readPointer(array + (long) pointerSize * i);
            if (string == 0) {
                break;
            }
            String entry = space.readCString(string, MAX_STRING);
            int equals = entry.indexOf('=');
            if (equals > 0) {
                environment.putIfAbsent(entry.substring(0, equals), entry.substring(equals + 1));
            }
        }
        return environment;
    }
}
