package dev.jompd.core.unwind;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * One frame of a native stack. An inlined call gets a frame of its own with the pc and CFA of the
 * function it was inlined into, as gdb shows it.
 *
 * @param pc       the frame's pc: the thread's pc for the innermost frame, a return address otherwise
 * @param cfa      the canonical frame address (the caller's stack pointer before the call); empty when
 *                 the frame's unwind information could not give it
 * @param function the function's name as gdb's backtrace prints it: from the debug information where
 *                 present, otherwise the symbol tables' (C++ demangled in full); empty where no symbol covers
 *                 the pc (gdb's {@code ??})
 * @param symbol   the symbol table's function and offset ({@code foo+0x12}), when a symbol covers the pc
 * @param module   the file name of the module holding the pc
 * @param source   file and line: of the pc (looked up at pc-1 for return addresses), or for a function
 *                 another was inlined into, of the inlined call
 * @param inlined  whether this frame is a call inlined into the frame after it
 * @param method   how the frame's registers were found
 * @param entry    the run-time address where the frame's function begins, as the symbol tables have it
 *                 (what the runtime keeps as a region's or task's code); empty for an inlined call, whose
 *                 code begins nowhere of its own, and where no symbol covers the pc
 */
public record NativeFrame(long pc, Optional<Long> cfa, Optional<String> function, Optional<String> symbol,
                          Optional<String> module, Optional<SourceLocation> source, boolean inlined,
                          UnwindMethod method, OptionalLong entry) {
    @Override
    public String toString() {
        return "0x%x in %s%s%s".formatted(pc, function.orElse("??"),
                source.map(location -> " at " + location).orElse(""),
                inlined ? " [inlined]" : method == UnwindMethod.FRAME_POINTER ? " [frame pointer]"
                        : method == UnwindMethod.SIGNAL_CONTEXT ? " [signal]" : "");
    }
}
