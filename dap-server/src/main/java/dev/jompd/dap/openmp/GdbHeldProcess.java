package dev.jompd.dap.openmp;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.live.LiveProcessAddressSpace;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A process gdb holds, read by jompd: memory, modules and symbols through a read-only
 * {@link LiveProcessAddressSpace} (no ptrace: gdb is the tracer), threads from gdb itself at each stop
 * (LWP and pthread_t from libthread_db, which on x86-64 glibc is fs_base). The read-only space is opened
 * once and kept across stops, which keeps a stop cheap; it is reopened when libraries change.
 */
final class GdbHeldProcess implements AddressSpace {
    private final LiveProcessAddressSpace process;
    private volatile List<TargetThread> threads;

    GdbHeldProcess(LiveProcessAddressSpace process) {
        this.process = process;
        this.threads = process.threads();
    }

    /** This stop's threads: (LWP, pthread) pairs from gdb. */
    void setThreads(List<ThreadIdentity> identities) {
        threads = identities.stream()
                .map(identity -> new TargetThread(identity.lwp(), Map.of("fs_base", identity.pthread())))
                .toList();
    }

    record ThreadIdentity(long lwp, long pthread) {}

    LiveProcessAddressSpace process() {
        return process;
    }

    @Override
    public String name() {
        return process.name();
    }

    @Override
    public TargetArchitecture architecture() {
        return process.architecture();
    }

    @Override
    public void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
        process.read(address, buffer, offset, length);
    }

    @Override
    public Optional<TargetSymbol> lookupSymbol(String name) {
        return process.lookupSymbol(name);
    }

    @Override
    public Optional<TargetSymbol> lookupSymbol(String name, String moduleNameFragment) {
        return process.lookupSymbol(name, moduleNameFragment);
    }

    @Override
    public List<LoadedModule> modules() {
        return process.modules();
    }

    @Override
    public List<TargetThread> threads() {
        return threads;
    }

    @Override
    public void close() {
        process.close();
    }
}
