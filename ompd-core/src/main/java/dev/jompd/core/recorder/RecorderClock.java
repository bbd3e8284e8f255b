package dev.jompd.core.recorder;

/**
 * The recorder's clock: its time fields hold ticks (CLOCK_MONOTONIC nanoseconds, or the x86-64
 * time-stamp counter where the kernel's clocksource is the TSC), converted to CLOCK_MONOTONIC
 * nanoseconds through two (ticks, ns) pairs the recorder took: one at start-up and the latest one.
 *
 * @param kind 1 CLOCK_MONOTONIC, 2 TSC
 */
public record RecorderClock(int kind, long ticks0, long nanos0, long ticks1, long nanos1) {
    public static final int MONOTONIC = 1;
    public static final int TSC = 2;

    static RecorderClock of(int kind, long ticks0, long nanos0, long ticks1, long nanos1, long address) {
        if (kind != MONOTONIC && kind != TSC) {
            throw new RecorderFormatException("the recorder's clock kind %d is neither CLOCK_MONOTONIC (1) nor TSC (2)"
                    .formatted(kind), address);
        }
        if (kind == TSC && (ticks1 - ticks0 <= 0 || nanos1 - nanos0 <= 0)) {
            throw new RecorderFormatException("the recorder's TSC calibration pairs (%d, %d) and (%d, %d) give no rate"
                    .formatted(ticks0, nanos0, ticks1, nanos1), address);
        }
        return new RecorderClock(kind, ticks0, nanos0, ticks1, nanos1);
    }

    /** Nanoseconds per tick. */
    public double rate() {
        return kind == MONOTONIC ? 1.0 : (double) (nanos1 - nanos0) / (double) (ticks1 - ticks0);
    }

    /** CLOCK_MONOTONIC nanoseconds of a tick value (0 stays 0: "never"). */
    public long nanos(long ticks) {
        if (ticks == 0 || kind == MONOTONIC) {
            return ticks;
        }
        return nanos0 + Math.round((ticks - ticks0) * rate());
    }
}
