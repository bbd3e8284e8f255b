package dev.jompd.report;

import dev.jompd.core.recorder.LockHolder;
import dev.jompd.core.recorder.RecordedEvent;
import dev.jompd.core.recorder.RecordedThread;
import dev.jompd.core.recorder.RecorderSnapshot;
import dev.jompd.report.OpenMpPicture.OpenMpThread;

import java.util.List;
import java.util.Optional;

/**
 * What the jompd-recorder (an OMPT tool in the target) kept of the program's past, as the picture shows it:
 * each OpenMP thread's most recent events, who holds the mutexes others wait for, wait cycles (deadlocks),
 * which events this runtime delivers at all, devices. Present only when the program runs with the recorder.
 */
public record RecordedHistory(RecorderSnapshot snapshot) {
    /** How many of a thread's most recent events the renderings show. */
    public static final int RECENT_EVENTS = 8;

    /** The recorder's record of an OpenMP thread (by its pthread_t, else its LWP). */
    public Optional<RecordedThread> of(OpenMpThread thread) {
        return snapshot.threadByPthread(thread.pthread())
                .or(() -> thread.lwp().isPresent() ? snapshot.threadByLwp(thread.lwp().getAsLong()) : Optional.empty());
    }

    /** The thread's most recent events, oldest first. */
    public List<RecordedEvent> recent(OpenMpThread thread) {
        return of(thread).map(t -> t.recentEvents(RECENT_EVENTS)).orElse(List.of());
    }

    /** Mutexes that someone holds or waits for, with the holder and the waiters. */
    public List<LockHolder> lockHolders() {
        return snapshot.lockHolders();
    }

    /** Cycles of threads each waiting for a mutex the next one holds. */
    public List<List<RecordedThread>> deadlocks() {
        return snapshot.waitCycles();
    }

    /** "+12.345 ms" relative to the thread's newest event, for text renderings. */
    static String age(RecordedEvent event, RecordedEvent newest) {
        return String.format("%+.3f ms", (event.timeNanos() - newest.timeNanos()) / 1e6);
    }
}
