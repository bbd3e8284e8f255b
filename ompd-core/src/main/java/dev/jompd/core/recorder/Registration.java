package dev.jompd.core.recorder;

/**
 * What {@code ompt_set_callback} answered when the recorder registered a callback
 * ({@code ompt_set_result_t}, OpenMP 5.1 §4.2.4), or that the recorder did not try.
 */
public enum Registration {
    NOT_REGISTERED(-1), ERROR(0), NEVER(1), IMPOSSIBLE(2), SOMETIMES(3), SOMETIMES_PAIRED(4), ALWAYS(5);

    private final int code;

    Registration(int code) {
        this.code = code;
    }

    /** The {@code ompt_set_result_t} value (-1 for not registered). */
    public int code() {
        return code;
    }

    /** Whether the runtime may deliver the event at all: no event recorded then means none happened. */
    public boolean delivers() {
        return this == SOMETIMES || this == SOMETIMES_PAIRED || this == ALWAYS;
    }

    static Registration of(long code) {
        for (Registration registration : values()) {
            if (registration.code == code) {
                return registration;
            }
        }
        throw new IllegalArgumentException("no ompt_set_result_t " + code);
    }
}
