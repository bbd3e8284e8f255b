package dev.jompd.core.ompd;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.Demangler;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.SourceLines;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Task functions named as their author wrote them, on a clang++-built program: C++ names demangled, and
 * clang's {@code .omp_task_entry.} thunk named by the task construct whose code is inlined into it. Truth:
 * the source's pragma line, the address the program recorded of the function the task calls
 * ({@code &leaf}), and the frames gdb unwinds on each stack.
 */
class FunctionNamesIT {

    @Test
    void explicitTaskIsNamedByItsConstructWhoseCodeClangInlinedIntoItsThunk() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.CXX_TASKS));
        int pragma = SourceLines.lineOf(Fixture.CXX_TASKS, "cxx_tasks.cpp", "#pragma omp task shared(value, domain)");
        try (AddressSpace core = Targets.core(fixture); Symbolizer symbols = new Symbolizer(core);
             FunctionNames names = new FunctionNames(symbols)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            ThreadHandle marker = Ompd.threadHandle(process, ThreadIdKind.LWP, fixture.facts().thread(0).lwp());
            TaskHandle task = marker.currentTask();
            assertThat(task.flags().explicit()).isTrue();
            CodeLocation code = names.ofTask(task);

            // the task's code is its thunk's (the outlined code inlined there), not leaf(), the function it calls
            assertThat(code.resolution()).isEqualTo(CodeLocation.Resolution.TASK_CONSTRUCT);
            assertThat(code.address()).isEqualTo(code.entryPoint()).isNotEqualTo(Long.decode(fixture.facts().get("task_callee")));
            assertThat(code.displayName()).isEqualTo("task at cxx_tasks.cpp:" + pragma);
            assertThat(code.construct()).hasValueSatisfying(c -> assertThat(c).endsWith("/cxx_tasks.cpp:" + pragma));
            assertThat(symbols.locate(code.entryPoint()).orElseThrow().function()).startsWith(".omp_task_entry.");
            // gdb: the thunk's frame on the marker thread's stack is at the construct's line
            GdbProbe.Frame thunk = fixture.gdb().backtraces().get(fixture.facts().thread(0).lwp()).stream()
                    .filter(f -> f.functionStart() == code.entryPoint()).findFirst().orElseThrow();
            assertThat(thunk.line()).isEqualTo(pragma);
        }
    }

    @Test
    void implicitTasksOfACxxFunctionShowItsDemangledName() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.CXX_TASKS));
        Map<Long, List<GdbProbe.Frame>> stacks = fixture.gdb().backtraces();
        try (AddressSpace core = Targets.core(fixture); Symbolizer symbols = new Symbolizer(core);
             FunctionNames names = new FunctionNames(symbols)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            for (int k = 0; k < fixture.facts().threadCount(); k++) {
                long lwp = fixture.facts().thread(k).lwp();
                TaskHandle task = Ompd.threadHandle(process, ThreadIdKind.LWP, lwp).currentTask();
                while (task.flags().explicit()) {
                    task = task.generating();
                }
                CodeLocation code = names.ofTask(task);
                // gdb's frame of the outlined function (the frame the runtime called) by its start address
                GdbProbe.Frame frame = stacks.get(lwp).stream().filter(f -> f.functionStart() == code.address())
                        .findFirst().orElseThrow(() -> new AssertionError("no frame of " + code + " on thread " + lwp
                                + ": " + stacks.get(lwp)));
                // gdb names this frame from DWARF ("_ZL4workR6DomainPd.omp_outlined(void) const"): the frame is
                // the truth for which function runs; its C++ name is the one the source declares,
                // static void work(Domain &, double *), outlined by clang.
                assertThat(frame.function()).startsWith("_ZL4workR6DomainPd.omp_outlined");
                assertThat(code.symbol().orElseThrow()).isEqualTo("_ZL4workR6DomainPd.omp_outlined");
                assertThat(code.displayName()).as("thread %d", k)
                        .isEqualTo("work(Domain&, double*) [clone .omp_outlined]");
            }
        }
    }

    @Test
    void demanglingKeepsTheCloneSuffixReadable() {
        try (Demangler demangler = new Demangler()) {
            assertThat(demangler.demangle("_ZL15EvalEOSForElemsR6DomainPdiPii.omp_outlined"))
                    .isEqualTo("EvalEOSForElems(Domain&, double*, int, int*, int) [clone .omp_outlined]");
            assertThat(demangler.demangle("main._omp_fn.0")).isEqualTo("main._omp_fn.0");
            assertThat(demangler.demangle("_Znot a name")).isEqualTo("_Znot a name");
        }
    }
}
