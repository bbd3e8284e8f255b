package dev.jompd.core.ompd;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetThread;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The entry points of the OMPD API (OpenMP 5.1 §5) that take no handle, and the process-wide queries.
 * Per-handle operations live on {@link ThreadHandle}, {@link ParallelHandle} and {@link TaskHandle};
 * each names the {@code ompd_*} function it implements.
 */
public final class Ompd {
    /** ompd_get_api_version: the OMPD version this library implements (OpenMP 5.1, November 2020). */
    public static final long API_VERSION = 202011;
    /** Upper bound on {@code __kmp_threads_capacity}: a larger value means corrupt memory. */
    static final int MAX_THREADS_CAPACITY = 1 << 20;

    private Ompd() {}

    /** ompd_get_api_version. */
    public static long apiVersion() {
        return API_VERSION;
    }

    /** ompd_get_version_string. */
    public static String versionString() {
        return "jompd " + Optional.ofNullable(Ompd.class.getPackage().getImplementationVersion()).orElse("dev")
                + ": OMPD " + API_VERSION + " (OpenMP 5.1) for LLVM libomp";
    }

    /**
     * ompd_process_initialize: finds the OMPD-enabled runtime in {@code target} and reads its layout.
     *
     * @throws OmpdException {@code unavailable} (no OpenMP runtime, or not initialised yet),
     *                       {@code incompatible} (no breadcrumbs: stripped or built without OMPD)
     */
    public static AddressSpaceHandle processInitialize(AddressSpace target) {
        TargetMemory memory = new TargetMemory(target);
        RuntimeLayout layout = RuntimeLayout.locate(target, memory);
        // ompd_init() fills the breadcrumbs at runtime start-up; zeros mean it has not run yet.
        if (layout.typeSize("kmp_info_t") == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "the OpenMP runtime in " + target.described()
                    + " is loaded but not initialised yet (its OMPD breadcrumbs are still zero)");
        }
        AddressSpaceHandle handle = new AddressSpaceHandle(target, memory, layout);
        handle.ompdState(); // fails early when the runtime's globals are unreadable
        return handle;
    }

    /** ompd_device_initialize: this runtime is host-only (libomptarget is not part of it). */
    public static AddressSpaceHandle deviceInitialize(AddressSpaceHandle process, long deviceKind) {
        throw new OmpdException(OmpdRc.UNAVAILABLE, "device kind " + deviceKind + ": jompd reads the host "
                + "runtime (libomp) only; offload devices (libomptarget) are not supported");
    }

    /** ompd_get_omp_version: the OpenMP version the runtime implements (such as 201611 or 202011). */
    public static long ompVersion(AddressSpaceHandle space) {
        // libomp: __kmp_openmp_version (int)
        return space.global("__kmp_openmp_version", null).asLong(space.layout().typeSize("int"));
    }

    /** ompd_get_omp_version_string. */
    public static String ompVersionString(AddressSpaceHandle space) {
        long version = ompVersion(space);
        Optional<String> release = OpenMpVersion.of(version).filter(v -> !v.preview()).map(OpenMpVersion::number);
        return "LLVM OpenMP runtime (" + space.layout().runtimeModule() + "), OpenMP " + version
                + release.map(number -> " (" + number + ")").orElse("");
    }

    /**
     * Every OpenMP thread of the process, in gtid order: the non-NULL entries of
     * {@code __kmp_threads[0 .. __kmp_threads_capacity)} (hidden-helper gtids stay NULL when unused).
     */
    public static List<ThreadHandle> threads(AddressSpaceHandle space) {
        Stop stop = space.stop();
        return stop.memo("threads", () -> {
            List<ThreadHandle> threads = new ArrayList<>();
            long[] table = threadTable(space);
            for (int gtid = 0; gtid < table.length; gtid++) {
                if (table[gtid] != 0) {
                    threads.add(new ThreadHandle(stop, infoToBase(space, table[gtid]), OptionalLong.of(gtid)));
                }
            }
            return List.copyOf(threads);
        });
    }

    /** __kmp_threads[0 .. capacity): kmp_info_t pointers by gtid, read in one block. */
    static long[] threadTable(AddressSpaceHandle space) {
        return space.stop().memo("threadTable", () -> {
            long capacity = space.global("__kmp_threads_capacity", null)
                    .asLong(space.layout().symbolSize("__kmp_threads_capacity").orElse(space.layout().typeSize("int")));
            if (capacity < 0 || capacity > MAX_THREADS_CAPACITY) {
                throw new OmpdException(OmpdRc.ERROR, "__kmp_threads_capacity is " + capacity
                        + ": memory corrupt (bound " + MAX_THREADS_CAPACITY + ")");
            }
            long array = space.global("__kmp_threads", null).pointerValue();
            if (array == 0 || capacity == 0) {
                return new long[0];
            }
            int pointerSize = space.memory().architecture().pointerSize();
            byte[] bytes;
            try {
                bytes = space.memory().read(array, (int) capacity * pointerSize);
            } catch (TargetException e) {
                throw new OmpdException(OmpdRc.DEVICE_READ_ERROR, "cannot read __kmp_threads[0.." + capacity
                        + ") at 0x" + Long.toHexString(array) + ": " + e.getMessage(), OptionalLong.of(array), e);
            }
            var buffer = java.nio.ByteBuffer.wrap(bytes).order(space.memory().architecture().byteOrder());
            long[] table = new long[(int) capacity];
            for (int i = 0; i < table.length; i++) {
                table[i] = buffer.getLong();
            }
            return table;
        });
    }

    /** kmp_info_t * → the address of its {@code th} member (kmp_base_info_t), which handles hold. */
    static long infoToBase(AddressSpaceHandle space, long info) {
        return info + space.layout().offset("kmp_info_t", "th");
    }

    /** The OS threads of the target by pthread id (glibc: a thread's pthread_t is its thread pointer). */
    static Map<Long, TargetThread> osThreadsByPthread(AddressSpaceHandle space) {
        return space.stop().memo("osThreadsByPthread", () -> {
            Map<Long, TargetThread> map = new HashMap<>();
            for (TargetThread thread : space.target().threads()) {
                thread.threadPointer().ifPresent(id -> map.putIfAbsent(id, thread));
            }
            return map;
        });
    }

    /** pthread id → gtid for every OpenMP thread, from {@code th_info.ds.ds_thread}. */
    static Map<Long, Integer> gtidsByPthread(AddressSpaceHandle space) {
        return space.stop().memo("gtidsByPthread", () -> {
            Map<Long, Integer> map = new LinkedHashMap<>();
            for (ThreadHandle thread : threads(space)) {
                map.putIfAbsent(thread.pthreadId(), (int) thread.gtid());
            }
            return map;
        });
    }

    /**
     * ompd_get_thread_handle: the OpenMP thread behind an OS thread id of the given kind.
     *
     * @throws OmpdException {@code unavailable} when that thread is not an OpenMP thread,
     *                       {@code unsupported} for an unknown kind, {@code bad_input} for a gtid out of range
     */
    public static ThreadHandle threadHandle(AddressSpaceHandle space, ThreadIdKind kind, long id) {
        Stop stop = space.stop();
        return switch (kind) {
            case PTHREAD -> {
                Integer gtid = gtidsByPthread(space).get(id);
                if (gtid == null) {
                    throw new OmpdException(OmpdRc.UNAVAILABLE, "pthread 0x" + Long.toHexString(id)
                            + " is not an OpenMP thread");
                }
                yield new ThreadHandle(stop, infoToBase(space, threadTable(space)[gtid]), OptionalLong.of(gtid));
            }
            case LWP -> {
                TargetThread os = space.target().threads().stream().filter(t -> t.lwp() == id).findFirst()
                        .orElseThrow(() -> new OmpdException(OmpdRc.BAD_INPUT, "no thread with LWP " + id
                                + " in " + space.target().name()));
                long pthread = os.threadPointer().orElseThrow(() -> new OmpdException(OmpdRc.UNAVAILABLE,
                        "LWP " + id + " has no thread pointer (fs_base) to identify it by"));
                try {
                    yield threadHandle(space, ThreadIdKind.PTHREAD, pthread);
                } catch (OmpdException notOpenMp) {
                    throw new OmpdException(OmpdRc.UNAVAILABLE, "LWP " + id + " is not an OpenMP thread");
                }
            }
            case GTID -> {
                long[] table = threadTable(space);
                if (id < 0 || id >= table.length) {
                    throw new OmpdException(OmpdRc.BAD_INPUT, "gtid " + id + " outside 0.." + (table.length - 1));
                }
                if (table[(int) id] == 0) {
                    throw new OmpdException(OmpdRc.UNAVAILABLE, "no OpenMP thread has gtid " + id);
                }
                yield new ThreadHandle(stop, infoToBase(space, table[(int) id]), OptionalLong.of(id));
            }
            case WINTHREAD -> throw new OmpdException(OmpdRc.UNSUPPORTED, "Windows thread ids on a Linux target");
        };
    }

    /**
     * ompd_enumerate_states: every thread state the runtime can report, in enumeration order.
     */
    public static List<ThreadState> states() {
        return List.of(ThreadState.values());
    }

    /** ompd_enumerate_icvs: every ICV jompd knows, in id order. */
    public static List<Icv> icvs() {
        return Icv.ALL;
    }

    /**
     * ompd_get_display_control_vars: the runtime's OMP_* and KMP_* settings, {@code NAME=value}, as
     * captured at start-up ({@code ompd_env_block}).
     */
    public static List<String> displayControlVariables(AddressSpaceHandle space) {
        long block = space.global("ompd_env_block", null).pointerValue();
        long size = space.global("ompd_env_block_size", null).asUnsigned(8);
        if (block == 0 || size == 0) {
            return List.of();
        }
        if (size > (1 << 20)) {
            throw new OmpdException(OmpdRc.ERROR, "ompd_env_block_size is " + size + ": memory corrupt");
        }
        byte[] bytes;
        try {
            bytes = space.memory().read(block, (int) size);
        } catch (TargetException e) {
            throw new OmpdException(OmpdRc.DEVICE_READ_ERROR, "cannot read ompd_env_block: " + e.getMessage(),
                    OptionalLong.of(block), e);
        }
        String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        int nul = text.indexOf('\0');
        if (nul >= 0) {
            text = text.substring(0, nul);
        }
        return text.lines().filter(line -> !line.isBlank()).toList();
    }
}
