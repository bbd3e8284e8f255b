package dev.jompd.core.target.live;

import dev.jompd.core.target.MemoryReadException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Reads a live process's memory: {@code process_vm_readv} (one system call per range, no ptrace stop
 * needed), falling back to {@code /proc/PID/mem} where it fails (pages without read permission, which
 * {@code /proc/PID/mem} reads like a debugger does, or a seccomp filter that forbids the call).
 * Neither needs the tracer thread, so reads run on the caller's thread; both are thread-safe.
 */
final class ProcessMemory implements AutoCloseable {
    /** Largest range read with one call: the size of each native buffer. */
    private static final int MAX_CHUNK = 128 * 1024;

    private final int pid;
    private final String backendName;
    private volatile boolean vmReadvUsable = true;
    private volatile String closedReason;
    private FileChannel procMem;
    private String procMemProblem;
    /**
     * Native buffers for process_vm_readv, reused: allocating per read doubled the cost of a 4 KiB read. Shared by every
     * process read in this JVM (a buffer serves any pid): a job's node reads dozens of ranks, and each new buffer is
     * 128 KiB zeroed.
     */
    private static final Queue<ReadBuffer> BUFFERS = new ConcurrentLinkedQueue<>();

    /** One read's native memory: the bytes, both iovecs and the errno slot. Used by one thread at a time. */
    private record ReadBuffer(MemorySegment bytes, MemorySegment localIovec, MemorySegment remoteIovec, MemorySegment callState) {
        static ReadBuffer allocate() {
            Arena arena = Arena.ofAuto(); // freed by the GC with the buffer
            MemorySegment bytes = arena.allocate(MAX_CHUNK, 16);
            MemorySegment localIovec = arena.allocate(16, 8);
            localIovec.set(ValueLayout.JAVA_LONG, 0, bytes.address());
            return new ReadBuffer(bytes, localIovec, arena.allocate(16, 8), LinuxNative.allocateCallState(arena));
        }
    }

    ProcessMemory(int pid, String backendName) {
        this.pid = pid;
        this.backendName = backendName;
    }

    void read(long address, byte[] buffer, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, buffer.length);
        String closed = closedReason;
        if (closed != null) {
            throw new MemoryReadException(backendName, address, length, closed);
        }
        if (length == 0) {
            return;
        }
        if (Long.compareUnsigned(address, -1L - (length - 1)) > 0) {
            throw new MemoryReadException(backendName, address, length, "the range wraps around the end of the address space");
        }
        int done = 0;
        String vmReadvProblem = null;
        while (done < length) {
            long cursor = address + done;
            int chunk = Math.min(length - done, MAX_CHUNK);
            if (vmReadvUsable) {
                Attempt attempt = readWithVmReadv(cursor, buffer, offset + done, chunk);
                if (attempt.bytes() > 0) {
                    done += attempt.bytes();
                    continue;
                }
                vmReadvProblem = attempt.problem();
            }
            Attempt attempt = readWithProcMem(cursor, buffer, offset + done, chunk);
            if (attempt.bytes() > 0) {
                done += attempt.bytes();
                continue;
            }
            throw new MemoryReadException(backendName, address, length, failureReason(cursor, vmReadvProblem, attempt.problem()));
        }
    }

    private String failureReason(long cursor, String vmReadvProblem, String procMemProblem) {
        if (!ProcFs.exists(pid) || ProcFs.threadState(pid, pid).filter(state -> state == 'Z' || state == 'X').isPresent()) {
            return "process %d has exited".formatted(pid);
        }
        return "0x%x is not readable in process %d (%s%s)".formatted(cursor, pid,
                vmReadvProblem == null ? "" : "process_vm_readv: " + vmReadvProblem + "; ",
                "/proc/" + pid + "/mem: " + procMemProblem);
    }

    private record Attempt(int bytes, String problem) {}

    private Attempt readWithVmReadv(long address, byte[] buffer, int offset, int length) {
        ReadBuffer scratch = BUFFERS.poll();
        if (scratch == null) {
            scratch = ReadBuffer.allocate();
        }
        try {
            scratch.localIovec().set(ValueLayout.JAVA_LONG, 8, length);
            scratch.remoteIovec().set(ValueLayout.JAVA_LONG, 0, address);
            scratch.remoteIovec().set(ValueLayout.JAVA_LONG, 8, length);
            LinuxNative.Result result = LinuxNative.processVmReadv(scratch.callState(), pid, scratch.localIovec(), scratch.remoteIovec());
            if (result.failed()) {
                if (result.errno() == LinuxNative.ENOSYS || result.errno() == LinuxNative.EPERM) {
                    vmReadvUsable = false; // not available here: use /proc/PID/mem from now on
                }
                return new Attempt(0, result.errnoName());
            }
            int read = (int) result.value();
            MemorySegment.copy(scratch.bytes(), ValueLayout.JAVA_BYTE, 0, buffer, offset, read);
            return new Attempt(read, read == 0 ? "read nothing" : null);
        } finally {
            BUFFERS.offer(scratch);
        }
    }

    private Attempt readWithProcMem(long address, byte[] buffer, int offset, int length) {
        if (address < 0) {
            return new Attempt(0, "0x%x is beyond the file's offsets (a kernel address)".formatted(address));
        }
        FileChannel channel = procMem();
        if (channel == null) {
            return new Attempt(0, procMemProblem);
        }
        try {
            int read = channel.read(ByteBuffer.wrap(buffer, offset, length), address);
            return read > 0 ? new Attempt(read, null) : new Attempt(0, "end of file (the address space is gone)");
        } catch (IOException e) {
            return new Attempt(0, e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    private synchronized FileChannel procMem() {
        if (procMem == null && procMemProblem == null) {
            try {
                procMem = FileChannel.open(ProcFs.processDirectory(pid).resolve("mem"), StandardOpenOption.READ);
            } catch (IOException | SecurityException e) {
                procMemProblem = "cannot open: " + e;
            }
        }
        return procMem;
    }

    /** From now on every read fails with {@code reason}. */
    @Override
    public void close() {
        close("detached from process %d: it runs on, so its memory no longer belongs to this stop; attach again".formatted(pid));
    }

    synchronized void close(String reason) {
        closedReason = reason;
        if (procMem != null) {
            try {
                procMem.close();
            } catch (IOException ignored) {
                // nothing to do: the descriptor is gone either way
            }
            procMem = null;
        }
        procMemProblem = reason;
    }
}
