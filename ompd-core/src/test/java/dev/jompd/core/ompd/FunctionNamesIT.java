package dev.jompd.core.ompd;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.Demangler;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Task functions named as their author wrote them, on a clang++-built program: C++ names demangled, and
 * clang's {@code .omp_task_entry.} thunk resolved to the function the task calls. Truth: the address the
 * program recorded of that function ({@code &leaf}), and the frames gdb unwinds on each stack.
 */
class FunctionNamesIT {

    @Test
    void explicitTaskNamesTheFunctionItsThunkCallsAtTheAddressTheProgramRecorded() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.CXX_TASKS));
        try (AddressSpace core = Targets.core(fixture); Symbolizer symbols = new Symbolizer(core);
             FunctionNames names = new FunctionNames(symbols)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            ThreadHandle marker = Ompd.threadHandle(process, ThreadIdKind.LWP, fixture.facts().thread(0).lwp());
            TaskHandle task = marker.currentTask();
            assertThat(task.flags().explicit()).isTrue();
            CodeLocation code = names.ofTask(task);

            assertThat(code.resolution()).isEqualTo(CodeLocation.Resolution.TASK_ENTRY_CALLEE);
            assertThat(code.address()).isEqualTo(Long.decode(fixture.facts().get("task_callee")));
            assertThat(code.displayName()).isEqualTo(fixture.facts().get("task_callee_name"));
            assertThat(code.symbol()).contains("_ZL4leafR6Domaini");
            assertThat(symbols.locate(code.entryPoint()).orElseThrow().function()).startsWith(".omp_task_entry.");
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
