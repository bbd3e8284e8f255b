package dev.jompd.gdb;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;

import java.util.List;
import java.util.Optional;

/**
 * A process gdb debugs (live or behind gdbserver), seen read-only by the engine, which is not its
 * tracer: threads and their pthread ids come from gdb (once per stop), symbols from the modules' files
 * on disk. Subclasses say how memory is read and where the modules are.
 */
abstract class InferiorAddressSpace implements AddressSpace {
    private final String name;
    private final GdbThreads threads;
    private ModuleSymbols symbols;

    InferiorAddressSpace(String name, GdbThreads threads) {
        this.name = name;
        this.threads = threads;
    }

    /** The modules, the executable first, then the libraries in load order. */
    abstract ModuleSymbols discoverModules();

    private synchronized ModuleSymbols symbols() {
        if (symbols == null) {
            symbols = discoverModules();
        }
        return symbols;
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
    public Optional<TargetSymbol> lookupSymbol(String symbolName) {
        return symbols().lookup(symbolName);
    }

    @Override
    public Optional<TargetSymbol> lookupSymbol(String symbolName, String moduleNameFragment) {
        return symbols().lookup(symbolName, moduleNameFragment);
    }

    @Override
    public List<LoadedModule> modules() {
        return symbols().loadedModules();
    }

    @Override
    public List<TargetThread> threads() {
        return threads.list(true).stream().map(GdbThreads.GdbThread::asTargetThread).toList();
    }

    @Override
    public synchronized void close() {
        if (symbols != null) {
            symbols.close();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
