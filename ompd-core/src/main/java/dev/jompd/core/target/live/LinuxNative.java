package dev.jompd.core.target.live;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Map;

/**
 * The Linux calls the live backend makes, bound with the FFM API (no JNI): {@code ptrace},
 * {@code waitpid} and {@code process_vm_readv}, each returning its result and the {@code errno} it
 * left. Callers decide on which thread to call: ptrace and waitpid only ever on the tracer thread
 * ({@link Tracer}).
 */
final class LinuxNative {
    // <sys/ptrace.h>
    static final int PTRACE_GETREGS = 12;
    static final int PTRACE_DETACH = 17;
    static final int PTRACE_SEIZE = 0x4206;
    static final int PTRACE_INTERRUPT = 0x4207;
    static final int PTRACE_EVENT_STOP = 128;
    // <sys/wait.h>
    static final int WNOHANG = 1;
    static final int WALL = 0x40000000;
    // <errno.h>
    static final int EPERM = 1;
    static final int ESRCH = 3;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int ECHILD = 10;
    static final int EFAULT = 14;
    static final int ENOSYS = 38;
    private static final Map<Integer, String> ERRNO_NAMES = Map.ofEntries(
            Map.entry(EPERM, "EPERM (operation not permitted)"), Map.entry(2, "ENOENT (no such file)"),
            Map.entry(ESRCH, "ESRCH (no such process)"), Map.entry(EINTR, "EINTR (interrupted)"),
            Map.entry(EIO, "EIO (input/output error)"), Map.entry(ECHILD, "ECHILD (not a child or tracee)"),
            Map.entry(11, "EAGAIN"), Map.entry(12, "ENOMEM (out of memory)"),
            Map.entry(13, "EACCES (permission denied)"), Map.entry(EFAULT, "EFAULT (bad address)"),
            Map.entry(22, "EINVAL (invalid argument)"), Map.entry(ENOSYS, "ENOSYS (not implemented)"));

    /** x86-64 {@code struct user_regs_struct}: 27 unsigned longs. */
    static final int USER_REGS_SIZE = 27 * 8;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** {@code long ptrace(enum __ptrace_request request, pid_t pid, void *addr, void *data)}: variadic after the request. */
    private static final MethodHandle PTRACE = LINKER.downcallHandle(LIBC.find("ptrace").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
            Linker.Option.firstVariadicArg(1), CAPTURE_ERRNO);
    /** {@code pid_t waitpid(pid_t pid, int *wstatus, int options)}. */
    private static final MethodHandle WAITPID = LINKER.downcallHandle(LIBC.find("waitpid").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
            CAPTURE_ERRNO);
    /**
     * {@code ssize_t process_vm_readv(pid_t pid, const struct iovec *local_iov, unsigned long liovcnt,
     * const struct iovec *remote_iov, unsigned long riovcnt, unsigned long flags)}.
     */
    private static final MethodHandle PROCESS_VM_READV = LINKER.downcallHandle(
            LIBC.find("process_vm_readv").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
            CAPTURE_ERRNO);

    private LinuxNative() {}

    /** A call's return value and the errno it left (meaningful only when the value is negative). */
    record Result(long value, int errno) {
        boolean failed() { return value < 0; }

        String errnoName() { return LinuxNative.errnoName(errno); }
    }

    static String errnoName(int errno) {
        return ERRNO_NAMES.getOrDefault(errno, "errno " + errno);
    }

    /** Space for one call's errno; reuse per thread, never share between threads. */
    static MemorySegment allocateCallState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    static Result ptrace(MemorySegment callState, int request, int tid, long address, MemorySegment data) {
        try {
            long value = (long) PTRACE.invokeExact(callState, request, tid, address, data);
            return new Result(value, value < 0 ? (int) ERRNO.get(callState, 0L) : 0);
        } catch (Throwable t) {
            throw new IllegalStateException("ptrace downcall failed", t);
        }
    }

    /** waitpid, retried on EINTR; {@code status} receives the wait status. */
    static Result waitpid(MemorySegment callState, int tid, MemorySegment status, int options) {
        while (true) {
            int value;
            try {
                value = (int) WAITPID.invokeExact(callState, tid, status, options);
            } catch (Throwable t) {
                throw new IllegalStateException("waitpid downcall failed", t);
            }
            int errno = value < 0 ? (int) ERRNO.get(callState, 0L) : 0;
            if (value < 0 && errno == EINTR) {
                continue;
            }
            return new Result(value, errno);
        }
    }

    /** One remote range into one local buffer: the number of bytes read, which may be short. */
    static Result processVmReadv(MemorySegment callState, int pid, MemorySegment localIovec, MemorySegment remoteIovec) {
        try {
            long value = (long) PROCESS_VM_READV.invokeExact(callState, pid, localIovec, 1L, remoteIovec, 1L, 0L);
            return new Result(value, value < 0 ? (int) ERRNO.get(callState, 0L) : 0);
        } catch (Throwable t) {
            throw new IllegalStateException("process_vm_readv downcall failed", t);
        }
    }

    // Wait status decoding, as <sys/wait.h> defines the macros.
    static boolean stopped(int status) { return (status & 0xff) == 0x7f; }

    static int stopSignal(int status) { return (status >> 8) & 0xff; }

    static int ptraceEvent(int status) { return (status >>> 16) & 0xff; }

    static boolean exited(int status) { return (status & 0x7f) == 0; }

    static boolean killed(int status) { return !stopped(status) && !exited(status) && (status & 0x7f) != 0x7f; }
}
