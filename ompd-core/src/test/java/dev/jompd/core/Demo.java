package dev.jompd.core;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.ompd.SnapshotReport;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;

import java.util.Arrays;

/**
 * The README's main job until the command line exists: a fixture program (nested parallelism by
 * default) runs to its marker under gdb, a core is taken, and jompd prints the OpenMP picture of it.
 * Usage: Demo [fixture [args...]], e.g. Demo nested 3 2, Demo tasks 500, Demo waits.
 */
public final class Demo {
    public static void main(String[] args) {
        Fixture fixture = args.length > 0 ? Fixture.valueOf(args[0].toUpperCase()) : Fixture.NESTED;
        String[] arguments = args.length > 1 ? Arrays.copyOfRange(args, 1, args.length)
                : fixture == Fixture.NESTED ? new String[] {"3", "2"} : new String[0];
        System.out.println("== running fixture " + fixture.programName() + " " + String.join(" ", arguments)
                + " to its marker under gdb and taking a core ...");
        StoppedFixture stopped = Fixtures.core(FixtureRun.of(fixture, arguments));
        System.out.println("== core: " + stopped.core());
        long start = System.nanoTime();
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(stopped.core())) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            ProcessSnapshot snapshot = ProcessSnapshot.take(process);
            long micros = (System.nanoTime() - start) / 1000;
            System.out.println("== jompd's view of the core (" + micros / 1000.0 + " ms, "
                    + process.memory().statistics().reads() + " reads):");
            System.out.print(SnapshotReport.render(snapshot));
        }
        System.out.println("== the program itself recorded " + stopped.facts().threadCount()
                + " OpenMP threads at its marker");
    }
}
