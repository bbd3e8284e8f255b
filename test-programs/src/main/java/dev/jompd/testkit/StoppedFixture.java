package dev.jompd.testkit;

import java.nio.file.Path;

/**
 * A fixture stopped at its marker, captured as a core file.
 *
 * @param executable the fixture program
 * @param core       gdb's core of the stopped state
 * @param facts      what the program recorded about itself before the marker
 */
public record StoppedFixture(FixtureRun run, Path executable, Path core, Facts facts) {

    /** Asks gdb questions about this core through the runtime's debug info: the ground truth. */
    public GdbProbe gdb() {
        return GdbProbe.onCore(executable, core);
    }

    /** The libomp.so this fixture ran with. */
    public Path libomp() {
        return Runtimes.libraryDirectory(run.runtimeVersion()).resolve("libomp.so");
    }
}
