package dev.jompd.core.recorder;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Everything the jompd-recorder in a target holds at one stop.
 *
 * @param module        the file name of the library the recorder lives in
 * @param layout        its self-description
 * @param clock         how its time fields convert to CLOCK_MONOTONIC nanoseconds (already applied to every
 *                      time this snapshot holds)
 * @param ringCapacity  events kept per thread (JOMPD_RECORDER_EVENTS)
 * @param monitoring    where omp_control_tool left it
 * @param ompVersion    the OpenMP version the runtime gave ompt_start_tool
 * @param runtimeVersion the runtime's version string (ompt_start_tool's runtime_version)
 * @param threads       every thread that began, in the order they began (ended ones included)
 * @param registrations what ompt_set_callback answered for each callback of Table 4.2
 * @param commands      the most recent omp_control_tool commands, oldest first
 * @param marks         the most recent marks and snapshots, oldest first
 * @param devices       devices the runtime initialised
 */
public record RecorderSnapshot(String module, RecorderLayout layout, RecorderClock clock, long ringCapacity, Monitoring monitoring,
                               long ompVersion, String runtimeVersion, List<RecordedThread> threads,
                               Map<OmptCallback, Registration> registrations, long commandsReceived,
                               List<ControlCommand> commands, long marksReceived, List<Mark> marks,
                               List<DeviceRecord> devices) {

    public enum Monitoring { UNKNOWN, ON, PAUSED, ENDED }

    public RecorderSnapshot {
        threads = List.copyOf(threads);
        registrations = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(registrations));
        commands = List.copyOf(commands);
        marks = List.copyOf(marks);
        devices = List.copyOf(devices);
    }

    /** The record of the thread with this Linux thread id. */
    public Optional<RecordedThread> threadByLwp(long lwp) {
        return threads.stream().filter(t -> t.lwp() == lwp && !t.ended()).findFirst();
    }

    /** The record of the thread with this pthread_t (fs_base). */
    public Optional<RecordedThread> threadByPthread(long pthreadId) {
        return threads.stream().filter(t -> t.pthreadId() == pthreadId && !t.ended()).findFirst();
    }

    /** The record an OMPT thread data pointer (ompd_get_tool_data of a thread) points to. */
    public Optional<RecordedThread> threadAt(long address) {
        return threads.stream().filter(t -> t.address() == address).findFirst();
    }

    /**
     * The marks and snapshots {@code thread} sent (omp_control_tool(64 or 65, modifier, "text")), by the
     * sequence number of the control_tool event that sent each. The recorder writes a mark just before that
     * event, on the same thread, so the thread's marks and its answered mark/snapshot events pair from the
     * newest back, each mark no later than its event: a mark newer than every such event was being sent when
     * the target stopped (its event is not written yet), and older events whose marks the ring of
     * {@code constant.marks} overwrote have none.
     */
    public Map<Long, Mark> marksOf(RecordedThread thread) {
        List<RecordedEvent> sent = thread.events().stream().filter(e -> e.callbackId() == OmptCallback.CONTROL_TOOL.id()
                && (e.kind() == Recorder.COMMAND_MARK || e.kind() == Recorder.COMMAND_SNAPSHOT)
                && e.aux() == 0 /* omp_control_tool_success: the recorder kept a mark */).toList();
        List<Mark> own = marks.stream().filter(m -> m.threadSerial() == thread.serial()).toList();
        Map<Long, Mark> bySequence = new LinkedHashMap<>();
        int e = sent.size() - 1;
        int m = own.size() - 1;
        while (e >= 0 && m >= 0) {
            RecordedEvent event = sent.get(e);
            Mark mark = own.get(m);
            if (mark.timeNanos() > event.timeNanos()) {
                m--; // sent after this event: its own event is not in the ring
            } else if (mark.command() == event.kind() && mark.modifier() == event.value()) {
                bySequence.put(event.sequence(), mark);
                e--;
                m--;
            } else {
                break; // a mark that is not this event's: the pairing cannot be trusted further back
            }
        }
        return bySequence;
    }

    public Registration registration(OmptCallback callback) {
        return registrations.getOrDefault(callback, Registration.NOT_REGISTERED);
    }

    /**
     * Every mutex some live thread waits for, with its holder: the lock holders a hang diagnosis names.
     * Ordered by the waiters' serials.
     */
    public List<LockHolder> lockHolders() {
        Map<Long, List<RecordedThread>> waitersById = new LinkedHashMap<>();
        Map<Long, Long> kindById = new LinkedHashMap<>();
        for (RecordedThread thread : threads) {
            if (thread.ended() || thread.waitingFor().isEmpty()) {
                continue;
            }
            MutexRecord wanted = thread.waitingFor().get();
            waitersById.computeIfAbsent(wanted.waitId(), id -> new ArrayList<>()).add(thread);
            kindById.putIfAbsent(wanted.waitId(), wanted.kindId());
        }
        List<LockHolder> holders = new ArrayList<>();
        waitersById.forEach((waitId, waiters) -> holders.add(new LockHolder(waitId, kindById.get(waitId),
                holderOf(waitId), waiters)));
        return holders;
    }

    /** The live thread holding the mutex with this wait id. */
    public Optional<RecordedThread> holderOf(long waitId) {
        return threads.stream().filter(t -> !t.ended())
                .filter(t -> t.held().stream().anyMatch(m -> m.waitId() == waitId)).findFirst();
    }

    /** What {@code thread} is inside and waits for, and the (at most {@code maxEvents}) events that led there. */
    public WhyHere whyHere(RecordedThread thread, int maxEvents) {
        List<RecordedEvent> scopes = thread.openScopes();
        List<RecordedEvent> events = thread.events();
        int from = 0;
        if (!scopes.isEmpty()) {
            RecordedEvent innermost = scopes.getLast();
            for (int i = events.size() - 1; i >= 0; i--) {
                if (events.get(i).sequence() == innermost.sequence()) {
                    from = i;
                    break;
                }
            }
        }
        List<RecordedEvent> leading = events.subList(Math.max(from, events.size() - Math.max(0, maxEvents)), events.size());
        return new WhyHere(thread, scopes, thread.waitingFor(),
                thread.waitingFor().flatMap(m -> holderOf(m.waitId())), leading);
    }

    /**
     * Cycles of threads each waiting for a mutex the next one holds (a deadlock), each cycle listed
     * once, starting at its lowest serial.
     */
    public List<List<RecordedThread>> waitCycles() {
        List<List<RecordedThread>> cycles = new ArrayList<>();
        Set<Long> reported = new HashSet<>();
        for (RecordedThread start : threads) {
            List<RecordedThread> path = new ArrayList<>();
            Set<Long> onPath = new HashSet<>();
            RecordedThread at = start;
            // Each step follows one waiting edge: at most threads.size() steps.
            while (at != null && onPath.add(at.serial()) && path.size() <= threads.size()) {
                path.add(at);
                at = at.waitingFor().flatMap(m -> holderOf(m.waitId())).orElse(null);
            }
            if (at != null && at.serial() == start.serial() && !reported.contains(start.serial())) {
                path.forEach(t -> reported.add(t.serial()));
                cycles.add(List.copyOf(path));
            }
        }
        return cycles;
    }
}
