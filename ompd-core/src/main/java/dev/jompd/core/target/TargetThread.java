package dev.jompd.core.target;

import java.util.Map;
import java.util.OptionalLong;

/**
 * An OS thread of the target.
 *
 * @param lwp       the kernel thread id (LWP)
 * @param registers general-purpose registers by their {@code user_regs_struct} name ("rip", "rsp",
 *                  "fs_base", ...)
 */
public record TargetThread(long lwp, Map<String, Long> registers) {

    public TargetThread {
        registers = Map.copyOf(registers);
    }

    /**
     * The thread's pthread id. On x86-64 glibc a thread's {@code pthread_t} is its thread pointer, the
     * {@code fs_base} register.
     */
    public OptionalLong pthreadId() {
        Long fsBase = registers.get("fs_base");
        return fsBase == null || fsBase == 0 ? OptionalLong.empty() : OptionalLong.of(fsBase);
    }

    public OptionalLong register(String name) {
        Long value = registers.get(name);
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }
}
