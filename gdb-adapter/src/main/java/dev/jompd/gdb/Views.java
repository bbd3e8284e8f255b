package dev.jompd.gdb;

import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.ompd.ThreadIdKind;
import dev.jompd.report.ConsoleReport;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.OpenMpPicture.OpenMpThread;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

/**
 * Small translations shared by the command handlers: gdb's selected thread and gdb's numbers for the
 * picture's threads, and how the consoles' renderings ({@link ConsoleReport}) name threads here. No memory
 * is read here beyond calling ompd-core.
 */
final class Views {
    private final Session.Target target;

    Views(Session.Target target) {
        this.target = target;
    }

    Session.Target target() {
        return target;
    }

    /**
     * The thread of this stop's picture behind gdb's selected thread (by its pthread_t when gdb knows it, else by its
     * LWP), or why there is none.
     */
    OpenMpThread selectedThread() {
        TargetContext.SelectedThread selected = target.context().selected()
                .orElseThrow(() -> new BridgeException(target.context().debugger() + " has no selected thread"));
        OpenMpPicture picture = target.picture();
        Optional<OpenMpThread> thread = selected.pthread().isPresent()
                ? picture.threadByPthread(selected.pthread().getAsLong()) : picture.threadByLwp(selected.lwp());
        return thread.orElseThrow(() -> new BridgeException(target.context().debugger() + " thread " + selected.num() + " (LWP " + selected.lwp()
                + ") is not an OpenMP thread: select one with `thread N` (see `ompd threads`)"));
    }

    /** The OMPD handle of a picture's thread, for core's rules that read the runtime at a stop (step-into). */
    ThreadHandle handle(OpenMpThread thread) {
        return Ompd.threadHandle(target.process(), ThreadIdKind.GTID, thread.gtid());
    }

    /** gdb's number of the OS thread behind an OpenMP thread of the picture. */
    OptionalInt gdbNumber(OpenMpThread thread) {
        Optional<GdbThreads.GdbThread> byPthread = target.gdbThreads().byPthread(thread.pthread());
        if (byPthread.isPresent()) {
            return OptionalInt.of(byPthread.get().num());
        }
        if (thread.lwp().isPresent()) {
            return target.gdbThreads().byLwp(thread.lwp().getAsLong()).map(t -> OptionalInt.of(t.num())).orElse(OptionalInt.empty());
        }
        return OptionalInt.empty();
    }

    /** How the consoles' renderings name threads here: by the debugger's numbers (gdb's or lldb's), its selected thread marked. */
    ConsoleReport.Options console() {
        return new ConsoleReport.Options(target.context().debugger(), this::gdbNumber, this::isSelected);
    }

    boolean isSelected(OpenMpThread thread) {
        Optional<TargetContext.SelectedThread> selected = target.context().selected();
        OptionalInt num = gdbNumber(thread);
        return selected.isPresent() && num.isPresent() && selected.get().num() == num.getAsInt();
    }

    String hex(long value) {
        return "0x" + Long.toHexString(value);
    }

    /** Runs an OMPD query; a failure becomes empty (the caller prints what it knows). */
    static <T> Optional<T> attempt(Supplier<T> query) {
        try {
            return Optional.ofNullable(query.get());
        } catch (OmpdException | dev.jompd.core.target.TargetException e) {
            return Optional.empty();
        }
    }
}
