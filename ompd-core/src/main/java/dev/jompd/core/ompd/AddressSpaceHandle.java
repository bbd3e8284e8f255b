package dev.jompd.core.ompd;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetException;

import java.util.OptionalLong;

/**
 * An OpenMP process as OMPD sees it ({@code ompd_address_space_handle_t}): the target, its runtime's
 * layout, and the current stop. Everything read belongs to one stop; {@link #resumed()} ends it, after
 * which every thread, parallel and task handle of that stop answers {@code stale_handle}.
 */
public final class AddressSpaceHandle implements OmpdHandle {
    private final AddressSpace target;
    private final TargetMemory memory;
    private final RuntimeLayout layout;
    private volatile Stop stop;

    AddressSpaceHandle(AddressSpace target, TargetMemory memory, RuntimeLayout layout) {
        this.target = target;
        this.memory = memory;
        this.layout = layout;
        this.stop = new Stop(this, 1);
    }

    @Override
    public Scope scope() {
        return Scope.ADDRESS_SPACE;
    }

    /** Itself: the address space an address-space handle belongs to. */
    @Override
    public AddressSpaceHandle space() {
        return this;
    }

    public AddressSpace target() {
        return target;
    }

    public TargetMemory memory() {
        return memory;
    }

    public RuntimeLayout layout() {
        return layout;
    }

    /** The current stop: where handles come from. */
    public Stop stop() {
        return stop;
    }

    /**
     * The target ran (or is about to): drop every cache and make every handle of the finished stop
     * stale. The next query starts a new stop. This is the one place caches are cleared: the stop's
     * memoised values, the typed memory's blocks and the backend's own ({@link AddressSpace#resumed()}).
     */
    public synchronized void resumed() {
        Stop finished = stop;
        finished.end();
        memory.invalidate();
        target.resumed();
        stop = new Stop(this, finished.generation() + 1);
    }

    /** A value at an address, as a C type, for the runtime model. */
    RemoteValue at(long address, String type, String path) {
        return RemoteValue.at(memory, layout, address, type, path);
    }

    /** The runtime global {@code name}, as a value of {@code type} (null when only its size matters). */
    RemoteValue global(String name, String type) {
        return RemoteValue.at(memory, layout, layout.symbolAddress(name), type, name);
    }

    /** ompd_state: non-zero when the runtime tracks OMPT state (OMP_DEBUG=enabled). */
    long ompdState() {
        return stop.ompdState();
    }

    OmpdException readError(String what, TargetException e) {
        return new OmpdException(OmpdRc.DEVICE_READ_ERROR, what + ": " + e.getMessage(), OptionalLong.empty(), e);
    }

    @Override
    public String toString() {
        return "OpenMP process " + target.name() + " (runtime " + layout.runtimeModule() + ")";
    }
}
