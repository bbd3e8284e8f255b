package dev.jompd.report;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.RuntimeLocks;
import dev.jompd.core.recorder.DeviceRecord;
import dev.jompd.core.recorder.LockHolder;
import dev.jompd.core.recorder.Mark;
import dev.jompd.core.recorder.MutexKind;
import dev.jompd.core.recorder.MutexRecord;
import dev.jompd.core.recorder.OmptCallback;
import dev.jompd.core.recorder.RecordedEvent;
import dev.jompd.core.recorder.RecordedThread;
import dev.jompd.core.recorder.RecorderSnapshot;
import dev.jompd.core.recorder.WhyHere;
import dev.jompd.core.target.TargetException;
import dev.jompd.report.OpenMpPicture.OpenMpThread;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the jompd-recorder (an OMPT tool in the target) kept of the program's past, as the picture shows it:
 * each OpenMP thread's most recent events, why it is where it is (the events that led there, in words), who
 * holds the mutexes others wait for, wait cycles (deadlocks), which events this runtime delivers at all,
 * devices and their target regions. Present only when the program runs with the recorder.
 *
 * <p>Times are the target's CLOCK_MONOTONIC; the doors show them relative to the newest event the recorder
 * holds in the whole process ({@link #newestEventNanos()}): a core says nothing about when it was written.
 *
 * @param names       names of code, for the source lines of the events' return addresses (null: none)
 * @param lockObjects libomp's lock object of each {@code omp_lock_t} / {@code omp_nest_lock_t} the recorder
 *                    names (OMPT's wait id of a lock is the user's {@code &L}; libomp's lock table, OMPD's wait
 *                    ids and the diagnosis key a lock by its object): user address to object, for the locks
 *                    whose word could be read
 */
public record RecordedHistory(RecorderSnapshot snapshot, CodeNames names, Map<Long, Long> lockObjects) {
    /**
     * How many of a thread's most recent events the text renderings show unless asked for more (the JSON
     * carries every event the recorder keeps).
     */
    public static final int RECENT_EVENTS = 8;
    /** What the relative times of the renderings count from, in words. */
    public static final String TIME_REFERENCE = "times relative to the newest event recorded in the process";

    public RecordedHistory {
        lockObjects = Map.copyOf(lockObjects);
    }

    /** A history without names of code: sentences then give no file:line. */
    public RecordedHistory(RecorderSnapshot snapshot) {
        this(snapshot, null);
    }

    /** A history whose locks are known only by their OMPT wait ids (the user's {@code &L}). */
    public RecordedHistory(RecorderSnapshot snapshot, CodeNames names) {
        this(snapshot, names, Map.of());
    }

    /**
     * The history of {@code snapshot} in {@code process}, each lock the recorder names (by the user's
     * {@code &L}) tied to libomp's lock object where the lock's word says which it is.
     */
    public static RecordedHistory inProcess(RecorderSnapshot snapshot, CodeNames names, AddressSpaceHandle process) {
        Map<Long, Long> objects = new HashMap<>();
        for (RecordedThread thread : snapshot.threads()) {
            List<MutexRecord> mutexes = new ArrayList<>(thread.held());
            thread.waitingFor().ifPresent(mutexes::add);
            for (MutexRecord mutex : mutexes) {
                if (userLock(mutex) && !objects.containsKey(mutex.waitId())) {
                    try {
                        objects.put(mutex.waitId(), RuntimeLocks.userLock(process, mutex.waitId()).object());
                    } catch (OmpdException | TargetException unreadable) {
                        // not tied: the lock keeps its user address, and no finding about an object names it
                    }
                }
            }
        }
        return new RecordedHistory(snapshot, names, objects);
    }

    /** A mutex whose OMPT wait id is the address of the user's omp_lock_t / omp_nest_lock_t. */
    private static boolean userLock(MutexRecord mutex) {
        return MutexKind.of(mutex.kindId()).filter(kind -> kind == MutexKind.LOCK || kind == MutexKind.TEST_LOCK
                || kind == MutexKind.NEST_LOCK || kind == MutexKind.TEST_NEST_LOCK).isPresent();
    }

    /**
     * A mutex a recorded thread holds.
     *
     * @param thread the holder
     * @param mutex  the holder's record of it: where and when it took it
     */
    public record Holding(RecordedThread thread, MutexRecord mutex) {}

    /**
     * Who the recorder saw take the lock or critical section whose libomp lock object (OMPD wait id) is
     * {@code object}, and has not seen release it: a live thread; empty when none did.
     */
    public Optional<Holding> holderOfLockObject(long object) {
        for (RecordedThread thread : snapshot.threads()) {
            if (thread.ended()) {
                continue;
            }
            for (MutexRecord held : thread.held()) {
                if (lockObjects.getOrDefault(held.waitId(), held.waitId()) == object) {
                    return Optional.of(new Holding(thread, held));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The holder in the diagnosis's words: {@code omp 1/3 (LWP 9033), which took it at deadlock.c:58}; a
     * thread the runtime does not list as an OpenMP thread by its LWP.
     */
    String holderWords(OpenMpPicture picture, Holding holding, Naming naming) {
        return picture.threadByPthread(holding.thread().pthreadId())
                .or(() -> picture.threadByLwp(holding.thread().lwp())).map(naming::thread)
                .orElse(naming.lwp(holding.thread().lwp()) + " (no OpenMP thread the runtime lists)")
                + ", which took it" + at(holding.mutex().codeReturnAddress());
    }

    /** The recorder's record of an OpenMP thread (by its pthread_t, else its LWP). */
    public Optional<RecordedThread> of(OpenMpThread thread) {
        return snapshot.threadByPthread(thread.pthread())
                .or(() -> thread.lwp().isPresent() ? snapshot.threadByLwp(thread.lwp().getAsLong()) : Optional.empty());
    }

    /** The thread's {@link #RECENT_EVENTS} most recent events, oldest first. */
    public List<RecordedEvent> recent(OpenMpThread thread) {
        return recent(thread, RECENT_EVENTS);
    }

    /** The thread's {@code count} most recent events, oldest first. */
    public List<RecordedEvent> recent(OpenMpThread thread, int count) {
        return of(thread).map(t -> t.recentEvents(count)).orElse(List.of());
    }

    /** Every event the recorder keeps of the thread (its ring), oldest first. */
    public List<RecordedEvent> events(OpenMpThread thread) {
        return of(thread).map(RecordedThread::events).orElse(List.of());
    }

    /**
     * The events in words ({@link RecordedEvent#describe()}), a mark or snapshot the thread sent with its
     * message: {@code control_tool mark modifier 1 "phase 2 done"} (a mark sent without one, as Fortran's
     * omp_control_tool does: {@code control_tool mark modifier 7, no message}).
     */
    public List<String> describe(OpenMpThread thread, List<RecordedEvent> events) {
        Map<Long, Mark> marks = of(thread).map(snapshot::marksOf).orElse(Map.of());
        return events.stream().map(event -> describe(event, marks)).toList();
    }

    private static String describe(RecordedEvent event, Map<Long, Mark> marks) {
        Mark mark = marks.get(event.sequence());
        if (mark == null) {
            return event.describe();
        }
        return event.describe() + " modifier " + Long.toUnsignedString(mark.modifier())
                + (mark.text().isEmpty() ? ", no message" : " " + quoted(mark.text()));
    }

    /** The program's message in double quotes, a quote, backslash or control character in it escaped. */
    static String quoted(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                quoted.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    /**
     * The marks and snapshots the program sent, oldest first, one line each: {@code mark 2 modifier 1
     * "phase 2 done" from LWP 4711 (omp 0/1 · …) (-1.203 s)}; the recorder keeps the most recent
     * {@code constant.marks} of them (the line says how many it received before those).
     */
    public List<String> marks(OpenMpPicture picture) {
        List<String> lines = new ArrayList<>();
        long dropped = snapshot.marksReceived() - snapshot.marks().size();
        for (Mark mark : snapshot.marks()) {
            String from = snapshot.threads().stream().filter(t -> t.serial() == mark.threadSerial()).findFirst()
                    .map(t -> threadName(picture, t)).orElse("a thread the recorder has no record of");
            lines.add((mark.isSnapshot() ? "snapshot " : "mark ") + mark.sequence() + " modifier "
                    + Long.toUnsignedString(mark.modifier()) + (mark.text().isEmpty() ? ", no message" : " " + quoted(mark.text()))
                    + " from " + from + " (" + relative(mark.timeNanos()) + ")");
        }
        if (dropped > 0 && !lines.isEmpty()) {
            lines.addFirst("(" + dropped + " older marks were overwritten: the recorder keeps the last " + snapshot.marks().size() + ")");
        }
        return lines;
    }

    /** Mutexes that someone holds or waits for, with the holder and the waiters. */
    public List<LockHolder> lockHolders() {
        return snapshot.lockHolders();
    }

    /** Cycles of threads each waiting for a mutex the next one holds. */
    public List<List<RecordedThread>> deadlocks() {
        return snapshot.waitCycles();
    }

    /** The time of the newest event any thread's ring holds (the reference of relative times); 0 without events. */
    public long newestEventNanos() {
        long newest = 0;
        for (RecordedThread thread : snapshot.threads()) {
            if (!thread.events().isEmpty()) {
                newest = Math.max(newest, thread.events().getLast().timeNanos());
            }
        }
        return newest;
    }

    /**
     * {@code -1.203 s}, {@code -4.736 ms}, {@code -36.2 us} ({@code the newest event} itself): a time relative
     * to {@link #newestEventNanos()}, the one time base of every rendering.
     */
    public String relative(long nanos) {
        long delta = nanos - newestEventNanos();
        if (delta == 0) {
            return "the newest event";
        }
        long size = Math.abs(delta);
        return size < 1_000_000 ? String.format(Locale.ROOT, "%+.1f us", delta / 1e3)
                : size < 1_000_000_000 ? String.format(Locale.ROOT, "%+.3f ms", delta / 1e6)
                : String.format(Locale.ROOT, "%+.3f s", delta / 1e9);
    }

    /**
     * Why the thread is where it is, in plain words, from what the recorder saw it do: the scopes it
     * entered and has not left (outermost first, each with where and when), the mutex it waits for and who
     * holds it (acquired where and when), the mutexes it holds, and its last event. Empty when the recorder
     * has no record of the thread.
     */
    public List<String> whyHere(OpenMpPicture picture, OpenMpThread thread) {
        Optional<RecordedThread> recorded = of(thread);
        if (recorded.isEmpty()) {
            return List.of();
        }
        WhyHere why = snapshot.whyHere(recorded.get(), RECENT_EVENTS);
        List<String> sentences = new ArrayList<>();
        List<RecordedEvent> scopes = why.insideScopes();
        for (int i = 0; i < scopes.size(); i++) {
            RecordedEvent scope = scopes.get(i);
            sentences.add(entered(scope));
            // a task the thread took up while in this wait (the task the next scope was begun in, or the task
            // its last task switch after the innermost one went to)
            if (isSyncRegion(scope) && scope.taskId() != 0) {
                OptionalLong running = i + 1 < scopes.size()
                        ? (isTaskScope(scopes.get(i + 1)) ? OptionalLong.of(scopes.get(i + 1).taskId()) : OptionalLong.empty())
                        : taskSwitchedToAfter(recorded.get(), scope);
                if (running.isPresent() && running.getAsLong() != 0 && running.getAsLong() != scope.taskId()) {
                    sentences.add(runsTask(picture, recorded.get(), running.getAsLong(), scope));
                }
            }
        }
        if (why.insideScopes().isEmpty()) {
            sentences.add("the " + recorded.get().events().size() + " events the recorder keeps of it show no scope it "
                    + "is still in" + (recorded.get().eventsLost() > 0 ? " (" + recorded.get().eventsLost()
                    + " older events were overwritten: JOMPD_RECORDER_EVENTS keeps more)" : ""));
        }
        why.waitingFor().ifPresent(wanted -> {
            StringBuilder sentence = new StringBuilder("waits for ").append(wanted.kindName()).append(' ')
                    .append(Text.hex(wanted.waitId())).append(", asked for").append(at(wanted.codeReturnAddress()))
                    .append(" (").append(relative(wanted.timeNanos())).append(")");
            if (why.heldBy().isPresent()) {
                RecordedThread holder = why.heldBy().get();
                sentence.append(", which ").append(threadName(picture, holder)).append(" acquired");
                holder.held().stream().filter(m -> m.waitId() == wanted.waitId()).findFirst().ifPresent(held ->
                        sentence.append(at(held.codeReturnAddress())).append(" (").append(relative(held.timeNanos())).append(")"));
                sentence.append(" and holds");
            } else {
                sentence.append("; the recorder saw no live thread acquire it (taken before monitoring began, "
                        + "or by a thread it does not know)");
            }
            sentences.add(sentence.toString());
        });
        for (MutexRecord held : recorded.get().held()) {
            sentences.add("holds " + held.kindName() + " " + Text.hex(held.waitId()) + ", acquired" + at(held.codeReturnAddress())
                    + " (" + relative(held.timeNanos()) + ")");
        }
        if (!recorded.get().events().isEmpty()) {
            RecordedEvent last = recorded.get().events().getLast();
            if (why.insideScopes().isEmpty() || why.insideScopes().getLast().sequence() != last.sequence()) {
                sentences.add("its last event: " + describe(last, snapshot.marksOf(recorded.get())) + at(last.codeReturnAddress())
                        + " (" + relative(last.timeNanos()) + ")");
            }
        }
        return sentences;
    }

    private static boolean isSyncRegion(RecordedEvent scope) {
        return scope.callback().filter(c -> c == OmptCallback.SYNC_REGION || c == OmptCallback.SYNC_REGION_WAIT).isPresent();
    }

    /** A scope begun in a task of this thread's own (not a nested region's implicit task, nor a target's). */
    private static boolean isTaskScope(RecordedEvent scope) {
        return scope.callback().filter(c -> c == OmptCallback.SYNC_REGION || c == OmptCallback.SYNC_REGION_WAIT
                || c == OmptCallback.WORK || c == OmptCallback.MASKED || c == OmptCallback.REDUCTION).isPresent();
    }

    /** The task the thread's last task switch after {@code scope} began went to (task_schedule's next task). */
    private static OptionalLong taskSwitchedToAfter(RecordedThread thread, RecordedEvent scope) {
        OptionalLong next = OptionalLong.empty();
        for (RecordedEvent event : thread.events()) {
            if (event.sequence() > scope.sequence() && event.callbackId() == OmptCallback.TASK_SCHEDULE.id()) {
                next = OptionalLong.of(event.value());
            }
        }
        return next;
    }

    /**
     * "runs task 12 there, created at tasks.c:30 by LWP 4711 (omp 0/2 · …) (-1.203 ms), since -0.98 ms": the
     * task a thread took up in a wait, where its task_create event was (any thread's ring that still holds it)
     * and when the thread switched to it.
     */
    private String runsTask(OpenMpPicture picture, RecordedThread thread, long task, RecordedEvent scope) {
        StringBuilder sentence = new StringBuilder("runs task ").append(task).append(" there");
        Optional<String> created = Optional.empty();
        for (RecordedThread creator : snapshot.threads()) {
            for (RecordedEvent event : creator.events()) {
                if (event.callbackId() == OmptCallback.TASK_CREATE.id() && event.taskId() == task) {
                    created = Optional.of(", created" + at(event.codeReturnAddress()) + " by " + threadName(picture, creator)
                            + " (" + relative(event.timeNanos()) + ")");
                }
            }
        }
        sentence.append(created.orElse(" (its creation is older than every event the recorder keeps)"));
        RecordedEvent switched = null;
        for (RecordedEvent event : thread.events()) {
            if (event.sequence() > scope.sequence() && event.callbackId() == OmptCallback.TASK_SCHEDULE.id()
                    && event.value() == task) {
                switched = event;
            }
        }
        if (switched != null) {
            sentence.append(", since ").append(relative(switched.timeNanos()));
        }
        return sentence.toString();
    }

    /** "entered an explicit barrier at waits.c:40 (-0.812 s)", for an open scope's begin event. */
    private String entered(RecordedEvent scope) {
        String when = " (" + relative(scope.timeNanos()) + ")";
        String where = at(scope.codeReturnAddress());
        OmptCallback callback = scope.callback().orElse(null);
        if (callback == null) {
            return "began " + scope.describe() + where + when;
        }
        return switch (callback) {
            case PARALLEL_BEGIN -> "started a parallel region" + where + " (team of " + scope.value() + " asked for)" + when;
            case IMPLICIT_TASK -> (scope.kind() & 1) != 0 ? "began the initial task (the program outside parallel regions)" + when
                    : "began its implicit task, thread " + (scope.aux() & 0xffff_ffffL) + " of a team of "
                    + (scope.aux() >>> 32) + when;
            case SYNC_REGION -> "entered " + syncName(scope.kindName()) + where + when;
            case SYNC_REGION_WAIT -> "began waiting in " + syncName(scope.kindName()) + where + when;
            case WORK -> "entered a worksharing " + scope.kindName().replace('_', ' ') + where + when;
            case MASKED -> "entered a masked region" + where + when;
            case REDUCTION -> "began a reduction" + where + when;
            case TARGET, TARGET_EMI -> "began a " + scope.kindName().replace('_', ' ') + " region on device " + scope.aux()
                    + where + when;
            case NEST_LOCK -> "holds nest lock " + Text.hex(scope.value()) + " again" + where + when;
            default -> "began " + scope.describe() + where + when;
        };
    }

    private static String syncName(String kind) {
        return switch (kind) {
            case "barrier_explicit" -> "an explicit barrier";
            case "barrier_implicit", "barrier_implicit_parallel" -> "the implicit barrier at the end of the parallel region";
            case "barrier_implicit_workshare" -> "the implicit barrier of a worksharing construct";
            case "barrier_implementation" -> "a barrier of the runtime's own";
            case "barrier_teams" -> "the barrier of a teams region";
            case "barrier" -> "a barrier";
            case "taskwait" -> "a taskwait";
            case "taskgroup" -> "the end of a taskgroup";
            case "reduction" -> "a reduction";
            default -> kind;
        };
    }

    /** " at waits.c:40" (the line of the call a return address returns to), or "" when unknown. */
    String at(long codeReturnAddress) {
        if (codeReturnAddress == 0 || names == null) {
            return "";
        }
        Optional<CodeLocation> code = names.name(codeReturnAddress - 1);
        return code.flatMap(CodeLocation::shortSource).map(source -> " at " + source)
                .or(() -> code.map(c -> " in " + c.displayName())).orElse("");
    }

    /** "LWP 4711 (omp 1 · 2/4 · level 1 · …)" when the picture knows the thread, else "LWP 4711". */
    static String threadName(OpenMpPicture picture, RecordedThread thread) {
        return "LWP " + thread.lwp() + picture.threads().stream()
                .filter(t -> t.pthread() == thread.pthreadId() || t.lwp().equals(OptionalLong.of(thread.lwp())))
                .findFirst().map(t -> " (" + t.name() + ")").orElse("");
    }

    /** A device the runtime initialised, with the target regions the host threads sent to it. */
    public record DeviceActivity(DeviceRecord device, long targetRegions, Optional<RecordedEvent> lastTarget,
                                 Optional<RecordedThread> lastTargetThread, String summary) {}

    /**
     * Each device with what the host threads' events say was done on it, and one sentence for it: "device 0
     * (generic-64bit): initialised (-1.2 s), 3 target regions, last: target at offload.c:20 by LWP 12 (…)
     * (-0.1 s); tracing unavailable: …". Target regions are counted from the target events the rings still
     * hold (an older one overwritten is not counted: the sentence says "at least" then).
     */
    public List<DeviceActivity> devices(OpenMpPicture picture) {
        List<DeviceActivity> activities = new ArrayList<>();
        boolean anyLost = snapshot.threads().stream().anyMatch(t -> t.eventsLost() > 0);
        for (DeviceRecord device : snapshot.devices()) {
            long count = 0;
            RecordedEvent last = null;
            RecordedThread lastThread = null;
            for (RecordedThread thread : snapshot.threads()) {
                for (RecordedEvent event : thread.events()) {
                    boolean target = event.callback().filter(c -> c == OmptCallback.TARGET || c == OmptCallback.TARGET_EMI).isPresent();
                    if (target && event.isBegin() && event.aux() == device.deviceNumber()) {
                        count++;
                        if (last == null || event.timeNanos() >= last.timeNanos()) {
                            last = event;
                            lastThread = thread;
                        }
                    }
                }
            }
            StringBuilder summary = new StringBuilder("device ").append(device.deviceNumber()).append(" (")
                    .append(device.type().isEmpty() ? "type not given" : device.type()).append("): initialised (")
                    .append(relative(device.initializeTimeNanos())).append(")");
            device.finalizeTimeNanos().ifPresent(t -> summary.append(", finalised (").append(relative(t)).append(")"));
            if (device.loads() > 0) {
                summary.append(", ").append(device.loads()).append(device.loads() == 1 ? " code image" : " code images")
                        .append(" loaded (").append(device.loadBytes()).append(" bytes)");
            }
            summary.append(", ").append(anyLost ? "at least " : "").append(count)
                    .append(count == 1 ? " target region" : " target regions");
            if (last != null) {
                summary.append(", last: ").append(last.kindName().replace('_', ' ')).append(at(last.codeReturnAddress()))
                        .append(" by ").append(threadName(picture, lastThread)).append(" (").append(relative(last.timeNanos())).append(")");
            }
            summary.append("; tracing ").append(switch (device.tracing()) {
                case UNAVAILABLE -> "unavailable: the device's lookup offers no "
                        + (device.entryPoints().contains("ompt_start_trace") ? "ompt_set_trace_ompt or buffer entry points"
                        : "ompt_start_trace") + ", so no device-side records";
                case STARTED -> "on, " + device.traceRecordsReceived() + " records received";
                case STOPPED -> "stopped, " + device.traceRecordsReceived() + " records received";
                case FAILED -> "failed: ompt_start_trace answered 0";
                case UNKNOWN -> "state unknown";
            });
            activities.add(new DeviceActivity(device, count, Optional.ofNullable(last), Optional.ofNullable(lastThread),
                    summary.toString()));
        }
        return activities;
    }

    /** "+12.345 ms" relative to the thread's newest event, for text renderings. */
    static String age(RecordedEvent event, RecordedEvent newest) {
        return String.format("%+.3f ms", (event.timeNanos() - newest.timeNanos()) / 1e6);
    }
}
