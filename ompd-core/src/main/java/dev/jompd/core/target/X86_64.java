package dev.jompd.core.target;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What jompd knows of x86-64 Linux, in one place (Delve's {@code proc.Arch}): the kernel's register set
 * as cores and ptrace give it, the thread pointer, DWARF's register numbers and the signal frame's
 * layout. Type sizes are {@link TargetArchitecture#X86_64_LINUX}.
 */
public final class X86_64 {
    private X86_64() {}

    /** The kernel's {@code struct user_regs_struct}, in order: what NT_PRSTATUS and PTRACE_GETREGS hold. */
    public static final List<String> USER_REGS = List.of(
            "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx",
            "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds",
            "es", "fs", "gs");

    /** The register holding the thread pointer; on glibc a thread's {@code pthread_t} is its thread pointer. */
    public static final String THREAD_POINTER_REGISTER = "fs_base";

    /** Pages mappings come in (and what ld.so aligns a module's lowest segment to). */
    public static final long PAGE_SIZE = 4096;

    /** The thread pointer in a register set by {@link #USER_REGS} names; empty when absent or 0 (not set up yet). */
    public static OptionalLong threadPointer(Map<String, Long> registers) {
        Long value = registers.get(THREAD_POINTER_REGISTER);
        return value == null || value == 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** The registers DWARF numbers 0 to 16 name (System V x86-64 psABI, figure 3.36), by user_regs name. */
    public static final List<String> DWARF_REGISTERS = List.of("rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
            "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip");
    /** DWARF register numbers. */
    public static final int DWARF_RBP = 6;
    public static final int DWARF_RSP = 7;
    public static final int DWARF_RIP = 16;

    /** {@code struct ucontext_t}: uc_flags, uc_link, uc_stack (24 bytes), then mcontext's gregs. */
    public static final long UCONTEXT_GREGS_OFFSET = 40;
    /** DWARF register number → index in mcontext's gregs (REG_R8 = 0 ... REG_RIP = 16). */
    private static final int[] GREGS_INDEX = {13, 12, 14, 11, 9, 8, 10, 15, 0, 1, 2, 3, 4, 5, 6, 7, 16};

    /** Where the signal frame's {@code gregs} keep DWARF register {@code dwarfRegister}, as an index of 8-byte slots. */
    public static int gregsIndex(int dwarfRegister) {
        return GREGS_INDEX[dwarfRegister];
    }

    /** The frame address OMPT records is the CFA less the return address and the saved rbp. */
    public static final long CFA_TO_FRAME_ADDRESS = 16;
}
