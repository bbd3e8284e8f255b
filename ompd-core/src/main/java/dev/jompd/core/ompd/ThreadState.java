package dev.jompd.core.ompd;

import java.util.Arrays;
import java.util.Optional;

/** OMPT thread states ({@code ompt_state_t}) as libomp reports them, with their numeric values. */
public enum ThreadState {
    WORK_SERIAL(0x000), WORK_PARALLEL(0x001), WORK_REDUCTION(0x002),
    WAIT_BARRIER(0x010), WAIT_BARRIER_IMPLICIT_PARALLEL(0x011), WAIT_BARRIER_IMPLICIT_WORKSHARE(0x012),
    WAIT_BARRIER_IMPLICIT(0x013), WAIT_BARRIER_EXPLICIT(0x014), WAIT_BARRIER_IMPLEMENTATION(0x015),
    WAIT_BARRIER_TEAMS(0x016),
    WAIT_TASKWAIT(0x020), WAIT_TASKGROUP(0x021),
    WAIT_MUTEX(0x040), WAIT_LOCK(0x041), WAIT_CRITICAL(0x042), WAIT_ATOMIC(0x043), WAIT_ORDERED(0x044),
    WAIT_TARGET(0x080), WAIT_TARGET_MAP(0x081), WAIT_TARGET_UPDATE(0x082),
    IDLE(0x100), OVERHEAD(0x101), UNDEFINED(0x102);

    private final int code;

    ThreadState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The OMPT name, such as {@code ompt_state_wait_barrier_explicit}. */
    public String cName() {
        return "ompt_state_" + name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Optional<ThreadState> of(long code) {
        return Arrays.stream(values()).filter(s -> s.code == code).findFirst();
    }
}
