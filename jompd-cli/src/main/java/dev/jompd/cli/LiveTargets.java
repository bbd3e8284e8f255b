package dev.jompd.cli;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.live.LiveProcessAddressSpace;

/** Opens live processes: ptrace attach (every thread stopped), detached again when the report is done. */
final class LiveTargets {
    private LiveTargets() {}

    static AddressSpace attach(long pid) {
        return LiveProcessAddressSpace.attach(pid);
    }
}
