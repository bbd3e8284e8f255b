package dev.jompd.core.recorder;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Finds the jompd-recorder in a target through its exported descriptor and reads what it recorded.
 * A target without the recorder answers empty: nothing else changes for it. Every list walk is
 * bounded and every count checked against the recorder's own constants, so a corrupt core gives a
 * {@link RecorderFormatException}, never a hang.
 */
public final class Recorder {
    /** The exported symbol the recorder describes itself with. */
    public static final String DESCRIPTOR_SYMBOL = "jompd_recorder_descriptor";
    /** The tool commands of omp_control_tool the recorder understands. */
    public static final int COMMAND_MARK = 64;
    public static final int COMMAND_SNAPSHOT = 65;

    private static final int MAX_THREADS = 1 << 16;
    private static final long MAX_RING = 1L << 20;
    /**
     * The most ring bytes one recording may make us read, all threads together: some 6 million events of the
     * recorder's 80 bytes (100 threads with 2^16-event rings; its default is 1,024 a thread). More is a
     * corrupt record, or a history too large to show.
     */
    static final long MAX_RING_BYTES = 1L << 29;
    private static final int MAX_TEXT = 4096;

    private final TargetMemory memory;
    private final RecorderLayout layout;
    private final ByteOrder order;
    private RecorderClock clock;
    /** The rings read so far, by address, and the thread record each belongs to. */
    private final Map<Long, Long> ringOwners = new java.util.HashMap<>();
    private long ringBytes;

    private Recorder(TargetMemory memory, RecorderLayout layout) {
        this.memory = memory;
        this.layout = layout;
        this.order = memory.architecture().byteOrder();
    }

    /** The recorder's record in an OpenMP process, read within its current stop (through its cache). */
    public static Optional<RecorderSnapshot> find(AddressSpaceHandle process) {
        return find(process.target(), process.memory());
    }

    /** The recorder's record in any target (an OpenMP runtime need not be readable by OMPD). */
    public static Optional<RecorderSnapshot> find(AddressSpace target) {
        return find(target, new TargetMemory(target));
    }

    private static Optional<RecorderSnapshot> find(AddressSpace target, TargetMemory memory) {
        Optional<TargetSymbol> descriptor = target.lookupSymbol(DESCRIPTOR_SYMBOL);
        if (descriptor.isEmpty()) {
            return Optional.empty();
        }
        TargetSymbol symbol = descriptor.get();
        try {
            RecorderLayout layout = RecorderLayout.read(memory, symbol.address());
            return Optional.of(new Recorder(memory, layout).snapshot(moduleName(symbol.module())));
        } catch (RecorderFormatException e) {
            throw e;
        } catch (TargetException | IllegalArgumentException e) {
            throw new RecorderFormatException("cannot read the jompd-recorder's records (descriptor at 0x%x in %s): %s"
                    .formatted(symbol.address(), symbol.module(), e.getMessage()), symbol.address(), e);
        }
    }

    /**
     * An explicit task's id from its OMPT tool data value (ompd_get_tool_data): a version-2 recorder keeps
     * it there tagged ({@code (id << 1) | constant.task_id_tag}) instead of a record; empty for a value that
     * is no tagged id (a record's address, or an older recorder).
     */
    public static java.util.OptionalLong explicitTaskId(RecorderSnapshot snapshot, long toolDataValue) {
        java.util.OptionalLong tag = snapshot.layout().entry("constant.task_id_tag");
        return tag.isPresent() && tag.getAsLong() != 0 && (toolDataValue & tag.getAsLong()) != 0
                ? java.util.OptionalLong.of(toolDataValue >>> 1) : java.util.OptionalLong.empty();
    }

    /**
     * The region or implicit task record an OMPT tool data pointer of a parallel region or implicit task
     * points to (ompd_get_tool_data), when the recorder put it there.
     */
    public static RecordedRegion regionAt(AddressSpaceHandle process, RecorderSnapshot snapshot, long pointer) {
        Recorder recorder = new Recorder(process.memory(), snapshot.layout());
        recorder.clock = snapshot.clock();
        return recorder.region(pointer);
    }

    private static String moduleName(String module) {
        Path file = Path.of(module).getFileName();
        return file == null ? module : file.toString();
    }

    private RecorderSnapshot snapshot(String module) {
        long state = layout.statePointer();
        long callbacks = layout.constant("callbacks");
        Map<OmptCallback, Registration> registrations = new EnumMap<>(OmptCallback.class);
        long registrationAt = state + layout.offset("state", "registration");
        int registrationSize = (int) (layout.fieldSize("state", "registration") / callbacks);
        for (OmptCallback callback : OmptCallback.values()) {
            if (callback.id() < callbacks) {
                long code = memory.readSigned(registrationAt + (long) callback.id() * registrationSize, registrationSize);
                registrations.put(callback, registrationOf(code, registrationAt));
            }
        }
        long capacity = field(state, "state", "ring_capacity");
        long monitoring = field(state, "state", "monitoring");
        String runtimeVersion = text(state + layout.offset("state", "runtime_version"),
                layout.fieldSize("state", "runtime_version"));
        long commandCount = field(state, "state", "command_count");
        long markCount = field(state, "state", "mark_count");
        List<Long> threadAddresses = threadAddresses(state);
        clock = clock(state, threadAddresses);
        List<RecordedThread> threads = new ArrayList<>();
        for (long address : threadAddresses) {
            threads.add(thread(address));
        }
        threads.sort(java.util.Comparator.comparingLong(RecordedThread::serial));
        return new RecorderSnapshot(module, layout, clock, capacity, monitoringOf(monitoring),
                field(state, "state", "omp_version"), runtimeVersion, threads, registrations,
                commandCount, commands(state, commandCount), markCount, marks(state, markCount), devices(state));
    }

    private static Registration registrationOf(long code, long address) {
        try {
            return Registration.of(code);
        } catch (IllegalArgumentException e) {
            throw new RecorderFormatException("registration result %d at 0x%x is no ompt_set_result_t".formatted(code, address),
                    address);
        }
    }

    private static RecorderSnapshot.Monitoring monitoringOf(long value) {
        return switch ((int) value) {
            case 1 -> RecorderSnapshot.Monitoring.ON;
            case 2 -> RecorderSnapshot.Monitoring.PAUSED;
            case 3 -> RecorderSnapshot.Monitoring.ENDED;
            default -> RecorderSnapshot.Monitoring.UNKNOWN;
        };
    }

    // state->threads, then thread->next (newest first)
    private List<Long> threadAddresses(long state) {
        List<Long> addresses = new ArrayList<>();
        Set<Long> visited = new HashSet<>();
        long at = memory.readPointer(state + layout.offset("state", "threads"));
        while (at != 0) {
            if (!visited.add(at) || addresses.size() >= MAX_THREADS) {
                throw new RecorderFormatException("the recorder's thread list loops or exceeds %d entries at 0x%x"
                        .formatted(MAX_THREADS, at), at);
            }
            addresses.add(at);
            at = memory.readPointer(at + layout.offset("thread", "next"));
        }
        return addresses;
    }

    /** The start-up pair and the latest pair of all: the state's calibration or a thread's published one. */
    private RecorderClock clock(long state, List<Long> threads) {
        long ticks1 = field(state, "state", "clock_ticks1");
        long nanos1 = field(state, "state", "clock_ns1");
        int pairSize = layout.fieldSize("thread", "clock_ticks") / 2;
        for (long thread : threads) {
            long slot = field(thread, "thread", "clock_slot") & 1;
            long ticks = memory.readUnsigned(thread + layout.offset("thread", "clock_ticks") + slot * pairSize, pairSize);
            long nanos = memory.readUnsigned(thread + layout.offset("thread", "clock_ns") + slot * pairSize, pairSize);
            if (ticks - ticks1 > 0) {
                ticks1 = ticks;
                nanos1 = nanos;
            }
        }
        return RecorderClock.of((int) field(state, "state", "clock_kind"), field(state, "state", "clock_ticks0"),
                field(state, "state", "clock_ns0"), ticks1, nanos1, state);
    }

    private RecordedThread thread(long at) {
        long capacity = field(at, "thread", "capacity");
        long head = field(at, "thread", "head");
        if (capacity == 0 || capacity > MAX_RING || Long.bitCount(capacity) != 1) {
            throw new RecorderFormatException("thread record at 0x%x has a ring of %d events (a power of two up to %d expected)"
                    .formatted(at, capacity, MAX_RING), at);
        }
        long ended = field(at, "thread", "ended");
        long endTime = field(at, "thread", "end_time_ns");
        long heldCount = field(at, "thread", "held_count");
        long heldMax = layout.constant("held_max");
        if (Long.compareUnsigned(heldCount, heldMax) > 0) {
            throw new RecorderFormatException("thread record at 0x%x claims %d held mutexes (at most %d)"
                    .formatted(at, heldCount, heldMax), at);
        }
        List<MutexRecord> held = new ArrayList<>();
        long heldAt = at + layout.offset("thread", "held");
        for (long i = 0; i < heldCount; i++) {
            held.add(mutex(heldAt + i * layout.sizeOf("mutex")));
        }
        MutexRecord waiting = mutex(at + layout.offset("thread", "waiting"));
        return new RecordedThread(at, field(at, "thread", "serial"), field(at, "thread", "pthread_id"),
                field(at, "thread", "lwp"), (int) field(at, "thread", "thread_type"), ended != 0,
                time(field(at, "thread", "begin_time_ns")), ended != 0 ? OptionalLong.of(time(endTime)) : OptionalLong.empty(),
                capacity, head, events(at, memory.readPointer(at + layout.offset("thread", "events")), capacity, head),
                held, field(at, "thread", "held_overflow"),
                waiting.kindId() == 0 ? Optional.empty() : Optional.of(waiting));
    }

    /**
     * The ring's events, oldest first. Slot (head % capacity) is the one the thread writes next; an event
     * whose seq is not its position + 1 was being written when the target stopped, and is left out.
     */
    private List<RecordedEvent> events(long thread, long ring, long capacity, long head) {
        long count = Long.compareUnsigned(head, capacity) < 0 ? head : capacity;
        if (count == 0) {
            return List.of();
        }
        Long owner = ringOwners.putIfAbsent(ring, thread);
        if (owner != null) {
            throw new RecorderFormatException("thread records at 0x%x and 0x%x share the ring at 0x%x (each thread has its own)"
                    .formatted(owner, thread, ring), thread);
        }
        long eventSize = layout.sizeOf("event"); // at most MAX_STRUCT_SIZE: the product cannot overflow
        ringBytes += count * eventSize; // the slots written so far: [0, count) until the ring wraps
        if (ringBytes > MAX_RING_BYTES) {
            throw new RecorderFormatException("the thread records' rings hold more than %d MiB of events (thread record at 0x%x)"
                    .formatted(MAX_RING_BYTES >> 20, thread), thread);
        }
        long coarseCallbacks = layout.entry("constant.coarse_callbacks").orElse(0);
        long first = head - count;
        long previousTime = 0;
        List<RecordedEvent> events = new ArrayList<>((int) count);
        // Read the written part of the ring at once, not event by event.
        byte[] bytes = memory.read(ring, (int) (count * eventSize)); // at most MAX_RING_BYTES
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(order);
        for (long position = first; position < head; position++) {
            int base = (int) ((position & (capacity - 1)) * eventSize);
            long sequence = get(buffer, base, "event", "seq");
            if (sequence != position + 1) {
                continue;
            }
            int callback = (int) get(buffer, base, "event", "callback");
            long raw = get(buffer, base, "event", "time_ns");
            // A frequent event's CLOCK_MONOTONIC_COARSE time is up to one tick early: it happened after the
            // event before it, so it is shown no earlier than that one (still a true lower bound).
            long nanos = callback < 64 && (coarseCallbacks >>> callback & 1) != 0 ? Math.max(raw, previousTime) : time(raw);
            previousTime = nanos;
            events.add(new RecordedEvent(sequence, nanos, callback, (int) get(buffer, base, "event", "endpoint"),
                    get(buffer, base, "event", "kind"), get(buffer, base, "event", "codeptr_ra"),
                    get(buffer, base, "event", "parallel_id"), get(buffer, base, "event", "task_id"),
                    get(buffer, base, "event", "value"), get(buffer, base, "event", "aux")));
        }
        return events;
    }

    private MutexRecord mutex(long at) {
        return new MutexRecord(field(at, "mutex", "kind"), field(at, "mutex", "wait_id"),
                field(at, "mutex", "codeptr_ra"), time(field(at, "mutex", "time_ns")));
    }

    private List<ControlCommand> commands(long state, long count) {
        long slots = layout.constant("commands");
        long base = state + layout.offset("state", "commands");
        long size = layout.sizeOf("command");
        List<ControlCommand> commands = new ArrayList<>();
        for (long n = Math.max(0, count - slots); n < count; n++) {
            long at = base + (n % slots) * size;
            if (field(at, "command", "seq") != n + 1) {
                continue; // being written, or overwritten meanwhile
            }
            commands.add(new ControlCommand(n + 1, time(field(at, "command", "time_ns")), field(at, "command", "thread_serial"),
                    field(at, "command", "command"), field(at, "command", "modifier"), signedField(at, "command", "result")));
        }
        return commands;
    }

    private List<Mark> marks(long state, long count) {
        long slots = layout.constant("marks");
        long base = state + layout.offset("state", "marks");
        long size = layout.sizeOf("mark");
        List<Mark> marks = new ArrayList<>();
        for (long n = Math.max(0, count - slots); n < count; n++) {
            long at = base + (n % slots) * size;
            if (field(at, "mark", "seq") != n + 1) {
                continue;
            }
            marks.add(new Mark(n + 1, time(field(at, "mark", "time_ns")), field(at, "mark", "thread_serial"),
                    field(at, "mark", "command"), field(at, "mark", "modifier"),
                    text(at + layout.offset("mark", "text"), layout.fieldSize("mark", "text"))));
        }
        return marks;
    }

    private List<DeviceRecord> devices(long state) {
        long slots = layout.constant("devices");
        long base = state + layout.offset("state", "devices");
        long size = layout.sizeOf("device");
        List<DeviceRecord> devices = new ArrayList<>();
        for (long i = 0; i < slots; i++) {
            long at = base + i * size;
            long number = signedField(at, "device", "device_num");
            if (number < 0) {
                continue;
            }
            long entryBits = field(at, "device", "entry_points");
            Set<String> entryPoints = new LinkedHashSet<>();
            for (int bit = 0; bit < DeviceRecord.ENTRY_POINTS.size(); bit++) {
                if ((entryBits & (1L << bit)) != 0) {
                    entryPoints.add(DeviceRecord.ENTRY_POINTS.get(bit));
                }
            }
            long received = field(at, "device", "trace_records");
            long traceSlots = layout.constant("device_trace");
            long traceBase = at + layout.offset("device", "trace");
            List<DeviceRecord.TraceRecord> trace = new ArrayList<>();
            for (long n = Math.max(0, received - traceSlots); n < received; n++) {
                long r = traceBase + (n % traceSlots) * layout.sizeOf("trace_record");
                trace.add(new DeviceRecord.TraceRecord((int) field(r, "trace_record", "type"),
                        field(r, "trace_record", "device_time"), field(r, "trace_record", "host_time_ns"),
                        field(r, "trace_record", "target_id")));
            }
            long finalized = field(at, "device", "finalize_time_ns");
            devices.add(new DeviceRecord((int) number, text(at + layout.offset("device", "type"),
                    layout.fieldSize("device", "type")), time(field(at, "device", "initialize_time_ns")),
                    finalized == 0 ? OptionalLong.empty() : OptionalLong.of(time(finalized)), field(at, "device", "loads"),
                    field(at, "device", "load_bytes"), Collections.unmodifiableSet(entryPoints),
                    tracingOf(field(at, "device", "tracing")), received, trace));
        }
        return devices;
    }

    private static DeviceRecord.Tracing tracingOf(long value) {
        return switch ((int) value) {
            case 1 -> DeviceRecord.Tracing.UNAVAILABLE;
            case 2 -> DeviceRecord.Tracing.STARTED;
            case 3 -> DeviceRecord.Tracing.FAILED;
            case 4 -> DeviceRecord.Tracing.STOPPED;
            default -> DeviceRecord.Tracing.UNKNOWN;
        };
    }

    private RecordedRegion region(long at) {
        return new RecordedRegion(at, field(at, "region", "id"), field(at, "region", "codeptr_ra"),
                time(field(at, "region", "begin_time_ns")), field(at, "region", "flags"),
                field(at, "region", "parent_task_id"), field(at, "region", "parallelism"));
    }

    /** CLOCK_MONOTONIC nanoseconds of a time field's ticks. */
    private long time(long ticks) {
        return clock.nanos(ticks);
    }

    private long field(long base, String type, String field) {
        return memory.readUnsigned(base + layout.offset(type, field), layout.fieldSize(type, field));
    }

    private long signedField(long base, String type, String field) {
        return memory.readSigned(base + layout.offset(type, field), layout.fieldSize(type, field));
    }

    private long get(ByteBuffer buffer, int base, String type, String field) {
        int at = base + (int) layout.offset(type, field);
        return switch (layout.fieldSize(type, field)) {
            case 1 -> buffer.get(at) & 0xffL;
            case 2 -> buffer.getShort(at) & 0xffffL;
            case 4 -> buffer.getInt(at) & 0xffff_ffffL;
            case 8 -> buffer.getLong(at);
            default -> throw new RecorderFormatException("%s.%s has %d bytes: no integer".formatted(type, field,
                    layout.fieldSize(type, field)), layout.descriptorAddress());
        };
    }

    private String text(long at, int size) {
        return memory.readCString(at, Math.min(size, MAX_TEXT));
    }
}
