package dev.jompd.core.ompd;

import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Where a breakpoint on a clang {@code -O0} function that holds OpenMP directives must stop for its
 * parameters to be read. Such a function asks for its global thread number first: clang puts the call of
 * {@code __kmpc_global_thread_num} at the top of the function's entry block, before the stores of the
 * parameters into their homes (the stack slots DWARF names), and the line table marks that call
 * {@code prologue_end}. gdb's {@code break f} (and lldb's) stop at {@code prologue_end}, where every parameter
 * still reads whatever the stack held: a recursive {@code region(int depth)} showed {@code depth=21845}, a
 * {@code g_barrier(5)} showed the 3 of the call before. The stop that shows the caller's values is right after
 * the last store into the frame that follows that call, before the next call (the directive's own, such as
 * {@code __kmpc_barrier} or {@code __kmpc_push_num_threads}) and within the stop's line (a first statement on
 * the line above the directive starts a line of its own: the stop is then at that statement, where gdb's
 * stop skipped it).
 *
 * <p>The instructions are x86-64 as gdb disassembles them, in AT&amp;T or Intel syntax; any other text (or a
 * function without the call) leaves the stop where it is.
 */
public final class ClangOpenMpPrologue {
    /** One instruction: its address and gdb's text of it ({@code mov    %edi,-0x4(%rbp)}, {@code mov    DWORD PTR [rbp-0x4],edi}). */
    public record Instruction(long address, String text) {}

    /** The call clang puts first in a function that needs its thread number. */
    static final String THREAD_NUMBER_CALL = "__kmpc_global_thread_num";
    /**
     * A store into a slot of the frame: in AT&amp;T syntax (gdb's default) the last operand, the destination
     * ({@code mov %edi,-0x4(%rbp)}); in Intel syntax (the {@code disassembly-flavor intel} of many VS Code
     * launch configurations' set-up) the first ({@code mov DWORD PTR [rbp-0x4],edi}).
     */
    private static final Pattern FRAME_STORE = Pattern.compile(
            ",\\s*-?(0x[0-9a-f]+)?\\(%rbp\\)\\s*$|^\\S+\\s+(\\w+ PTR )?\\[rbp([-+]0x[0-9a-f]+)?\\],");

    private ClangOpenMpPrologue() {}

    /**
     * The address after the parameters' stores, given the instructions of the breakpoint's line from its
     * address on and the address after that line's last instruction (empty when not known), or empty when the line does not start with clang's call of {@link #THREAD_NUMBER_CALL}
     * (its argument's {@code lea} and the call: the first two) or stores nothing into the frame after it.
     */
    public static OptionalLong afterParameterStores(List<Instruction> line, OptionalLong lineEnd) {
        int call = -1;
        for (int i = 0; i < Math.min(2, line.size()); i++) {
            if (isCall(line.get(i)) && line.get(i).text().contains(THREAD_NUMBER_CALL)) {
                call = i;
            }
        }
        if (call < 0) {
            return OptionalLong.empty();
        }
        OptionalLong after = OptionalLong.empty();
        for (int i = call + 1; i < line.size() && !isCall(line.get(i)); i++) {
            if (FRAME_STORE.matcher(code(line.get(i))).find()) {
                after = i + 1 < line.size() ? OptionalLong.of(line.get(i + 1).address()) : lineEnd;
            }
        }
        return after;
    }

    private static boolean isCall(Instruction instruction) {
        return instruction.text().startsWith("call");
    }

    /** The instruction without gdb's comment ({@code # 0x9d40 <sizes>}). */
    private static String code(Instruction instruction) {
        int comment = instruction.text().indexOf('#');
        return comment < 0 ? instruction.text() : instruction.text().substring(0, comment);
    }
}
