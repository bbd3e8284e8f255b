package dev.jompd.core.target.live;

import dev.jompd.core.target.TargetException;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * jompd could not attach to (or, in read-only mode, open) a live process. The message says why in
 * words a user can act on; {@link #reason()} says it for programs, and {@link #tracerPid()} names the
 * debugger that already holds the process.
 */
public class AttachException extends TargetException {
    /** Why attaching failed. */
    public enum Reason {
        /** No process has that id. */
        NO_SUCH_PROCESS,
        /** The kernel refused ptrace: Yama's ptrace_scope, a missing CAP_SYS_PTRACE, another user, a seccomp filter. */
        PERMISSION_DENIED,
        /** Another tracer (a debugger) holds the process; see {@link #tracerPid()}. */
        ALREADY_TRACED,
        /** The process exited while jompd attached; nothing was left stopped. */
        EXITED_DURING_ATTACH,
        /** The process is this JVM's child: the JDK's process reaper would take its ptrace stops. */
        CHILD_OF_THIS_JVM,
        /** This JVM itself: a process cannot ptrace itself. */
        SELF,
        /** A thread did not reach a ptrace stop in time (uninterruptible sleep). */
        STOP_TIMEOUT,
        /** Read-only mode: the process is not held stopped by anyone. */
        NOT_STOPPED,
        /** ptrace failed in another way (the message names the call and errno). */
        PTRACE_FAILED
    }

    private final long pid;
    private final Reason reason;
    private final OptionalLong tracerPid;
    private final Optional<String> tracerName;

    public AttachException(long pid, Reason reason, String message) {
        this(pid, reason, message, OptionalLong.empty(), Optional.empty());
    }

    public AttachException(long pid, Reason reason, String message, OptionalLong tracerPid, Optional<String> tracerName) {
        super("pid:%d: %s".formatted(pid, message));
        this.pid = pid;
        this.reason = reason;
        this.tracerPid = tracerPid;
        this.tracerName = tracerName;
    }

    /** The process jompd tried to attach to. */
    public long pid() { return pid; }

    public Reason reason() { return reason; }

    /** For {@link Reason#ALREADY_TRACED}: the process that traces it. */
    public OptionalLong tracerPid() { return tracerPid; }

    /** For {@link Reason#ALREADY_TRACED}: the tracer's command name ({@code gdb}), when readable. */
    public Optional<String> tracerName() { return tracerName; }

    static AttachException noSuchProcess(long pid) {
        return new AttachException(pid, Reason.NO_SUCH_PROCESS, "no process with id %d exists".formatted(pid));
    }

    /** When {@code /proc/PID/status} names a tracer, the error saying so; empty otherwise. */
    static Optional<AttachException> alreadyTraced(int pid, int tid) {
        OptionalInt tracer = ProcFs.tracerOf(pid, tid);
        if (tracer.isEmpty() || tracer.getAsInt() == 0) {
            OptionalLong processTracer = ProcFs.statusNumber(pid, "TracerPid");
            if (processTracer.isEmpty() || processTracer.getAsLong() == 0) {
                return Optional.empty();
            }
            tracer = OptionalInt.of((int) processTracer.getAsLong());
        }
        long tracerPid = ProcFs.threadGroupOf(tracer.getAsInt());
        Optional<String> name = ProcFs.command(tracerPid);
        String who = tracerPid == ProcessHandle.current().pid()
                ? "this JVM (another LiveProcessAddressSpace is open on it; close that first)"
                : "process %d%s".formatted(tracerPid, name.map(n -> " (" + n + ")").orElse(""));
        return Optional.of(new AttachException(pid, Reason.ALREADY_TRACED,
                "process %d is already traced by %s; a process has one tracer at a time: detach that debugger, or open it with LiveProcessAddressSpace.readOnly(%d) while the debugger holds it stopped"
                        .formatted(pid, who, pid),
                OptionalLong.of(tracerPid), name));
    }

    /** PTRACE_SEIZE said EPERM: work out why from /proc and say it. */
    static AttachException permissionDenied(int pid, int tid, boolean firstThread) {
        Optional<AttachException> traced = alreadyTraced(pid, tid);
        if (traced.isPresent()) {
            return traced.get();
        }
        List<String> causes = new ArrayList<>();
        boolean capable = ProcFs.haveSysPtrace();
        OptionalInt scope = ProcFs.yamaPtraceScope();
        if (scope.isPresent()) {
            switch (scope.getAsInt()) {
                case 3 -> causes.add("/proc/sys/kernel/yama/ptrace_scope is 3: ptrace attach is disabled for everyone until reboot");
                case 2 -> {
                    if (!capable) {
                        causes.add("/proc/sys/kernel/yama/ptrace_scope is 2: only processes with CAP_SYS_PTRACE may attach, and this JVM lacks it");
                    }
                }
                case 1 -> {
                    if (!capable) {
                        causes.add("/proc/sys/kernel/yama/ptrace_scope is 1: only a process's ancestors may attach without CAP_SYS_PTRACE, and this JVM "
                                + "is neither (run jompd as root, or set ptrace_scope to 0)");
                    }
                }
                default -> { }
            }
        }
        OptionalLong targetUid = ProcFs.uid(pid);
        OptionalLong ownUid = ProcFs.uid((int) ProcessHandle.current().pid());
        if (!capable && targetUid.isPresent() && ownUid.isPresent() && targetUid.getAsLong() != ownUid.getAsLong()) {
            causes.add("the process belongs to uid %d, this JVM runs as uid %d without CAP_SYS_PTRACE"
                    .formatted(targetUid.getAsLong(), ownUid.getAsLong()));
        }
        if (causes.isEmpty()) {
            causes.add("the kernel refused%s: the process may be non-dumpable (a setuid program), or a seccomp filter (as in "
                    .formatted(capable ? " although this JVM has CAP_SYS_PTRACE" : "")
                    + "containers without CAP_SYS_PTRACE) may forbid ptrace");
        }
        return new AttachException(pid, Reason.PERMISSION_DENIED, "permission denied attaching to %s: %s"
                .formatted(firstThread ? "process " + pid : "thread " + tid + " of process " + pid, String.join("; ", causes)));
    }
}
