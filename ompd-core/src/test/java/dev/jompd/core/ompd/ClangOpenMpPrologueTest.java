package dev.jompd.core.ompd;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stop after the parameters' stores, on gdb's disassembly of clang-19 -O0 functions (copied from gdb's
 * {@code -data-disassemble} of each at its {@code break} address; the fixture's region is run in
 * {@code ParameterStopIT}), each compared with the address after the store of the last parameter's home.
 */
class ClangOpenMpPrologueTest {
    private static ClangOpenMpPrologue.Instruction at(long address, String text) {
        return new ClangOpenMpPrologue.Instruction(address, text);
    }

    /** {@code void g(int n) { #pragma omp barrier ... }}: the stores, then the barrier's own call on the same line. */
    @Test
    void stopsBeforeTheDirectivesCallOnTheSameLine() {
        List<ClangOpenMpPrologue.Instruction> line = List.of(
                at(0x131b, "lea    0x2a3e(%rip),%rdi        # 0x3d60"),
                at(0x1322, "call   0x10a0 <__kmpc_global_thread_num@plt>"),
                at(0x1327, "mov    -0x8(%rbp),%edi"),
                at(0x132a, "mov    %eax,%esi"),
                at(0x132c, "mov    %edi,-0x4(%rbp)"),
                at(0x132f, "lea    0x2a12(%rip),%rdi        # 0x3d48"),
                at(0x1336, "call   0x1060 <__kmpc_barrier@plt>"));
        assertThat(ClangOpenMpPrologue.afterParameterStores(line, OptionalLong.of(0x133b))).hasValue(0x132f);
    }

    /**
     * {@code void d(int n, char *name) { int y = n; #pragma omp task ... }}: the call has the task's line, the
     * stores end it, and the next line is the first statement's, where the stop goes.
     */
    @Test
    void stopsAtTheNextLineWhenTheStoresEndTheLine() {
        List<ClangOpenMpPrologue.Instruction> line = List.of(
                at(0x132f, "lea    0x2a12(%rip),%rdi        # 0x3d48"),
                at(0x1336, "call   0x1060 <__kmpc_global_thread_num@plt>"),
                at(0x133b, "mov    -0x2c(%rbp),%edi"),
                at(0x133e, "mov    %eax,%esi"),
                at(0x1340, "mov    -0x28(%rbp),%rax"),
                at(0x1344, "mov    %esi,-0x1c(%rbp)"),
                at(0x1347, "mov    %edi,-0x4(%rbp)"),
                at(0x134a, "mov    %rax,-0x10(%rbp)"));
        assertThat(ClangOpenMpPrologue.afterParameterStores(line, OptionalLong.of(0x134e))).hasValue(0x134e);
    }

    /** nested.c's region(int depth) in Intel syntax (gdb's {@code disassembly-flavor intel}): the same stop. */
    @Test
    void readsIntelSyntaxToo() {
        List<ClangOpenMpPrologue.Instruction> line = List.of(
                at(0x299b, "lea    rdi,[rip+0x739e]        # 0x9d40"),
                at(0x29a2, "call   0x2430 <__kmpc_global_thread_num@plt>"),
                at(0x29a7, "mov    edi,DWORD PTR [rbp-0x8]"),
                at(0x29aa, "mov    esi,eax"),
                at(0x29ac, "mov    DWORD PTR [rbp-0x4],edi"),
                at(0x29af, "movsxd rcx,DWORD PTR [rbp-0x4]"),
                at(0x29b3, "lea    rax,[rip+0x793e]        # 0xa2f8 <sizes>"),
                at(0x29ba, "mov    edx,DWORD PTR [rax+rcx*4]"),
                at(0x29bd, "lea    rdi,[rip+0x737c]        # 0x9d40"),
                at(0x29c4, "call   0x2270 <__kmpc_push_num_threads@plt>"));
        assertThat(ClangOpenMpPrologue.afterParameterStores(line, OptionalLong.of(0x29e7))).hasValue(0x29af);
    }

    /** A function whose parameters are stored before its first line (no OpenMP call first): the stop stays. */
    @Test
    void leavesOtherFunctionsAlone() {
        List<ClangOpenMpPrologue.Instruction> line = List.of(
                at(0x129f, "lea    0x2a72(%rip),%rdi        # 0x3d18"),
                at(0x12a6, "mov    $0x2,%esi"),
                at(0x12ab, "lea    0x1ce(%rip),%rdx        # 0x1480 <b_plain.omp_outlined>"),
                at(0x12b2, "lea    -0x4(%rbp),%rcx"),
                at(0x12b6, "lea    -0x10(%rbp),%r8"),
                at(0x12bc, "call   0x1050 <__kmpc_fork_call@plt>"));
        assertThat(ClangOpenMpPrologue.afterParameterStores(line, OptionalLong.of(0x12c1))).isEmpty();
    }
}
