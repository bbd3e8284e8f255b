package dev.jompd.report;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.Symbolizer;

import java.util.Optional;

/**
 * A door's OpenMP session on one target (gdb's bridge, the DAP server): the address space, OMPD on it,
 * the names of its code kept across stops, and the picture of the current stop, taken once for every
 * request of that stop. The door says when the target ran ({@link #resumed()}: the one place a stop's
 * caches die, the backend's among them) and when it is another target (close this session and open a
 * new one: modules changed, another process or core).
 *
 * <p>Owns the address space: {@link #close()} closes it. Thread-safe.
 */
public final class TargetSession implements AutoCloseable {
    private final AddressSpace space;
    private final String kind;
    private final String name;
    private final Symbolizer symbols;
    private final CodeNames codeNames;
    /** OMPD on the target; null until the runtime is found and initialised. */
    private AddressSpaceHandle process;
    /** This stop's picture, taken on first use; dropped when the stop ends. */
    private OpenMpPicture picture;

    /**
     * @param kind {@code core}, {@code pid} or {@code remote}, as {@link TargetDescription#kind()}
     * @param name the core file, the process id or the connection, as {@link TargetDescription#name()}
     */
    public TargetSession(AddressSpace space, String kind, String name) {
        this.space = space;
        this.kind = kind;
        this.name = name;
        this.symbols = new Symbolizer(space);
        this.codeNames = new CodeNames(symbols);
    }

    public AddressSpace space() {
        return space;
    }

    public Symbolizer symbols() {
        return symbols;
    }

    /** Names of code, kept while the target is the same. */
    public CodeNames codeNames() {
        return codeNames;
    }

    /**
     * OMPD on the target, initialised on first use; until that succeeds it is tried again at each call
     * (libomp may be loaded or initialised meanwhile).
     *
     * @throws dev.jompd.core.ompd.OmpdException when the target has no (usable) OpenMP runtime yet
     * @throws dev.jompd.core.target.TargetException when the target cannot be read
     */
    public synchronized AddressSpaceHandle process() {
        if (process == null) {
            process = Ompd.processInitialize(space);
        }
        return process;
    }

    /** OMPD on the target if {@link #process()} succeeded before. */
    public synchronized Optional<AddressSpaceHandle> initialisedProcess() {
        return Optional.ofNullable(process);
    }

    /** What is inspected, for a report's header. Needs OMPD ({@link #process()}). */
    public TargetDescription description() {
        return new TargetDescription(kind, name, space.name(), process().layout().runtimeModule());
    }

    /** The OpenMP picture of this stop, taken once for every request of the stop. */
    public synchronized OpenMpPicture picture() {
        if (picture == null) {
            picture = OpenMpPicture.take(process(), description(), codeNames);
        }
        return picture;
    }

    /**
     * The target ran: the picture, OMPD's stop (its handles go stale) and the backend's per-stop caches
     * go. Names of code stay.
     */
    public synchronized void resumed() {
        picture = null;
        if (process != null) {
            process.resumed(); // ends the stop, down to the backend's caches
        } else {
            space.resumed();
        }
    }

    /** Closes the names and the address space (a live backend lets the process go). */
    @Override
    public synchronized void close() {
        picture = null;
        process = null;
        codeNames.close();
        symbols.close();
        space.close();
    }
}
