package dev.jompd.core.target;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * An OS thread of the target.
 *
 * @param lwp           the kernel thread id (LWP)
 * @param threadPointer the thread pointer (x86-64: {@code fs_base}), which on glibc is the thread's
 *                      {@code pthread_t}: how OpenMP threads are matched to OS threads; empty when the
 *                      backend does not know it or the thread has none yet (0)
 * @param registers     general-purpose registers by their {@code user_regs_struct} name ("rip", "rsp",
 *                      ...): all of them from a core or ptrace, some or none from a debugger that holds
 *                      the process
 */
public record TargetThread(long lwp, OptionalLong threadPointer, Map<String, Long> registers) {

    public TargetThread {
        Objects.requireNonNull(threadPointer);
        threadPointer = threadPointer.isPresent() && threadPointer.getAsLong() == 0 ? OptionalLong.empty() : threadPointer;
        registers = Map.copyOf(registers);
    }

    /** A thread known by its registers: the thread pointer is the one they hold ({@link X86_64#threadPointer}). */
    public static TargetThread fromRegisters(long lwp, Map<String, Long> registers) {
        return new TargetThread(lwp, X86_64.threadPointer(registers), registers);
    }

    /** A thread known only by its LWP and thread pointer (a debugger's thread list), without registers. */
    public static TargetThread identity(long lwp, long threadPointer) {
        return new TargetThread(lwp, OptionalLong.of(threadPointer), Map.of());
    }

    public OptionalLong register(String name) {
        Long value = registers.get(name);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }
}
