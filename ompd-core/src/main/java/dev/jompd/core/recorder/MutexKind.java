package dev.jompd.core.recorder;

import java.util.Optional;

/** {@code ompt_mutex_t}: what kind of mutual exclusion a wait id belongs to. */
public enum MutexKind {
    LOCK(1), TEST_LOCK(2), NEST_LOCK(3), TEST_NEST_LOCK(4), CRITICAL(5), ATOMIC(6), ORDERED(7);

    private final int id;

    MutexKind(int id) {
        this.id = id;
    }

    public int id() {
        return id;
    }

    /** The name without the {@code ompt_mutex_} prefix: {@code lock}, {@code critical}, ... */
    public String ompName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Optional<MutexKind> of(long id) {
        for (MutexKind kind : values()) {
            if (kind.id == id) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }
}
