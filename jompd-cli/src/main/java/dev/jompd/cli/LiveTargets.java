package dev.jompd.cli;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetException;

/** Opens live processes (the ptrace backend). */
final class LiveTargets {
    private LiveTargets() {}

    static AddressSpace attach(long pid) {
        throw new TargetException("inspecting a live process (--pid " + pid + ") is not available in this build yet");
    }
}
