package dev.jompd.gdb;

import dev.jompd.core.ompd.OmpdException;
import dev.jompd.core.ompd.OmpdRc;
import dev.jompd.core.ompd.ParallelHandle;
import dev.jompd.core.ompd.TaskHandle;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.Text;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Small translations shared by the command handlers: OMPD answers into the words gdb users read (gdb
 * thread numbers, LWPs, short state names, function names). No memory is read here beyond calling
 * ompd-core.
 */
final class Views {
    private final Session.Target target;

    Views(Session.Target target) {
        this.target = target;
    }

    Session.Target target() {
        return target;
    }

    Symbolizer symbols() {
        return target.symbols();
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

    /** The state as in {@link #state(ThreadHandle)}, from the picture. */
    String state(OpenMpThread thread) {
        if (thread.state().isEmpty()) {
            return thread.stateCode().isEmpty() ? "(state not tracked: OMP_DEBUG=enabled)" : "(" + Text.stateName(thread) + ")";
        }
        String name = Text.shortState(thread.state().get());
        return thread.waitId() != 0 ? name + " on 0x" + Long.toHexString(thread.waitId()) : name;
    }

    boolean isSelected(OpenMpThread thread) {
        Optional<TargetContext.SelectedThread> selected = target.context().selected();
        OptionalInt num = gdbNumber(thread);
        return selected.isPresent() && num.isPresent() && selected.get().num() == num.getAsInt();
    }

    /** gdb's number of the OS thread behind an OpenMP thread. */
    OptionalInt gdbNumber(ThreadHandle thread) {
        OptionalLong pthread = attempt(thread::pthreadId).map(OptionalLong::of).orElse(OptionalLong.empty());
        if (pthread.isPresent()) {
            Optional<GdbThreads.GdbThread> byPthread = target.gdbThreads().byPthread(pthread.getAsLong());
            if (byPthread.isPresent()) {
                return OptionalInt.of(byPthread.get().num());
            }
        }
        OptionalLong lwp = lwp(thread);
        if (lwp.isPresent()) {
            return target.gdbThreads().byLwp(lwp.getAsLong()).map(t -> OptionalInt.of(t.num())).orElse(OptionalInt.empty());
        }
        return OptionalInt.empty();
    }

    OptionalLong lwp(ThreadHandle thread) {
        return attempt(thread::osThread).flatMap(o -> o).map(t -> OptionalLong.of(t.lwp())).orElse(OptionalLong.empty());
    }

    /** "gdb 3  LWP 1234  gtid 5" with what is known. */
    String ids(ThreadHandle thread) {
        StringBuilder text = new StringBuilder();
        OptionalInt num = gdbNumber(thread);
        text.append("gdb ").append(num.isPresent() ? Integer.toString(num.getAsInt()) : "?");
        OptionalLong lwp = lwp(thread);
        lwp.ifPresent(l -> text.append("  LWP ").append(l));
        attempt(thread::gtid).ifPresent(g -> text.append("  gtid ").append(g));
        return text.toString();
    }

    /** The thread's state without the {@code ompt_state_} prefix, its wait id when it waits on something. */
    String state(ThreadHandle thread) {
        try {
            ThreadHandle.ThreadStateInfo state = thread.state();
            String name = state.state().map(Text::shortState).orElse(state.name());
            return state.waitId() != 0 ? name + " on 0x" + Long.toHexString(state.waitId()) : name;
        } catch (OmpdException e) {
            return e.rc() == OmpdRc.NEEDS_STATE_TRACKING ? "(state not tracked: OMP_DEBUG=enabled)" : "(" + e.rc().cName() + ")";
        }
    }

    boolean isSelected(ThreadHandle thread) {
        Optional<TargetContext.SelectedThread> selected = target.context().selected();
        OptionalInt num = gdbNumber(thread);
        return selected.isPresent() && num.isPresent() && selected.get().num() == num.getAsInt();
    }

    /** The user's outlined function a region runs (behind libomp's GOMP wrapper), demangled. */
    String function(ParallelHandle region) {
        long entry = attempt(region::function).orElse(0L);
        if (entry == 0) {
            return "";
        }
        long outlined = attempt(region::outlinedFunction).orElse(entry);
        return (outlined != entry && symbols().isFunctionStart(outlined)
                ? target.names().ofCode(outlined) : target.names().ofCode(entry)).displayName();
    }

    /** "level 2 region (team of 4)" plus "serialized" for a team of one inside another. */
    String region(ParallelHandle region) {
        long level = attempt(region::level).orElse(-1L);
        long size = attempt(region::teamSize).orElse(-1L);
        StringBuilder text = new StringBuilder("level ").append(level);
        if (level == 0) {
            text.append(" (implicit parallel region of the initial task)");
        } else {
            text.append(" region, team of ").append(size);
            if (size == 1) {
                text.append(", serialized");
            }
        }
        return text.toString();
    }

    /** "explicit task", "implicit task" or "initial task". */
    String taskKind(TaskHandle task, boolean outermost) {
        Optional<TaskHandle.TaskFlags> flags = attempt(task::flags);
        if (flags.isEmpty()) {
            return "task";
        }
        if (flags.get().explicit()) {
            return "explicit task";
        }
        return outermost ? "initial task" : "implicit task";
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
