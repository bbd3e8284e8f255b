package dev.jompd.core.recorder;

import java.util.Optional;

/**
 * One OMPT event a thread's ring holds. Ids are the recorder's own (0 = none); the meaning of
 * {@code kind}, {@code value} and {@code aux} depends on the callback (jompd-recorder.h lists it).
 *
 * @param sequence   the event's number in its thread, from 1
 * @param timeNanos  CLOCK_MONOTONIC of the target, nanoseconds
 * @param callbackId the {@code ompt_callbacks_t} number ({@link #callback()} names it)
 * @param endpoint   {@code ompt_scope_endpoint_t} (1 begin, 2 end, 3 beginend), 0 where the callback has none
 * @param codeReturnAddress {@code codeptr_ra}: the return address into the user's code, 0 when not given
 */
public record RecordedEvent(long sequence, long timeNanos, int callbackId, int endpoint, long kind,
                            long codeReturnAddress, long parallelId, long taskId, long value, long aux) {

    public static final int BEGIN = 1;
    public static final int END = 2;

    public Optional<OmptCallback> callback() {
        return OmptCallback.of(callbackId);
    }

    /** The kind field named for this callback ({@code barrier_explicit}, {@code lock}, ...). */
    public String kindName() {
        return callback().map(c -> c.kindName(kind)).orElse(Long.toString(kind));
    }

    public boolean isBegin() {
        return endpoint == BEGIN;
    }

    public boolean isEnd() {
        return endpoint == END;
    }

    /** One line such as {@code sync_region_wait begin barrier_explicit parallel 3 task 7}, for text renderings. */
    public String describe() {
        StringBuilder text = new StringBuilder(callback().map(c -> c.name().toLowerCase(java.util.Locale.ROOT))
                .orElse("callback " + callbackId));
        if (endpoint == BEGIN) {
            text.append(" begin");
        } else if (endpoint == END) {
            text.append(" end");
        }
        String kindName = kindName();
        if (!kindName.isEmpty()) {
            text.append(' ').append(kindName);
        }
        if (parallelId != 0) {
            text.append(" parallel ").append(parallelId);
        }
        // the target callbacks' operations keep the target region's id where other events keep a task's
        boolean targetOperation = callback().filter(c -> c == OmptCallback.TARGET_DATA_OP
                || c == OmptCallback.TARGET_DATA_OP_EMI || c == OmptCallback.TARGET_SUBMIT
                || c == OmptCallback.TARGET_SUBMIT_EMI).isPresent();
        if (taskId != 0) {
            text.append(targetOperation ? " target " : " task ").append(taskId);
        }
        if (callback().filter(c -> c == OmptCallback.TARGET || c == OmptCallback.TARGET_EMI).isPresent()) {
            if (value != 0) {
                text.append(" target ").append(value);
            }
            text.append(" device ").append(aux);
        }
        if (callback().filter(c -> c == OmptCallback.TASK_SCHEDULE).isPresent() && value != 0) {
            text.append(" next task ").append(value);
        }
        if (callback().filter(c -> c == OmptCallback.MUTEX_ACQUIRE || c == OmptCallback.MUTEX_ACQUIRED
                || c == OmptCallback.MUTEX_RELEASED || c == OmptCallback.NEST_LOCK).isPresent()) {
            text.append(" wait_id 0x").append(Long.toHexString(value));
        }
        return text.toString();
    }
}
