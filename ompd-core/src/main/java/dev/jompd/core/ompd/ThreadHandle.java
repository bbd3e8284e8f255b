package dev.jompd.core.ompd;

import dev.jompd.core.target.TargetThread;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * An OpenMP thread ({@code ompd_thread_handle_t}): the address of its {@code kmp_base_info_t}
 * ({@code __kmp_threads[gtid]->th}). It needs no OS-thread context, so navigation works however the
 * handle was obtained: from an OS thread id, by enumeration, or through a team.
 */
public final class ThreadHandle implements OmpdHandle {
    private final Stop stop;
    private final long base;
    private volatile OptionalLong gtid;

    ThreadHandle(Stop stop, long base, OptionalLong gtid) {
        this.stop = stop;
        this.base = base;
        this.gtid = gtid;
    }

    @Override
    public Scope scope() {
        return Scope.THREAD;
    }

    @Override
    public AddressSpaceHandle space() {
        stop.check(this);
        return stop.space();
    }

    /** The address of this thread's kmp_base_info_t in the target. */
    public long address() {
        return base;
    }

    /** __kmp_threads[gtid]->th as a value. */
    RemoteValue th() {
        return space().at(base, "kmp_base_info_t", "__kmp_threads[" + (gtid.isPresent() ? gtid.getAsLong() : "?") + "]->th");
    }

    /** libomp's global thread id: the index of this thread in {@code __kmp_threads}. */
    public long gtid() {
        if (gtid.isEmpty()) {
            long[] table = Ompd.threadTable(space());
            long info = base - space().layout().offset("kmp_info_t", "th");
            for (int i = 0; i < table.length; i++) {
                if (table[i] == info) {
                    gtid = OptionalLong.of(i);
                    break;
                }
            }
            if (gtid.isEmpty()) {
                throw new OmpdException(OmpdRc.ERROR, "thread at 0x" + Long.toHexString(base)
                        + " is not in __kmp_threads");
            }
        }
        return gtid.getAsLong();
    }

    /** The pthread_t of this thread: {@code th.th_info.ds.ds_thread}. */
    public long pthreadId() {
        // libomp: __kmp_threads[gtid]->th.th_info.ds.ds_thread
        return th().field("kmp_base_info_t", "th_info").field("kmp_desc_t", "ds")
                .field("kmp_desc_base_t", "ds_thread").asUnsigned();
    }

    /** The OS thread (LWP, registers) behind this OpenMP thread, when the target lists it. */
    public Optional<TargetThread> osThread() {
        return Optional.ofNullable(Ompd.osThreadsByPthread(space()).get(pthreadId()));
    }

    /** ompd_get_thread_id: this thread's id of the given kind. */
    public long threadId(ThreadIdKind kind) {
        return switch (kind) {
            case PTHREAD -> pthreadId();
            case LWP -> osThread().map(TargetThread::lwp).orElseThrow(() -> new OmpdException(OmpdRc.UNAVAILABLE,
                    "the target lists no OS thread with pthread id 0x" + Long.toHexString(pthreadId())));
            case GTID -> gtid();
            case WINTHREAD -> throw new OmpdException(OmpdRc.UNSUPPORTED, "Windows thread ids on a Linux target");
        };
    }

    /** The thread's number in its current team: {@code th.th_info.ds.ds_tid} (thread-num-var). */
    public long threadNum() {
        return th().field("kmp_base_info_t", "th_info").field("kmp_desc_t", "ds")
                .field("kmp_desc_base_t", "ds_tid").asLong();
    }

    /** ompd_get_curr_parallel_handle: the innermost parallel region this thread is in. */
    public ParallelHandle currentParallel() {
        // libomp: __kmp_threads[gtid]->th.th_team->t
        RemoteValue teamPointer = th().field("kmp_base_info_t", "th_team");
        if (teamPointer.pointerValue() == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "thread " + this + " is in no team (idle in the pool)");
        }
        RemoteValue team = teamPointer.deref("kmp_team_p").field("kmp_team_p", "t");
        ParallelHandle region = new ParallelHandle(stop, team.address(), 0);
        // A league's team: the thread is in its own team's implicit parallel region (its number in the league).
        return TeamsRegions.runsTeamsMaster(space(), team) ? region.asSeenBy(threadNum()) : region;
    }

    /** ompd_get_curr_task_handle: the task this thread is executing. */
    public TaskHandle currentTask() {
        // libomp: __kmp_threads[gtid]->th.th_current_task
        long task = th().field("kmp_base_info_t", "th_current_task").pointerValue();
        if (task == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "thread " + this + " executes no task");
        }
        return new TaskHandle(stop, task, 0);
    }

    /** ompd_get_state: the thread's OMPT state and wait id. */
    public ThreadStateInfo state() {
        requireStateTracking(space());
        // libomp: __kmp_threads[gtid]->th.ompt_thread_info.{state,wait_id}
        RemoteValue info = th().field("kmp_base_info_t", "ompt_thread_info");
        long code = info.field("ompt_thread_info_t", "state").asUnsigned();
        long waitId = info.field("ompt_thread_info_t", "wait_id").asUnsigned();
        return new ThreadStateInfo(code, ThreadState.of(code), waitId);
    }

    /**
     * Where {@link #state()}'s two fields lie, as offsets from a thread's {@code kmp_base_info_t} and sizes (the
     * same breadcrumbs {@link #state()} reads through): for a client that reads them itself, as libompd's shim
     * does for {@code ompd_get_state}. Empty when the runtime tracks no thread states ({@code ompd_state} 0).
     */
    public static Optional<StateFields> stateFields(AddressSpaceHandle space) {
        if (space.ompdState() == 0) {
            return Optional.empty();
        }
        RuntimeLayout layout = space.layout();
        // libomp: __kmp_threads[gtid]->th.ompt_thread_info.{state,wait_id}
        long info = layout.offset("kmp_base_info_t", "ompt_thread_info");
        return Optional.of(new StateFields(info + layout.offset("ompt_thread_info_t", "state"),
                layout.fieldSize("ompt_thread_info_t", "state"), info + layout.offset("ompt_thread_info_t", "wait_id"),
                layout.fieldSize("ompt_thread_info_t", "wait_id")));
    }

    /** The state's and the wait id's offsets from a thread's {@code kmp_base_info_t}, and their sizes. */
    public record StateFields(long stateOffset, long stateSize, long waitIdOffset, long waitIdSize) {}

    /** ompd_get_tool_data for the thread scope: {@code th.ompt_thread_info.thread_data}. */
    public ToolData toolData() {
        return ToolData.read(th().field("kmp_base_info_t", "ompt_thread_info")
                .field("ompt_thread_info_t", "thread_data"));
    }

    /** ompd_thread_handle_compare: orders handles by address, all 64 bits. */
    public int compareTo(ThreadHandle other) {
        return Long.compareUnsigned(base, other.base);
    }

    static void requireStateTracking(AddressSpaceHandle space) {
        if (space.ompdState() == 0) {
            throw new OmpdException(OmpdRc.NEEDS_STATE_TRACKING, "the runtime does not track thread states, "
                    + "task frames or task functions: run the program with OMP_DEBUG=enabled");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ThreadHandle other && other.base == base && other.stop == stop;
    }

    @Override
    public int hashCode() {
        return Objects.hash(base, stop.generation());
    }

    @Override
    public String toString() {
        return "thread" + (gtid.isPresent() ? " gtid " + gtid.getAsLong() : "") + " @0x" + Long.toHexString(base);
    }

    /** A thread's state: the raw OMPT code, its name when known, and the wait id. */
    public record ThreadStateInfo(long code, Optional<ThreadState> state, long waitId) {
        public String name() {
            return state.map(ThreadState::cName).orElse("unknown state 0x" + Long.toHexString(code));
        }
    }
}
