package dev.jompd.core.ompd;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.core.unwind.GdbBacktrace;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.FixtureBuilder.Optimization;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Prerequisite;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tasks named by their construct on BOTS fib's shape built -O2 by clang ({@code fib_tasks.c}): the two
 * constructs' code is inlined into two thunks that both call nothing but {@code fib}, so the function a
 * task calls cannot tell them apart. Truth: the lines of the two pragmas and the construct of every task
 * on the marker thread, which the program recorded itself ({@code __LINE__}, its own chain); and gdb's
 * frames of the thunks, each at the line of the construct inlined there (gdb reading DWARF on its own).
 */
class TaskConstructNamesIT {
    private static final FixtureRun RUN = FixtureRun.of(Fixture.FIB_TASKS);

    private static Path executable() {
        return FixtureBuilder.executable(RUN.fixture(), RUN.runtimeVersion(), Optimization.O2);
    }

    @Test
    void eachTaskOfACoreIsNamedByItsOwnConstruct() {
        StoppedFixture fixture = Fixtures.makeCore(RUN, executable(), Fixtures.workDirectory("fib-tasks-O2-core"));
        List<CodeLocation> chain;
        try (AddressSpace core = Targets.core(fixture)) {
            chain = namedChain(core, fixture.facts());
        }
        assertNamedByConstruct(chain, fixture.facts());
        // gdb, on its own: each thunk frame of the marker thread (innermost first) at its construct's line
        List<GdbBacktrace.Frame> gdb = GdbBacktrace.ofCore(fixture.executable(), fixture.core())
                .get(fixture.facts().thread(0).lwp());
        assertThat(chain.stream().map(CodeLocation::construct).map(c -> c.orElseThrow()).map(TaskConstructNamesIT::line))
                .containsExactlyElementsOf(thunkFrameLines(gdb));
    }

    @Test
    void eachTaskOfALiveProcessIsNamedByItsOwnConstruct() {
        try (LiveFixture held = Fixtures.live(RUN, executable())) {
            List<CodeLocation> chain;
            try (LiveProcessAddressSpace live = LiveProcessAddressSpace.attach(held.pid())) {
                chain = namedChain(live, held.facts());
            }
            assertNamedByConstruct(chain, held.facts());
            Map<Long, List<GdbBacktrace.Frame>> gdb = GdbBacktrace.ofProcess(held.pid());
            Prerequisite.require(!gdb.isEmpty(), "gdb cannot attach to the held fixture (ptrace not permitted)");
            assertThat(chain.stream().map(c -> line(c.construct().orElseThrow())))
                    .containsExactlyElementsOf(thunkFrameLines(gdb.get(held.facts().thread(0).lwp())));
            assertThat(held.release()).contains("JOMPD_RESULT ok");
        }
    }

    /** The names of the explicit tasks of the marker thread, innermost first (through generating parents). */
    private static List<CodeLocation> namedChain(AddressSpace space, Facts facts) {
        try (Symbolizer symbols = new Symbolizer(space); FunctionNames names = new FunctionNames(symbols)) {
            AddressSpaceHandle process = Ompd.processInitialize(space);
            TaskHandle task = Ompd.threadHandle(process, ThreadIdKind.LWP, facts.thread(0).lwp()).currentTask();
            List<CodeLocation> chain = new ArrayList<>();
            for (int depth = 0; task.flags().explicit() && depth < 100; depth++) {
                chain.add(names.ofTask(task));
                task = task.generating();
            }
            return chain;
        }
    }

    private static void assertNamedByConstruct(List<CodeLocation> chain, Facts facts) {
        int xLine = Integer.parseInt(facts.get("task.x.line"));
        int yLine = Integer.parseInt(facts.get("task.y.line"));
        List<String> constructs = List.of(facts.get("task_chain").split(","));
        assertThat(constructs).contains("x", "y"); // the premise: both constructs' tasks are live
        assertThat(chain).hasSize(Integer.parseInt(facts.get("task_chain_depth")));
        Set<Long> thunks = new HashSet<>();
        for (int i = 0; i < chain.size(); i++) {
            CodeLocation code = chain.get(i);
            int line = constructs.get(i).equals("x") ? xLine : yLine;
            assertThat(code.resolution()).as("task %d: %s", i, code).isEqualTo(CodeLocation.Resolution.TASK_CONSTRUCT);
            assertThat(code.displayName()).as("task %d", i).isEqualTo("task at fib_tasks.c:" + line);
            assertThat(code.construct()).as("task %d", i).hasValueSatisfying(c -> assertThat(c).endsWith("/fib_tasks.c:" + line));
            assertThat(code.address()).isEqualTo(code.entryPoint());
            assertThat(code.symbol().orElseThrow()).startsWith(FunctionNames.TASK_ENTRY_PREFIX);
            assertThat(code.note()).isEmpty();
            thunks.add(code.entryPoint());
        }
        // two constructs, two thunks, two names: never one
        assertThat(thunks).hasSize(2);
        assertThat(chain.stream().map(CodeLocation::displayName).distinct()).hasSize(2);
    }

    /** gdb's lines of the marker thread's frames of clang's task thunks, innermost first. */
    private static List<Integer> thunkFrameLines(List<GdbBacktrace.Frame> frames) {
        return frames.stream().filter(f -> f.kind().equals("normal") && f.function().startsWith(FunctionNames.TASK_ENTRY_PREFIX))
                .map(GdbBacktrace.Frame::line).toList();
    }

    private static int line(String fileAndLine) {
        return Integer.parseInt(fileAndLine.substring(fileAndLine.lastIndexOf(':') + 1));
    }
}
