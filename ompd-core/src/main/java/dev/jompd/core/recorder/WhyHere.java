package dev.jompd.core.recorder;

import java.util.List;
import java.util.Optional;

/**
 * "Why is this thread here", from its record: what it is inside, what it waits for and who holds
 * that, and the events since it entered its innermost scope.
 *
 * @param insideScopes scopes begun and not ended, outermost first ({@link RecordedThread#openScopes()})
 * @param waitingFor   the mutex it asked for and has not got
 * @param heldBy       the live thread holding that mutex, when the recorder saw it taken
 * @param leadingEvents the events from the innermost open scope's begin on (at most the number asked
 *                     for, the newest kept), or the newest events when no scope is open
 */
public record WhyHere(RecordedThread thread, List<RecordedEvent> insideScopes, Optional<MutexRecord> waitingFor,
                      Optional<RecordedThread> heldBy, List<RecordedEvent> leadingEvents) {
    public WhyHere {
        insideScopes = List.copyOf(insideScopes);
        leadingEvents = List.copyOf(leadingEvents);
    }
}
