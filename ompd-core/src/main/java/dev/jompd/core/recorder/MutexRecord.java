package dev.jompd.core.recorder;

/**
 * A mutex a thread holds or waits for, as the recorder saw it in mutex_acquire / mutex_acquired.
 *
 * @param kindId  {@code ompt_mutex_t}
 * @param waitId  the runtime's wait id of the mutex (for locks the address of the omp_lock_t)
 * @param codeReturnAddress where in the user's code it was asked for
 * @param timeNanos when (CLOCK_MONOTONIC of the target)
 */
public record MutexRecord(long kindId, long waitId, long codeReturnAddress, long timeNanos) {
    public String kindName() {
        return MutexKind.of(kindId).map(MutexKind::ompName).orElse("mutex kind " + kindId);
    }
}
