package dev.jompd.core.bench;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.ProcessSnapshot;
import dev.jompd.core.ompd.ReferenceDifferentialIT.Jompd;
import dev.jompd.core.ompd.ReferenceDifferentialIT.Record;
import dev.jompd.core.ompd.ReferenceDifferentialIT.Reference;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Times jompd's complete {@link ProcessSnapshot#take} on a core of the 256-thread fixture (nested 16 16)
 * and, in the same run, LLVM's reference libompd dumping the same data through its gdb plugin
 * ({@code reference/dump_reference.py}), with memory reads counted on both sides: jompd's backend reads
 * (and {@link TargetMemory#statistics()}), the reference's calls of the plugin's read_memory callback.
 *
 * <p>Usage: {@code SnapshotBenchmark [--repeats N] [fixture args...]} (default {@code nested 16 16}, 20
 * repeats). Run through {@code scripts/bench-snapshot.sh}. When the reference cannot dump the fixture
 * (gdb crashes, or the dump does not finish) the comparison is repeated on fixtures where it works.
 */
public final class SnapshotBenchmark {
    private static final List<FixtureRun> FALLBACKS = List.of(FixtureRun.of(Fixture.PARALLEL, "16"),
            FixtureRun.of(Fixture.NESTED, "2", "2"));

    private SnapshotBenchmark() {}

    public static void main(String[] args) {
        long jvmBootMillis = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
        int repeats = 20;
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        if (rest.size() >= 2 && rest.getFirst().equals("--repeats")) {
            repeats = Integer.parseInt(rest.get(1));
            rest = rest.subList(2, rest.size());
        }
        FixtureRun run = rest.isEmpty() ? FixtureRun.of(Fixture.NESTED, "16", "16")
                : FixtureRun.of(Fixture.valueOf(rest.getFirst().toUpperCase(Locale.ROOT)),
                        rest.subList(1, rest.size()).toArray(String[]::new));

        // The first snapshot in this JVM, core open included: measured before anything else warms up.
        StoppedFixture fixture = Fixtures.core(run);
        Measurement cold = jompdCold(fixture.core());

        Result primary = benchmark(fixture, repeats, cold, jvmBootMillis);
        System.out.println(primary.table());
        if (!primary.referenceWorked()) {
            System.out.println("The reference could not dump " + run.label() + " (" + primary.referenceProblem()
                    + "): comparing on fixtures where it works.\n");
            for (FixtureRun fallback : FALLBACKS) {
                StoppedFixture other = Fixtures.core(fallback);
                // Not the first snapshot in this JVM any more: its "cold" row is a first look at that core only.
                Result result = benchmark(other, repeats, jompdCold(other.core()), -1);
                System.out.println(result.table());
            }
        }
    }

    /** Everything measured on one fixture. */
    static Result benchmark(StoppedFixture fixture, int repeats, Measurement cold, long jvmBootMillis) {
        Path core = fixture.core();
        List<Measurement> sameCore = new ArrayList<>();
        List<Measurement> reopened = new ArrayList<>();
        int threads;
        try (CoreFileAddressSpace opened = CoreFileAddressSpace.open(core)) {
            threads = Ompd.threads(Ompd.processInitialize(opened)).size();
            for (int i = 0; i < repeats; i++) {
                // A fresh AddressSpaceHandle (new layout, empty cache) on the already opened core.
                sameCore.add(measure(() -> new CountingAddressSpace(opened), false));
            }
        }
        for (int i = 0; i < repeats; i++) {
            reopened.add(measure(() -> new CountingAddressSpace(CoreFileAddressSpace.open(core)), true));
        }

        Path directory = core.resolveSibling("reference-bench");
        long start = System.nanoTime();
        Reference reference = Reference.dump(fixture, directory);
        double gdbSeconds = (System.nanoTime() - start) / 1e9;

        // jompd answering exactly the queries the reference answered, fresh handle each time.
        List<Record> queries = reference.records().stream().filter(r -> !r.crashed()).toList();
        List<Measurement> sameQueries = new ArrayList<>();
        try (CoreFileAddressSpace opened = CoreFileAddressSpace.open(core)) {
            for (int i = 0; i < repeats; i++) {
                CountingAddressSpace counting = new CountingAddressSpace(opened);
                long t0 = System.nanoTime();
                AddressSpaceHandle process = Ompd.processInitialize(counting);
                Jompd jompd = Jompd.of(process);
                for (Record query : queries) {
                    jompd.answer(query);
                }
                long t1 = System.nanoTime();
                sameQueries.add(new Measurement((t1 - t0) / 1e9, counting.reads, counting.bytes,
                        process.memory().statistics()));
            }
        }
        return new Result(fixture, threads, repeats, cold, jvmBootMillis, median(sameCore), median(reopened),
                median(sameQueries), queries.size(), reference, gdbSeconds);
    }

    static Measurement jompdCold(Path core) {
        long t0 = System.nanoTime();
        try (CountingAddressSpace counting = new CountingAddressSpace(CoreFileAddressSpace.open(core))) {
            long opened = System.nanoTime();
            AddressSpaceHandle process = Ompd.processInitialize(counting);
            long initialised = System.nanoTime();
            ProcessSnapshot snapshot = ProcessSnapshot.take(process);
            long t1 = System.nanoTime();
            if (snapshot.threads().isEmpty()) {
                throw new IllegalStateException("the snapshot found no OpenMP thread in " + core);
            }
            System.out.printf(Locale.ROOT, "cold snapshot of %s: open core %.1f ms, ompd_process_initialize %.1f ms, "
                    + "ProcessSnapshot.take %.1f ms%n", core, (opened - t0) / 1e6, (initialised - opened) / 1e6,
                    (t1 - initialised) / 1e6);
            return new Measurement((t1 - t0) / 1e9, counting.reads, counting.bytes, process.memory().statistics());
        }
    }

    /** One snapshot with a fresh AddressSpaceHandle on {@code target}; closes it when {@code close}. */
    static Measurement measure(Supplier<CountingAddressSpace> target, boolean close) {
        long t0 = System.nanoTime();
        CountingAddressSpace counting = target.get();
        try {
            AddressSpaceHandle process = Ompd.processInitialize(counting);
            ProcessSnapshot snapshot = ProcessSnapshot.take(process);
            long t1 = System.nanoTime();
            if (!snapshot.problems().isEmpty()) {
                throw new IllegalStateException("snapshot problems: " + snapshot.problems());
            }
            return new Measurement((t1 - t0) / 1e9, counting.reads, counting.bytes, process.memory().statistics());
        } finally {
            if (close) {
                counting.close();
            }
        }
    }

    static Measurement median(List<Measurement> measurements) {
        List<Measurement> sorted = measurements.stream()
                .sorted((a, b) -> Double.compare(a.seconds(), b.seconds())).toList();
        return sorted.get(sorted.size() / 2);
    }

    /** A timing with the reads that reached the backend. */
    record Measurement(double seconds, long backendReads, long backendBytes, TargetMemory.ReadStatistics memory) {}

    record Result(StoppedFixture fixture, int threads, int repeats, Measurement cold, long jvmBootMillis,
                  Measurement warm, Measurement reopened, Measurement sameQueries, int queryCount,
                  Reference reference, double gdbSeconds) {

        boolean referenceWorked() {
            return reference.complete() && reference.crashes() == 0 && reference.meta("init_failed").isEmpty()
                    && reference.meta("script_error").isEmpty();
        }

        String referenceProblem() {
            if (!reference.complete()) {
                return "the dump did not finish after " + reference.gdbRuns() + " gdb runs";
            }
            if (reference.crashes() > 0) {
                return "gdb crashed " + reference.crashes() + " times inside libompd";
            }
            return reference.meta("init_failed").or(() -> reference.meta("script_error")).orElse("?");
        }

        String table() {
            double refQueries = reference.metaSeconds("query_seconds");
            double refDump = reference.metaSeconds("dump_seconds");
            double refInit = reference.metaSeconds("init_seconds");
            long refReads = reference.metaLong("read_calls");
            long refBytes = reference.metaLong("read_bytes");
            StringBuilder text = new StringBuilder();
            text.append(String.format(Locale.ROOT, "== Snapshot benchmark: %s, %d OpenMP threads, %d repeats (medians)%n",
                    fixture.run().label(), threads, repeats));
            String row = "%-52s %12s %10s %12s%n";
            text.append(String.format(Locale.ROOT, row, "", "time", "reads", "bytes"));
            text.append(String.format(Locale.ROOT, row, jvmBootMillis >= 0
                            ? "jompd ProcessSnapshot.take, cold (open core + init)"
                            : "jompd first snapshot of this core (JVM warm)",
                    ms(cold.seconds()), cold.backendReads(), cold.backendBytes()));
            if (jvmBootMillis >= 0) {
                text.append(String.format(Locale.ROOT, row, "  plus JVM start-up (JVM start to main)",
                        jvmBootMillis + " ms", "", ""));
            }
            text.append(String.format(Locale.ROOT, row, "jompd ProcessSnapshot.take, warm, same opened core",
                    ms(warm.seconds()), warm.backendReads(), warm.backendBytes()));
            text.append(String.format(Locale.ROOT, row, "jompd ProcessSnapshot.take, warm, core reopened",
                    ms(reopened.seconds()), reopened.backendReads(), reopened.backendBytes()));
            text.append(String.format(Locale.ROOT, row, "jompd answering the reference's " + queryCount + " queries",
                    ms(sameQueries.seconds()), sameQueries.backendReads(), sameQueries.backendBytes()));
            text.append(String.format(Locale.ROOT, row, "  memory().statistics() of the warm snapshot",
                    "", warm.memory().reads(), warm.memory().bytes()));
            text.append(String.format(Locale.ROOT, row, "reference: whole gdb run" + (reference.gdbRuns() > 1
                    ? " (" + reference.gdbRuns() + " runs)" : ""), ms(gdbSeconds), "", ""));
            if (reference.gdbRuns() > 1) {
                text.append("  (gdb crashed and the dump resumed: the numbers inside gdb are the last run's only)\n");
            }
            text.append(String.format(Locale.ROOT, row, "reference: ompd init inside gdb", ms(refInit), "", ""));
            text.append(String.format(Locale.ROOT, row, "reference: dump inside gdb (queries + Python)", ms(refDump),
                    refReads, refBytes));
            text.append(String.format(Locale.ROOT, row, "reference: time inside libompd calls", ms(refQueries), "",
                    ""));
            text.append(String.format(Locale.ROOT, "reference callbacks (the plugin's Python): %d read_memory (%d bytes, "
                            + "%s), %d read_string, %d symbol lookups (%s), %d thread-context lookups (%s); %d records, "
                            + "%d crashes%n",
                    refReads, refBytes, ms(reference.metaSeconds("read_seconds")),
                    reference.metaLong("read_string_calls"), reference.metaLong("sym_addr_calls"),
                    ms(reference.metaSeconds("sym_addr_seconds")), reference.metaLong("thread_context_calls"),
                    ms(reference.metaSeconds("thread_context_seconds")), reference.records().size(),
                    reference.crashes()));
            text.append("Ratios (reference / jompd):\n");
            text.append(String.format(Locale.ROOT, "  time: reference queries inside gdb / jompd warm snapshot      %8.1fx%n",
                    refQueries / warm.seconds()));
            text.append(String.format(Locale.ROOT, "  time: reference queries / jompd answering the same queries   %8.1fx%n",
                    refQueries / sameQueries.seconds()));
            text.append(String.format(Locale.ROOT, "  time: whole gdb run / jompd cold snapshot (core open incl.)  %8.1fx%n",
                    gdbSeconds / cold.seconds()));
            text.append(String.format(Locale.ROOT, "  reads: reference read_memory calls / jompd backend reads     %8.1fx (bytes %.2fx)%n",
                    (double) refReads / warm.backendReads(), (double) refBytes / warm.backendBytes()));
            text.append(String.format(Locale.ROOT, "  reads: same queries, reference / jompd                       %8.1fx (bytes %.2fx)%n",
                    (double) refReads / sameQueries.backendReads(), (double) refBytes / sameQueries.backendBytes()));
            if (referenceWorked()) {
                boolean warmFaster = refQueries / warm.seconds() >= 5;
                boolean coldFaster = gdbSeconds / cold.seconds() >= 5;
                boolean fewerReads = warm.backendReads() <= refReads && sameQueries.backendReads() <= refReads;
                text.append(String.format(Locale.ROOT, "Target (jompd >= 5x faster, no more reads than the reference): "
                        + "warm queries %s, cold end to end %s, reads %s%n", warmFaster ? "met" : "NOT met",
                        coldFaster ? "met" : "NOT met", fewerReads ? "met" : "NOT met"));
            } else {
                text.append("The reference did not complete: ").append(referenceProblem()).append('\n');
            }
            return text.toString();
        }

        private static String ms(double seconds) {
            return Double.isNaN(seconds) ? "?" : String.format(Locale.ROOT, "%.2f ms", seconds * 1000);
        }
    }

    /** Counts the reads that reach the backend (the core file). */
    static final class CountingAddressSpace implements AddressSpace {
        private final AddressSpace delegate;
        long reads;
        long bytes;

        CountingAddressSpace(AddressSpace delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public TargetArchitecture architecture() {
            return delegate.architecture();
        }

        @Override
        public void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
            reads++;
            bytes += length;
            delegate.read(address, buffer, offset, length);
        }

        @Override
        public Optional<TargetSymbol> lookupSymbol(String name) {
            return delegate.lookupSymbol(name);
        }

        @Override
        public Optional<TargetSymbol> lookupSymbol(String name, String moduleNameFragment) {
            return delegate.lookupSymbol(name, moduleNameFragment);
        }

        @Override
        public List<LoadedModule> modules() {
            return delegate.modules();
        }

        @Override
        public List<TargetThread> threads() {
            return delegate.threads();
        }

        @Override
        public void resumed() {
            delegate.resumed();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
