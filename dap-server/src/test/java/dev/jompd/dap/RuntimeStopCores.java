package dev.jompd.dap;

import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A core whose current thread (the one a debugger opens on) stops inside the OpenMP runtime: barrier_straggler
 * held at its marker, gdb attached, its thread 1 (the program's main thread, OpenMP thread 0, waiting at the
 * explicit barrier in libomp's code) selected, and gcore. The fixture records the barrier's
 * line ({@code hang.barrier.line}): the innermost frame of the user's code on that thread.
 */
final class RuntimeStopCores {
    private static StoppedFixture made;

    private RuntimeStopCores() {}

    static synchronized StoppedFixture barrierWaitCore() throws IOException {
        if (made != null && Files.isRegularFile(made.core())) {
            return made;
        }
        FixtureRun run = FixtureRun.of(Fixture.BARRIER_STRAGGLER);
        Path directory = Fixtures.workDirectory("barrier_straggler-main-thread-core");
        Path core = directory.resolve("core");
        Files.deleteIfExists(core);
        // attached, not stopped at a breakpoint: gcore writes the selected thread first (a thread stopped by a
        // signal, such as a breakpoint's, would come first), and that is the thread a debugger opens on
        Facts facts;
        try (LiveFixture live = Fixtures.live(run)) {
            facts = live.facts();
            Commands.Result result = Commands.run(List.of("gdb", "-batch", "-nx", "-ex", "set pagination off",
                            "-ex", "set confirm off", "-p", Long.toString(live.pid()), "-ex", "thread 1",
                            "-ex", "gcore " + core, "-ex", "detach"), Map.of(), directory, Duration.ofMinutes(3));
            if (!Files.isRegularFile(core)) {
                throw new IllegalStateException("gdb made no core of barrier_straggler:\n" + result.output());
            }
        }
        made = new StoppedFixture(run, Fixtures.executable(run), core, facts);
        return made;
    }
}
