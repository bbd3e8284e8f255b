package dev.jompd.gdb;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetThread;

import java.util.List;

/**
 * A process gdb debugs (live or behind gdbserver), seen read-only by the engine, which is not its
 * tracer: threads and their pthread ids come from gdb (once per stop). Subclasses say how memory is
 * read and where the modules and their symbols are.
 */
abstract class InferiorAddressSpace implements AddressSpace {
    private final String name;
    private final GdbThreads threads;

    InferiorAddressSpace(String name, GdbThreads threads) {
        this.name = name;
        this.threads = threads;
    }

    /** The target ran: what belongs to one stop (the thread list, cached memory) must be asked again. */
    void resumed() {
        threads.invalidate();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public TargetArchitecture architecture() {
        return TargetArchitecture.X86_64_LINUX;
    }

    @Override
    public List<TargetThread> threads() {
        return threads.list(true).stream().map(GdbThreads.GdbThread::asTargetThread).toList();
    }

    @Override
    public String toString() {
        return name;
    }
}
