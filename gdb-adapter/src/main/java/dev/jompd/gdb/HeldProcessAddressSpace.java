package dev.jompd.gdb;

import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetException;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.live.LiveProcessAddressSpace;

import java.util.List;
import java.util.Optional;

/**
 * A local process that gdb holds stopped, read by jompd's live backend in read-only mode (the engine
 * never ptraces it: gdb is its tracer): memory, modules and symbols from {@link LiveProcessAddressSpace},
 * threads and their pthread ids from gdb.
 */
final class HeldProcessAddressSpace extends InferiorAddressSpace {
    private final LiveProcessAddressSpace process;

    private HeldProcessAddressSpace(LiveProcessAddressSpace process, GdbThreads threads) {
        super(process.name(), threads);
        this.process = process;
    }

    /**
     * Opens the process read-only.
     *
     * @throws TargetException when the process is gone, not stopped, or its memory cannot be read
     *                         (permissions: the caller then reads through gdb instead)
     */
    static HeldProcessAddressSpace open(long pid, GdbThreads threads) {
        return new HeldProcessAddressSpace(LiveProcessAddressSpace.builder(pid).withThreadsFromCaller().openReadOnly(),
                threads);
    }

    @Override
    public void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
        process.read(address, buffer, offset, length);
    }

    @Override
    public Optional<TargetSymbol> lookupSymbol(String symbolName) {
        return process.lookupSymbol(symbolName);
    }

    @Override
    public Optional<TargetSymbol> lookupSymbol(String symbolName, String moduleNameFragment) {
        return process.lookupSymbol(symbolName, moduleNameFragment);
    }

    @Override
    public List<LoadedModule> modules() {
        return process.modules();
    }

    @Override
    public synchronized void close() {
        process.close();
    }
}
