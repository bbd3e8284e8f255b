package dev.jompd.core.recorder;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One thread's record: who it is, its most recent events (oldest first), what it holds and waits for.
 *
 * @param address        where the record is in the target: the thread's OMPT tool data points here
 * @param serial         0, 1, ... in the order threads began
 * @param pthreadId      pthread_self() of the thread (fs_base on x86-64 glibc)
 * @param lwp            its Linux thread id
 * @param threadType     {@code ompt_thread_t}: 1 initial, 2 worker, 3 other, 4 unknown
 * @param eventsWritten  every event the thread wrote, including those its ring no longer holds
 * @param events         the events the ring holds, oldest first (an event being written when the target
 *                       stopped is left out)
 * @param held           mutexes held, in the order they were acquired
 * @param heldOverflow   further mutexes held that did not fit the recorder's table
 * @param waitingFor     the mutex the thread asked for and has not got yet
 */
public record RecordedThread(long address, long serial, long pthreadId, long lwp, int threadType, boolean ended,
                             long beginTimeNanos, OptionalLong endTimeNanos, long capacity, long eventsWritten,
                             List<RecordedEvent> events, List<MutexRecord> held, long heldOverflow,
                             Optional<MutexRecord> waitingFor) {

    public RecordedThread {
        events = List.copyOf(events);
        held = List.copyOf(held);
    }

    /** Events the ring overwrote (the thread did more than the ring keeps). */
    public long eventsLost() {
        return eventsWritten - events.size();
    }

    /** The last {@code count} events, oldest first. */
    public List<RecordedEvent> recentEvents(int count) {
        return events.subList(Math.max(0, events.size() - count), events.size());
    }

    /**
     * What the thread is inside, outermost first, from its events: every scope (implicit task, work,
     * sync region, wait, masked, reduction, target) that began and has not ended within the events the
     * ring holds. "Why is this thread here" is answered by these and the events after the innermost one.
     */
    public List<RecordedEvent> openScopes() {
        Deque<RecordedEvent> open = new ArrayDeque<>();
        for (RecordedEvent event : events) {
            if (event.isBegin()) {
                open.push(event);
            } else if (event.isEnd()) {
                // Close the innermost matching scope; a begin that fell out of the ring matches nothing.
                for (var it = open.iterator(); it.hasNext(); ) {
                    RecordedEvent candidate = it.next();
                    if (candidate.callbackId() == event.callbackId() && candidate.kind() == event.kind()
                            || candidate.callbackId() == OmptCallback.PARALLEL_BEGIN.id()
                            && event.callbackId() == OmptCallback.PARALLEL_END.id()
                            && candidate.parallelId() == event.parallelId()) {
                        it.remove();
                        break;
                    }
                }
            }
        }
        List<RecordedEvent> outermostFirst = new ArrayList<>(open);
        java.util.Collections.reverse(outermostFirst);
        return outermostFirst;
    }
}
