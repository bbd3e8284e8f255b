package dev.jompd.libompd;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.HandleIdentities;
import dev.jompd.core.ompd.Icv;
import dev.jompd.core.ompd.Icvs;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.OmpdHandle;
import dev.jompd.core.ompd.OmpdRc;
import dev.jompd.core.ompd.OpenMpVersion;
import dev.jompd.core.ompd.ParallelHandle;
import dev.jompd.core.ompd.Scope;
import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.ompd.ThreadState;
import dev.jompd.core.ompd.ToolData;
import dev.jompd.core.target.TargetException;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The engine behind jompd's libompd.so: a child process of the debugger's shim (src/main/c/libompd.c) that
 * answers the OMPD routines over a pipe (protocol jompd-libompd/2, described in the shim and in {@link Wire}).
 * Each routine is one small handler over core's {@code Ompd} and handles. Handles arrive as their identity
 * (runtime addresses, gtid) and are rebuilt for every call: each call starts a fresh stop (the target may have
 * run since the previous one), so no cache outlives a call; only process constants (the runtime's layout,
 * global symbol addresses) are kept.
 */
public final class Engine implements CallbackAddressSpace.Questions {
    static final int PROCESS_INITIALIZE = 1, GET_OMP_VERSION = 2, GET_OMP_VERSION_STRING = 3,
            GET_THREAD_IN_PARALLEL = 4, GET_THREAD_HANDLE = 5, GET_THREAD_ID = 6, GET_CURR_PARALLEL = 7,
            GET_ENCLOSING_PARALLEL = 8, GET_TASK_PARALLEL = 9, GET_CURR_TASK = 10, GET_GENERATING_TASK = 11,
            GET_SCHEDULING_TASK = 12, GET_TASK_IN_PARALLEL = 13, GET_TASK_FUNCTION = 14, GET_TASK_FRAME = 15,
            ENUMERATE_STATES = 16, GET_STATE = 17, GET_DISPLAY_CONTROL_VARS = 18, ENUMERATE_ICVS = 19,
            GET_ICV_FROM_SCOPE = 20, GET_ICV_STRING_FROM_SCOPE = 21, GET_TOOL_DATA = 22, RELEASE_ADDRESS_SPACE = 23;
    private static final long THREAD_ID_PTHREAD = 0;
    /** The states enumerate_states walks, in code order (the undefined state starts the walk). */
    private static final List<ThreadState> STATES = Arrays.stream(ThreadState.values())
            .filter(s -> s != ThreadState.UNDEFINED).toList();

    private static final boolean TRACE = System.getenv("JOMPD_LIBOMPD_TRACE") != null;
    private final Wire wire;
    /** Time this call spent waiting for the shim's answers (trace only). */
    private long waitedNanos;
    private final Map<Long, AddressSpaceHandle> processes = new HashMap<>();
    /** The OpenMP version of the api the debugger asked for. */
    private OpenMpVersion debuggerVersion = OpenMpVersion.V5_0;
    /** The ICVs ompd_enumerate_icvs walks: the rows of the debugger's version. */
    private List<Icv> enumerated = Icv.enumeratedIn(debuggerVersion);

    Engine(Wire wire) {
        this.wire = wire;
    }

    public static void main(String[] args) throws IOException {
        // stdout is the pipe: nothing else may write there
        var pipeOut = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        System.setOut(System.err);
        Engine engine = new Engine(new Wire(new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16),
                pipeOut));
        engine.wire.send(new Wire.Frame(Wire.HELLO).word(Wire.PROTOCOL_VERSION).string(Ompd.versionString()));
        try {
            engine.serve();
        } catch (EOFException debuggerGone) {
            System.exit(0);
        }
    }

    /** Answers calls until the shim closes the pipe. */
    void serve() throws IOException {
        for (;;) {
            Wire.Received call = wire.receive();
            if (call.type != Wire.CALL) {
                throw new Wire.ProtocolException("expected a call, got frame type " + call.type);
            }
            int routine = call.u16();
            long processId = call.word();
            Wire.Frame result;
            long started = System.nanoTime();
            waitedNanos = 0;
            try {
                result = answer(routine, processId, call);
            } catch (OmpdException e) {
                result = failure(e.rc(), e.rc() == OmpdRc.ERROR ? e.getMessage() : "");
            } catch (CallbackAddressSpace.CallbackException e) {
                result = failure(e.rc, "");
            } catch (TargetException e) {
                result = failure(OmpdRc.DEVICE_READ_ERROR, "");
            } catch (Wire.ProtocolException | java.io.UncheckedIOException e) {
                throw e;
            } catch (RuntimeException e) {
                e.printStackTrace();
                result = failure(OmpdRc.ERROR, "routine " + routine + " failed in the engine: " + e);
            }
            if (TRACE) {
                System.err.printf("engine: routine %d: %d us, of which %d us waiting for answers%n", routine,
                        (System.nanoTime() - started) / 1000, waitedNanos / 1000);
            }
            wire.send(result);
        }
    }

    private static Wire.Frame failure(OmpdRc rc, String message) {
        return new Wire.Frame(Wire.RESULT).word(rc.code()).string(message);
    }

    private static Wire.Frame ok() {
        return new Wire.Frame(Wire.RESULT).word(0).string("");
    }

    private Wire.Frame answer(int routine, long processId, Wire.Received call) {
        if (routine == PROCESS_INITIALIZE) {
            // the names a debugger is enumerated are those of its version (the catalogue's rows say which):
            // an OMPD 5.0 debugger (api 201811: LLVM's gdb plugin) knows the 30 ICVs of LLVM's library by
            // number and cannot list one whose integer form fails; 6.0 removed the ompd- aliases
            debuggerVersion = OpenMpVersion.ofApiVersion(call.word());
            enumerated = Icv.enumeratedIn(debuggerVersion);
            AddressSpaceHandle space = Ompd.processInitialize(new CallbackAddressSpace(this));
            processes.put(processId, space);
            return handOver(ok(), space);
        }
        AddressSpaceHandle space = processes.get(processId);
        if (space == null) {
            throw new OmpdException(OmpdRc.STALE_HANDLE, "address space " + processId + " is not known to this engine");
        }
        if (routine == RELEASE_ADDRESS_SPACE) {
            processes.remove(processId);
            return ok();
        }
        space.resumed(); // a fresh stop for every call: the target may have run since the last one
        if (space.target() instanceof CallbackAddressSpace target && target.takeDoubtfulLookup()) {
            // a symbol lookup failed in an earlier call and core's layout keeps absences: start it again
            System.err.println("jompd libompd: address space " + processId
                    + " made again after a failed symbol lookup");
            try {
                space = Ompd.processInitialize(target);
            } catch (RuntimeException stillFailing) {
                target.doubtLookups(); // made again at the next call, not kept as it was
                throw stillFailing;
            }
            processes.put(processId, space);
        }
        return switch (routine) {
            case GET_OMP_VERSION -> ok().word(Ompd.ompVersion(space));
            case GET_OMP_VERSION_STRING -> ok().string(Ompd.ompVersionString(space));
            case GET_THREAD_IN_PARALLEL -> {
                ParallelHandle region = parallel(space, call);
                yield thread(region.threadInParallel(number(call)));
            }
            case GET_THREAD_HANDLE -> threadHandle(space, call.word(), call.blob());
            case GET_THREAD_ID -> threadId(thread(space, call), call.word(), call.word());
            case GET_CURR_PARALLEL -> parallel(thread(space, call).currentParallel());
            case GET_ENCLOSING_PARALLEL -> parallel(parallel(space, call).enclosing());
            case GET_TASK_PARALLEL -> parallel(task(space, call).parallel());
            case GET_CURR_TASK -> task(thread(space, call).currentTask());
            case GET_GENERATING_TASK -> task(task(space, call).generating());
            case GET_SCHEDULING_TASK -> task(task(space, call).scheduling());
            case GET_TASK_IN_PARALLEL -> {
                ParallelHandle region = parallel(space, call);
                yield task(region.taskInParallel(number(call)));
            }
            case GET_TASK_FUNCTION -> ok().word(task(space, call).function());
            case GET_TASK_FRAME -> {
                TaskHandle.TaskFrames frames = task(space, call).frames();
                yield ok().word(frames.exitFrame()).word(frames.exitFrameFlags())
                        .word(frames.enterFrame()).word(frames.enterFrameFlags());
            }
            case ENUMERATE_STATES -> enumerateStates(call.word());
            case GET_STATE -> {
                ThreadHandle.ThreadStateInfo state = thread(space, call).state();
                yield ok().word(state.code()).word(state.waitId());
            }
            case GET_DISPLAY_CONTROL_VARS -> {
                List<String> variables = Ompd.displayControlVariables(space);
                Wire.Frame frame = ok().word(variables.size());
                variables.forEach(frame::string);
                yield frame;
            }
            case ENUMERATE_ICVS -> enumerateIcvs(call.word());
            case GET_ICV_FROM_SCOPE -> {
                OmpdHandle handle = scoped(space, call);
                Scope scope = scope(call.word());
                Icv icv = icv(call.word());
                requireHandleOfScope(handle, scope, icv.scope() == scope);
                Icvs.IcvValue value = Icvs.value(handle, scope, icv);
                yield new Wire.Frame(Wire.RESULT).word(value.rc().code()).string("").word(value.value());
            }
            case GET_ICV_STRING_FROM_SCOPE -> {
                OmpdHandle handle = scoped(space, call);
                Scope scope = scope(call.word());
                Icv icv = icv(call.word());
                requireHandleOfScope(handle, scope, icv.scope() == scope);
                yield ok().string(Icvs.string(handle, scope, icv));
            }
            case GET_TOOL_DATA -> {
                OmpdHandle handle = scoped(space, call);
                Scope scope = scope(call.word());
                requireHandleOfScope(handle, scope, true);
                if (!handle.serves(scope)) {
                    throw new OmpdException(OmpdRc.BAD_INPUT, "a " + handle.scope().cName() + " handle for scope "
                            + scope.cName());
                }
                ToolData data = switch (handle) {
                    case ThreadHandle thread -> thread.toolData();
                    case ParallelHandle region -> region.toolData();
                    case TaskHandle task -> task.toolData();
                    default -> throw new OmpdException(OmpdRc.BAD_INPUT, "no tool data in scope " + scope.cName());
                };
                yield ok().word(data.value()).word(data.pointer());
            }
            default -> throw new OmpdException(OmpdRc.UNSUPPORTED, "routine " + routine + " is not known to this engine");
        };
    }

    /**
     * What the shim answers alone, handed over with each address space's registration (data only: the shim
     * knows nothing of OpenMP): where ompd_get_state's fields lie from a thread handle's identity (core's
     * breadcrumbs, the fields {@link ThreadHandle#state()} reads; none when the runtime tracks no states or the
     * layout could not be read now), and the states ompd_enumerate_states walks. The shim reads the fields with
     * the debugger's callbacks at every call: what is handed over is the runtime's layout, never a value.
     */
    private static Wire.Frame handOver(Wire.Frame result, AddressSpaceHandle space) {
        Optional<ThreadHandle.StateFields> fields;
        try {
            fields = ThreadHandle.stateFields(space);
        } catch (RuntimeException unreadable) {
            System.err.println("jompd libompd: ompd_get_state goes through the engine: " + unreadable.getMessage());
            fields = Optional.empty();
        }
        if (fields.isPresent() && integerSize(fields.get().stateSize()) && integerSize(fields.get().waitIdSize())) {
            ThreadHandle.StateFields f = fields.get();
            result.word(2).word(f.stateOffset()).word(f.stateSize()).word(f.waitIdOffset()).word(f.waitIdSize());
        } else {
            result.word(0);
        }
        result.word(STATES.size()).word(ThreadState.UNDEFINED.code());
        for (ThreadState state : STATES) {
            result.word(state.code()).string(state.cName());
        }
        return result;
    }

    private static boolean integerSize(long size) {
        return size == 1 || size == 2 || size == 4 || size == 8;
    }

    /**
     * A handle of another kind than the scope asked (an ICV of that scope, or tool data): OpenMP 6.0's
     * {@code incompatible_handle} for debuggers that asked for 6.0; older ones are answered {@code bad_input}
     * as LLVM's library does (by core's checks, after this one).
     */
    private void requireHandleOfScope(OmpdHandle handle, Scope scope, boolean scopeFits) {
        if (scopeFits && !handle.serves(scope) && debuggerVersion.compareTo(OpenMpVersion.V6_0) >= 0) {
            throw new OmpdException(OmpdRc.INCOMPATIBLE_HANDLE, "a " + handle.scope().cName() + " handle for scope "
                    + scope.cName());
        }
    }

    private static int number(Wire.Received call) {
        long n = call.word();
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "thread number " + n);
        }
        return (int) n;
    }

    // ---- handles: identity in, core handle of this call's stop out ----------------------------------------

    private static final long KIND_ADDRESS_SPACE = 2, KIND_THREAD = 3, KIND_PARALLEL = 4, KIND_TASK = 6;

    private static ThreadHandle thread(AddressSpaceHandle space, Wire.Received call) {
        OmpdHandle handle = handle(space, call.word(), call.word(), call.word());
        if (!(handle instanceof ThreadHandle thread)) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "not a thread handle");
        }
        return thread;
    }

    private static ParallelHandle parallel(AddressSpaceHandle space, Wire.Received call) {
        OmpdHandle handle = handle(space, call.word(), call.word(), call.word());
        if (!(handle instanceof ParallelHandle region)) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "not a parallel handle");
        }
        return region;
    }

    private static TaskHandle task(AddressSpaceHandle space, Wire.Received call) {
        OmpdHandle handle = handle(space, call.word(), call.word(), call.word());
        if (!(handle instanceof TaskHandle task)) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "not a task handle");
        }
        return task;
    }

    private static OmpdHandle scoped(AddressSpaceHandle space, Wire.Received call) {
        return handle(space, call.word(), call.word(), call.word());
    }

    /**
     * The handle of this stop for an identity. A thread whose gtid is known must still be in
     * {@code __kmp_threads[gtid]}, else its handle is stale (the thread ended).
     */
    static OmpdHandle handle(AddressSpaceHandle space, long kind, long a, long b) {
        if (kind == KIND_ADDRESS_SPACE) {
            return space;
        }
        if (a == 0) {
            throw new OmpdException(OmpdRc.STALE_HANDLE, "a handle with no runtime address");
        }
        if (kind == KIND_THREAD) {
            if (b >= 0 && HandleIdentities.threadBase(space, b) != a) {
                throw new OmpdException(OmpdRc.STALE_HANDLE, "OpenMP thread " + b + " has ended");
            }
            return HandleIdentities.thread(space, a, b);
        }
        if (kind == KIND_PARALLEL) {
            return HandleIdentities.parallel(space, a, b);
        }
        if (kind == KIND_TASK || kind == Scope.IMPLICIT_TASK.code()) {
            return HandleIdentities.task(space, a, b);
        }
        throw new OmpdException(OmpdRc.BAD_INPUT, "handle kind " + kind);
    }

    private static Wire.Frame thread(ThreadHandle thread) {
        return ok().word(thread.address()).word(-1);
    }

    private static Wire.Frame parallel(ParallelHandle region) {
        return ok().word(region.teamAddress()).word(region.lightweightTeam());
    }

    private static Wire.Frame task(TaskHandle task) {
        return ok().word(task.address()).word(task.lightweightTeam());
    }

    /**
     * ompd_get_thread_handle as LLVM's library does it: the debugger gives the OS thread's context, the
     * thread-local {@code __kmp_gtid} looked up with it names the OpenMP thread ({@code __kmp_threads[gtid]}).
     */
    private Wire.Frame threadHandle(AddressSpaceHandle space, long kind, byte[] id) {
        CallbackAddressSpace target = (CallbackAddressSpace) space.target();
        long context = target.threadContext(kind, id);
        long gtidAddress = target.threadLocalAddress(context, "__kmp_gtid");
        long gtid = space.memory().readSigned(gtidAddress, 4);
        if (gtid < 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "that thread is not an OpenMP thread (__kmp_gtid " + gtid + ")");
        }
        long capacity = HandleIdentities.threadCapacity(space);
        if (gtid >= capacity) {
            throw new OmpdException(OmpdRc.ERROR, "__kmp_gtid " + gtid + " outside __kmp_threads[0.." + capacity
                    + "): the debugger's thread-local lookup answered a wrong address");
        }
        long base = HandleIdentities.threadBase(space, gtid);
        if (base == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "no OpenMP thread has gtid " + gtid);
        }
        ThreadHandle thread = HandleIdentities.thread(space, base, gtid);
        if (kind == THREAD_ID_PTHREAD && id.length == 8) {
            long pthread = ByteBuffer.wrap(id).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (thread.pthreadId() != pthread) {
                throw new OmpdException(OmpdRc.ERROR, "__kmp_threads[" + gtid + "] belongs to pthread 0x"
                        + Long.toHexString(thread.pthreadId()) + ", not 0x" + Long.toHexString(pthread)
                        + ": the debugger's thread-local lookup answered a wrong address");
            }
        }
        return ok().word(base).word(gtid);
    }

    /** ompd_get_thread_id: the pthread kind only, as LLVM's library (the kind is checked before the size). */
    private static Wire.Frame threadId(ThreadHandle thread, long kind, long size) {
        if (kind != THREAD_ID_PTHREAD) {
            throw new OmpdException(OmpdRc.UNSUPPORTED, "thread id kind " + kind + ": jompd's library gives pthread ids");
        }
        if (size != 8) {
            throw new OmpdException(OmpdRc.BAD_INPUT, "a pthread id has 8 bytes, not " + size);
        }
        byte[] id = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(thread.pthreadId()).array();
        return ok().blob(id);
    }

    private static Wire.Frame enumerateStates(long current) {
        int next;
        if (current == ThreadState.UNDEFINED.code()) {
            next = 0;
        } else {
            int index = -1;
            for (int i = 0; i < STATES.size(); i++) {
                if (STATES.get(i).code() == current) {
                    index = i;
                }
            }
            if (index < 0 || index + 1 >= STATES.size()) {
                throw new OmpdException(OmpdRc.BAD_INPUT, "state " + current + " is not one that has a successor");
            }
            next = index + 1;
        }
        ThreadState state = STATES.get(next);
        return ok().word(state.code()).string(state.cName()).word(next + 1 < STATES.size() ? 1 : 0);
    }

    /**
     * ompd_enumerate_icvs: ompd_icv_undefined (0) starts; ids in the catalogue's order (1–30 LLVM's). Every
     * ICV stays readable by id whatever was enumerated.
     */
    private Wire.Frame enumerateIcvs(long current) {
        List<Icv> all = enumerated;
        int next;
        if (current == 0) {
            next = 0;
        } else {
            int index = -1;
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).id() == current) {
                    index = i;
                }
            }
            if (index < 0 || index + 1 >= all.size()) {
                throw new OmpdException(OmpdRc.BAD_INPUT, "ICV " + current + " is not one that has a successor");
            }
            next = index + 1;
        }
        Icv icv = all.get(next);
        return ok().word(icv.id()).string(icv.name()).word(icv.scope().code()).word(next + 1 < all.size() ? 1 : 0);
    }

    private static Scope scope(long code) {
        for (Scope scope : Scope.values()) {
            if (scope.code() == code) {
                return scope;
            }
        }
        throw new OmpdException(OmpdRc.BAD_INPUT, "scope " + code);
    }

    private static Icv icv(long id) {
        return Icv.byId(id).orElseThrow(() -> new OmpdException(OmpdRc.BAD_INPUT, "no ICV has id " + id));
    }

    // ---- questions to the shim --------------------------------------------------------------------------

    private Wire.Received ask(Wire.Frame question, String what) {
        try {
            long asked = System.nanoTime();
            wire.send(question);
            Wire.Received answer = wire.receive();
            waitedNanos += System.nanoTime() - asked;
            if (answer.type != Wire.ANSWER) {
                throw new Wire.ProtocolException("expected an answer, got frame type " + answer.type);
            }
            long rc = answer.word();
            if (rc != 0) {
                throw new CallbackAddressSpace.CallbackException(rcOf(rc), what);
            }
            return answer;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static OmpdRc rcOf(long code) {
        for (OmpdRc rc : OmpdRc.values()) {
            if (rc.code() == code) {
                return rc;
            }
        }
        return OmpdRc.CALLBACK_ERROR;
    }

    @Override
    public byte[] read(long address, int length) {
        return ask(new Wire.Frame(Wire.QUESTION).u8(Wire.Q_READ).word(address).word(length),
                "read " + length + " bytes at 0x" + Long.toHexString(address)).blob();
    }

    @Override
    public String readString(long address, int maxLength) {
        return ask(new Wire.Frame(Wire.QUESTION).u8(Wire.Q_READ_STRING).word(address).word(maxLength),
                "read a string at 0x" + Long.toHexString(address)).string();
    }

    @Override
    public long symbol(long threadContext, String name) {
        return ask(new Wire.Frame(Wire.QUESTION).u8(Wire.Q_SYMBOL).word(threadContext).string(name).string(""),
                "look up " + name).word();
    }

    @Override
    public long threadContext(long kind, byte[] id) {
        return ask(new Wire.Frame(Wire.QUESTION).u8(Wire.Q_THREAD_CONTEXT).word(kind).blob(id),
                "the thread context of a thread id of kind " + kind).word();
    }

    @Override
    public byte[] typeSizes() {
        return ask(new Wire.Frame(Wire.QUESTION).u8(Wire.Q_SIZEOF), "type sizes").blob();
    }
}
