package dev.jompd.gdb;

import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.OmpdRc;
import dev.jompd.core.ompd.ThreadHandle;
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

    /** The OpenMP thread behind gdb's selected thread, or why there is none. */
    ThreadHandle selectedThread() {
        TargetContext.SelectedThread selected = target.context().selected()
                .orElseThrow(() -> new BridgeException("gdb has no selected thread"));
        try {
            if (selected.pthread().isPresent()) {
                return dev.jompd.core.ompd.Ompd.threadHandle(target.process(), dev.jompd.core.ompd.ThreadIdKind.PTHREAD,
                        selected.pthread().getAsLong());
            }
            return dev.jompd.core.ompd.Ompd.threadHandle(target.process(), dev.jompd.core.ompd.ThreadIdKind.LWP, selected.lwp());
        } catch (OmpdException e) {
            if (e.rc() == OmpdRc.UNAVAILABLE || e.rc() == OmpdRc.BAD_INPUT) {
                throw new BridgeException("gdb thread " + selected.num() + " (LWP " + selected.lwp()
                        + ") is not an OpenMP thread: select one with `thread N` (see `ompd threads`)");
            }
            throw e;
        }
    }

    /** The selected (or any) thread's entry in this stop's picture. */
    OpenMpThread inPicture(ThreadHandle thread) {
        OpenMpPicture picture = target.picture();
        long gtid = attempt(thread::gtid).orElseThrow(() -> new BridgeException("cannot read the thread's gtid"));
        return picture.threads().stream().filter(t -> t.gtid() == gtid).findFirst()
                .orElseThrow(() -> new BridgeException("OpenMP thread gtid " + gtid + " is not in this stop's picture"));
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

    /** How the consoles' renderings name threads here: by gdb's numbers, gdb's selected thread marked. */
    ConsoleReport.Options console() {
        return new ConsoleReport.Options("gdb", this::gdbNumber, this::isSelected);
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
