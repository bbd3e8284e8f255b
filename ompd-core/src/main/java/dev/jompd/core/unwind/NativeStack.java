package dev.jompd.core.unwind;

import java.util.List;
import java.util.Optional;

/**
 * A thread's native stack, innermost frame first.
 *
 * @param lwp        the thread
 * @param frames     the frames found
 * @param truncation why the walk stopped before the outermost frame; empty when it reached it
 */
public record NativeStack(long lwp, List<NativeFrame> frames, Optional<Truncation> truncation) {
    public NativeStack {
        frames = List.copyOf(frames);
    }

    /** Why a stack was cut short. */
    public enum Reason {
        /** The thread's registers (pc, stack pointer) are unknown. */
        NO_REGISTERS,
        /** More frames than the walk's bound. */
        TOO_MANY_FRAMES,
        /** A caller's CFA was not above its callee's: a corrupt stack or a loop. */
        CFA_NOT_INCREASING,
        /** The same (pc, CFA) came back: a loop. */
        LOOP,
        /** Stack memory the unwind rules point at could not be read. */
        UNREADABLE_MEMORY,
        /** No module, call frame information or frame pointer covers the pc. */
        NO_UNWIND_INFO,
        /** The call frame information covering the pc is malformed or asks for something impossible. */
        BAD_UNWIND_INFO
    }

    /** The reason and a sentence with the addresses involved. */
    public record Truncation(Reason reason, String detail) {
        @Override
        public String toString() {
            return reason + ": " + detail;
        }
    }
}
