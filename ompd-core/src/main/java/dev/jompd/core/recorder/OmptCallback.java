package dev.jompd.core.recorder;

import java.util.Optional;

/** The callbacks of OpenMP 5.1 Table 4.2, by their {@code ompt_callbacks_t} number. */
public enum OmptCallback {
    THREAD_BEGIN(1), THREAD_END(2), PARALLEL_BEGIN(3), PARALLEL_END(4), TASK_CREATE(5), TASK_SCHEDULE(6),
    IMPLICIT_TASK(7), TARGET(8), TARGET_DATA_OP(9), TARGET_SUBMIT(10), CONTROL_TOOL(11),
    DEVICE_INITIALIZE(12), DEVICE_FINALIZE(13), DEVICE_LOAD(14), DEVICE_UNLOAD(15), SYNC_REGION_WAIT(16),
    MUTEX_RELEASED(17), DEPENDENCES(18), TASK_DEPENDENCE(19), WORK(20), MASKED(21), TARGET_MAP(22),
    SYNC_REGION(23), LOCK_INIT(24), LOCK_DESTROY(25), MUTEX_ACQUIRE(26), MUTEX_ACQUIRED(27), NEST_LOCK(28),
    FLUSH(29), CANCEL(30), REDUCTION(31), DISPATCH(32), TARGET_EMI(33), TARGET_DATA_OP_EMI(34),
    TARGET_SUBMIT_EMI(35), TARGET_MAP_EMI(36), ERROR(37);

    private final int id;

    OmptCallback(int id) {
        this.id = id;
    }

    /** The {@code ompt_callbacks_t} value. */
    public int id() {
        return id;
    }

    /** The specification's name, such as {@code ompt_callback_sync_region_wait}. */
    public String ompName() {
        return "ompt_callback_" + name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Optional<OmptCallback> of(int id) {
        for (OmptCallback callback : values()) {
            if (callback.id == id) {
                return Optional.of(callback);
            }
        }
        return Optional.empty();
    }

    /** The name of an event's kind field for this callback (see jompd-recorder.h), or the number. */
    public String kindName(long kind) {
        return switch (this) {
            case SYNC_REGION, SYNC_REGION_WAIT, REDUCTION -> name(kind, "barrier", "barrier_implicit",
                    "barrier_explicit", "barrier_implementation", "taskwait", "taskgroup", "reduction",
                    "barrier_implicit_workshare", "barrier_implicit_parallel", "barrier_teams");
            // workdistribute (9): OpenMP 6.0, in LLVM 23's omp-tools.h; older runtimes never report 9
            case WORK -> name(kind, "loop", "sections", "single_executor", "single_other", "workshare",
                    "distribute", "taskloop", "scope", "workdistribute", "loop_static", "loop_dynamic", "loop_guided",
                    "loop_other");
            case MUTEX_ACQUIRE, MUTEX_ACQUIRED, MUTEX_RELEASED, LOCK_INIT, LOCK_DESTROY, NEST_LOCK ->
                    MutexKind.of(kind).map(MutexKind::ompName).orElse(Long.toString(kind));
            case TASK_SCHEDULE -> name(kind, "complete", "yield", "cancel", "detach", "early_fulfill",
                    "late_fulfill", "switch", "taskwait_complete");
            case DISPATCH -> name(kind, "iteration", "section", "ws_loop_chunk", "taskloop_chunk",
                    "distribute_chunk");
            case TARGET, TARGET_EMI -> name(kind, "target", "enter_data", "exit_data", "update", null, null,
                    null, null, "target_nowait", "enter_data_nowait", "exit_data_nowait", "update_nowait");
            case THREAD_BEGIN -> name(kind, "initial", "worker", "other", "unknown");
            case TASK_CREATE, IMPLICIT_TASK -> taskFlags(kind);
            case CONTROL_TOOL -> switch ((int) kind) {
                case 1 -> "start";
                case 2 -> "pause";
                case 3 -> "flush";
                case 4 -> "end";
                case 64 -> "mark";
                case 65 -> "snapshot";
                default -> "command " + kind;
            };
            default -> kind == 0 ? "" : "0x" + Long.toHexString(kind);
        };
    }

    private static String name(long kind, String... names) {
        int index = (int) kind - 1;
        if (kind >= 1 && index < names.length && names[index] != null) {
            return names[index];
        }
        return Long.toString(kind);
    }

    private static String taskFlags(long flags) {
        StringBuilder text = new StringBuilder();
        String[] names = {"initial", "implicit", "explicit", "target"};
        for (int bit = 0; bit < names.length; bit++) {
            if ((flags & (1L << bit)) != 0) {
                text.append(text.isEmpty() ? "" : "|").append(names[bit]);
            }
        }
        // importing and exporting (0x02000000, 0x04000000): OpenMP 6.0, in LLVM 23's omp-tools.h
        String[] high = {"importing", "exporting", "undeferred", "untied", "final", "mergeable", "merged"};
        for (int i = 0; i < high.length; i++) {
            if ((flags & (0x02000000L << i)) != 0) {
                text.append(text.isEmpty() ? "" : "|").append(high[i]);
            }
        }
        return text.toString();
    }
}
