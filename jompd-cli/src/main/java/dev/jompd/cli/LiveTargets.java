package dev.jompd.cli;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.live.AttachException;
import dev.jompd.core.target.live.LiveProcessAddressSpace;

import java.util.Optional;

/**
 * Opens live processes: attached with ptrace (every thread stopped, detached again when the report is
 * done); a process another debugger holds stopped (gdb at a breakpoint) is read as that debugger holds
 * it, without ptrace (a process has one tracer at a time).
 */
final class LiveTargets {
    private LiveTargets() {}

    /** An opened process and what the user should know about how it was read. */
    record Opened(AddressSpace space, Optional<String> notice) {}

    static Opened open(long pid) {
        try {
            return new Opened(LiveProcessAddressSpace.attach(pid), Optional.empty());
        } catch (AttachException traced) {
            if (traced.reason() != AttachException.Reason.ALREADY_TRACED) {
                throw traced;
            }
            String tracer = traced.tracerName().orElse("another debugger")
                    + (traced.tracerPid().isPresent() ? " (pid " + traced.tracerPid().getAsLong() + ")" : "");
            try {
                return new Opened(LiveProcessAddressSpace.readOnly(pid), Optional.of("process " + pid + " is held by "
                        + tracer + ": read without ptrace, stopped where " + tracer + " holds it"));
            } catch (AttachException notStopped) {
                if (notStopped.reason() != AttachException.Reason.NOT_STOPPED) {
                    throw notStopped;
                }
                throw new AttachException(pid, AttachException.Reason.ALREADY_TRACED, "process " + pid
                        + " is traced by " + tracer + " and running: stop it there (Ctrl-C, or a breakpoint) and jompd "
                        + "reads it as it is held, or detach that debugger", traced.tracerPid(), traced.tracerName());
            }
        }
    }
}
