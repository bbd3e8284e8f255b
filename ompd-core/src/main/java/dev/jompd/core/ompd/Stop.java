package dev.jompd.core.ompd;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One stop of the target: handles made during it carry it, and answer {@code stale_handle} once it has
 * ended. Per-stop derived data (the gtid table, the OS-thread map) is memoised here and dies with it.
 */
public final class Stop {
    private final AddressSpaceHandle space;
    private final long generation;
    private volatile boolean ended;
    private final Map<String, Object> memo = new ConcurrentHashMap<>();

    Stop(AddressSpaceHandle space, long generation) {
        this.space = space;
        this.generation = generation;
    }

    public long generation() {
        return generation;
    }

    public boolean isEnded() {
        return ended;
    }

    void end() {
        ended = true;
        memo.clear();
    }

    AddressSpaceHandle space() {
        return space;
    }

    /** Throws {@code stale_handle} when this stop is over. */
    void check(Object handle) {
        if (ended) {
            throw new OmpdException(OmpdRc.STALE_HANDLE, handle + " belongs to stop " + generation
                    + ", which ended when the target resumed");
        }
    }

    @SuppressWarnings("unchecked")
    <T> T memo(String key, Supplier<T> compute) {
        Object value = memo.get(key);
        if (value == null) {
            value = compute.get();
            memo.put(key, value);
        }
        return (T) value;
    }

    long ompdState() {
        return memo("ompd_state", () -> space.global("ompd_state", null)
                .asUnsigned(space.layout().globalSize("ompd_state")));
    }
}
