package dev.jompd.core.recorder;

import java.util.List;
import java.util.Optional;

/**
 * A mutex someone waits for, and who holds it (from the recorder's held and waiting records).
 *
 * @param holder  the thread that holds it; empty when no recorded thread does (the holder's
 *                acquisition was not seen, or it is held by something OMPT does not report)
 * @param waiters threads waiting for it
 */
public record LockHolder(long waitId, long kindId, Optional<RecordedThread> holder, List<RecordedThread> waiters) {
    public LockHolder {
        waiters = List.copyOf(waiters);
    }

    public String kindName() {
        return MutexKind.of(kindId).map(MutexKind::ompName).orElse("mutex kind " + kindId);
    }
}
