package dev.jompd.core.unwind;

/** How a frame's registers were found. */
public enum UnwindMethod {
    /** The innermost frame: the thread's own registers. */
    THREAD_REGISTERS,
    /** The callee's call frame information ({@code .eh_frame} or {@code .debug_frame}). */
    CALL_FRAME_INFO,
    /** The callee had no call frame information: its saved frame pointer chain (less reliable). */
    FRAME_POINTER,
    /** The frame a signal interrupted: registers from the signal frame's saved context. */
    SIGNAL_CONTEXT,
    /** An inlined call: the same registers as the frame it was inlined into. */
    INLINED,
    /**
     * A function that left the stack by a tail call (a jump) on the way to the frame before it: no
     * registers of its own, found as gdb finds them, from the call sites the compiler described
     * ({@code DW_TAG_call_site}) when they name exactly one chain of tail calls.
     */
    TAIL_CALL
}
