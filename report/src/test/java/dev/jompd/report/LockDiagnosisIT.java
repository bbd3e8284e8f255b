package dev.jompd.report;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.core.unwind.DebugInfoCache;
import dev.jompd.core.unwind.Unwinder;
import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock part of the diagnosis on the hang fixtures (lock_deadlock, critical_barrier) and the waits
 * program, against what each program recorded about itself (holders, waiters, wait lines) and the lock
 * objects gdb finds through libomp's DWARF from the user's lock addresses.
 */
class LockDiagnosisIT {

    private static String name(Facts.ThreadFacts thread) {
        return "omp " + thread.threadNum() + "/" + thread.teamSize() + " (LWP " + thread.lwp() + ")";
    }

    /** The lock object libomp made for the omp_lock_t at {@code address}, as gdb reads it through the DWARF. */
    private static String lockObject(StoppedFixture fixture, String address) {
        long index = fixture.gdb().evaluate("(long)(*(unsigned*)" + address + " >> 1)").asLong();
        return "0x" + Long.toHexString(fixture.gdb().evaluate("(long)__kmp_i_lock_table.table[" + index / 1024 + "]["
                + index % 1024 + "].lock").asLong());
    }

    private static void namesTheCycle(StoppedFixture fixture, List<String> locks) {
        namesTheCycle(fixture.facts(), DiagnosisIT.diagnose(fixture), lock -> Optional.of(lockWords(fixture, lock)), locks);
    }

    /** How the diagnosis names lock A, B or C: the program's variable, then the runtime's lock object. */
    private static String lockWords(StoppedFixture fixture, String lock) {
        return programName(fixture, lock) + " (" + (fixture.facts().get("hang.lock_kind").contains("nest")
                ? "nested " : "") + "queuing lock #" + lockIndex(fixture, lock) + " at "
                + lockObject(fixture, fixture.facts().get("hang.lock." + lock + ".address")) + ")";
    }

    /**
     * The program's own name of lock A, B or C: the element of lock_deadlock's static array that gdb finds at
     * the address the program recorded (through the DWARF of main's static {@code locks}/{@code nest_locks}).
     */
    private static String programName(StoppedFixture fixture, String lock) {
        String array = fixture.facts().get("hang.lock_kind").contains("nest") ? "nest_locks" : "locks";
        long address = Long.decode(fixture.facts().get("hang.lock." + lock + ".address"));
        for (int k = 0; k < 3; k++) {
            if (fixture.gdb().evaluate("(long)&main::" + array + "[" + k + "]").asLong() == address) {
                return "lock `" + array + "[" + k + "]`";
            }
        }
        throw new AssertionError("gdb finds no element of main::" + array + " at " + Long.toHexString(address));
    }

    private static long lockIndex(StoppedFixture fixture, String lock) {
        return fixture.gdb().evaluate("(long)(*(unsigned*)" + fixture.facts().get("hang.lock." + lock + ".address")
                + " >> 1)").asLong();
    }

    /** The deadlock and each lock's holder; {@code object} gives the lock object as gdb reads it, where gdb can. */
    private static void namesTheCycle(Facts facts, List<Finding> findings, Function<String, Optional<String>> object,
                                      List<String> locks) {
        String text = TextReport.diagnosis(findings);
        List<Finding> deadlocks = findings.stream().filter(f -> f.kind() == Diagnosis.FindingKind.DEADLOCK).toList();
        assertThat(deadlocks).as(text).hasSize(1);
        Finding deadlock = deadlocks.getFirst();
        assertThat(deadlock.summary()).as(text).startsWith("deadlock: omp").contains(", which waits for");
        // the cycle is exactly the locks' holders, each once
        assertThat(deadlock.threads().stream().map(t -> t.thread().lwp().orElse(-1)).toList()).as(text)
                .containsExactlyInAnyOrderElementsOf(locks.stream()
                        .map(lock -> facts.thread((int) facts.number("hang.lock." + lock + ".holder")).lwp()).toList());
        for (String lock : locks) {
            Facts.ThreadFacts holder = facts.thread((int) facts.number("hang.lock." + lock + ".holder"));
            String at = object.apply(lock).map(o -> o + " ").orElse("");
            assertThat(deadlock.summary()).as(text).contains(at + "held by " + name(holder));
            Facts.ThreadFacts waiter = facts.threads().stream()
                    .filter(t -> t.find("waits_for").orElse("").equals(lock)).findFirst().orElseThrow();
            assertThat(deadlock.evidence()).as(text).anyMatch(e -> e.startsWith(name(waiter))
                    && java.util.regex.Pattern.compile("\\block_deadlock\\.c:" + waiter.get("wait_line") + "(?![0-9])").matcher(e).find());
            // the lock's own finding names its holder and where the holder is
            assertThat(text).contains(object.apply(lock).map(o -> o + "; ").orElse("; ") + "held by " + name(holder));
        }
        assertThat(facts.get("hang.kind")).isEqualTo("lock-order-deadlock");
    }

    @Test
    void liveNestLockDeadlockThroughPtrace() {
        try (LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest"));
             LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(live.pid());
             Symbolizer symbols = new Symbolizer(space); CodeNames names = new CodeNames(symbols);
             DebugInfoCache debugInfo = new DebugInfoCache(); Unwinder unwinder = new Unwinder(space, debugInfo)) {
            AddressSpaceHandle process = Ompd.processInitialize(space);
            OpenMpPicture picture = OpenMpPicture.take(process, new TargetDescription("pid",
                    Long.toString(live.pid()), space.name(), process.layout().runtimeModule()), names);
            ParallelStacks stacks = ParallelStacks.of(picture, space, unwinder);
            // the lock objects' addresses are checked against gdb on the cores; here the holders and waiters
            namesTheCycle(live.facts(), Diagnosis.of(picture, Optional.of(stacks)), lock -> Optional.empty(),
                    List.of("A", "B"));
        }
    }

    @ParameterizedTest(name = "OMP_DEBUG={0}")
    @ValueSource(strings = {"enabled", "disabled"})
    void aNestLockCycleIsADeadlockFromTheLocksMemory(String ompDebug) {
        namesTheCycle(Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest").withEnvironment("OMP_DEBUG", ompDebug)),
                List.of("A", "B"));
    }

    @ParameterizedTest(name = "OMP_DEBUG={0}")
    @ValueSource(strings = {"enabled", "disabled"})
    void aSimpleLockCycleIsADeadlockWhenLibompRecordsOwners(String ompDebug) {
        namesTheCycle(Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "lock").withEnvironment("OMP_DEBUG", ompDebug)
                .withEnvironment("KMP_CONSISTENCY_CHECK", "all")), List.of("A", "B", "C"));
    }

    @Test
    void simpleLocksWithoutOwnersNameTheirWaitersAndSayWhyTheHolderIsNotKnown() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "lock"));
        Facts facts = fixture.facts();
        String text = TextReport.diagnosis(DiagnosisIT.diagnose(fixture));
        assertThat(text).doesNotContain("deadlock:");
        for (String lock : List.of("A", "B", "C")) {
            Facts.ThreadFacts waiter = facts.threads().stream()
                    .filter(t -> t.find("waits_for").orElse("").equals(lock)).findFirst().orElseThrow();
            assertThat(text).contains("1 thread waits for " + programName(fixture, lock) + " (queuing lock #")
                    .contains(lockObject(fixture, facts.get("hang.lock." + lock + ".address"))
                            + "); its holder is not known: it is held, but libomp does not record its owner for this lock kind")
                    .contains("KMP_CONSISTENCY_CHECK")
                    .contains(name(waiter) + ": in ");
        }
    }

    @ParameterizedTest(name = "OMP_DEBUG={0}")
    @ValueSource(strings = {"enabled", "disabled"})
    void theCriticalSectionNamesItsWaitersAndWhereItIs(String ompDebug) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.CRITICAL_BARRIER).withEnvironment("OMP_DEBUG", ompDebug));
        Facts facts = fixture.facts();
        List<Finding> findings = DiagnosisIT.diagnose(fixture);
        String text = TextReport.diagnosis(findings);
        long name = fixture.gdb().evaluate("(long)&'" + facts.get("hang.lock.gate.symbol") + "'").asLong();
        long object = fixture.gdb().evaluate("(long)(*(kmp_indirect_lock_t**)" + name + ")->lock").asLong();
        Finding critical = findings.stream().filter(f -> f.summary().startsWith("2 threads wait to enter critical(gate) at "
                + "critical_barrier.c:" + facts.get("hang.lock.gate.line"))).findFirst()
                .orElseThrow(() -> new AssertionError(text));
        assertThat(critical.summary()).as(text).contains("0x" + Long.toHexString(object));
        for (Facts.ThreadFacts waiter : facts.threads().stream().filter(t -> t.role().equals("waiter")).toList()) {
            assertThat(critical.evidence()).as(text).anyMatch(e -> e.startsWith("omp " + waiter.ancestors().getFirst()
                    + " · " + waiter.threadNum() + "/3 (LWP " + waiter.lwp() + ")")
                    && java.util.regex.Pattern.compile("\\bcritical_barrier\\.c:" + waiter.get("wait_line") + "(?![0-9])").matcher(e).find());
        }
        // libomp keeps no owner for the default (queuing) critical section: said, not guessed
        assertThat(critical.summary()).as(text).contains("its holder is not known").contains("KMP_CONSISTENCY_CHECK");
    }

    /**
     * A named critical section and the unnamed one, each said as the program wrote it — {@code critical(big)},
     * {@code the unnamed critical} — with the construct's line, the lock object gdb finds behind the name's
     * variable the compiler passes to libomp, and why its holder is not known in the user's words (libomp's
     * lock words are the evidence). Before: "a critical section at …; … held (head_id 11), but …".
     */
    @Test
    void criticalSectionsAreNamedAsTheProgramWroteThem() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.CRITICAL_NAMES));
        Facts facts = fixture.facts();
        List<Finding> findings = DiagnosisIT.diagnose(fixture);
        String text = TextReport.diagnosis(findings);
        for (String critical : List.of("big", "unnamed")) {
            String key = "hang.critical." + critical + ".";
            long name = fixture.gdb().evaluate("(long)&'" + facts.get(key + "symbol") + "'").asLong();
            long entry = fixture.gdb().evaluate("(long)*(kmp_indirect_lock_t**)" + name).asLong();
            long object = fixture.gdb().evaluate("(long)((kmp_indirect_lock_t*)" + entry + ")->lock").asLong();
            long index = fixture.gdb().evaluate("(long)(((kmp_indirect_lock_t*)" + entry
                    + ") - __kmp_i_lock_table.table[0])").asLong();
            int waiters = Integer.parseInt(facts.get(key + "waiters"));
            String said = facts.get(key + "name").startsWith("critical(") ? facts.get(key + "name") : "the " + facts.get(key + "name");
            String expected = waiters + (waiters == 1 ? " thread waits" : " threads wait") + " to enter " + said
                    + " at critical_names.c:" + facts.get(key + "line") + " (queuing lock #" + index + " at 0x"
                    + Long.toHexString(object) + "); its holder is not known: "
                    + dev.jompd.core.ompd.RuntimeLocks.NO_OWNER_RECORDED.formatted("queuing");
            Finding finding = findings.stream().filter(f -> f.summary().equals(expected)).findFirst()
                    .orElseThrow(() -> new AssertionError("no finding `" + expected + "` in\n" + text));
            List<Facts.ThreadFacts> waiting = facts.threads().stream()
                    .filter(t -> t.find("waits_for").orElse("").equals(critical)).toList();
            assertThat(waiting).hasSize(waiters);
            for (Facts.ThreadFacts waiter : waiting) {
                assertThat(finding.evidence()).as(text).anyMatch(e -> e.startsWith(name(waiter) + ": in ")
                        // (the frame's own line, after the region's construct when it is a region's code)
                        && java.util.regex.Pattern.compile("[( ]critical_names\\.c:" + waiter.get("wait_line") + "\\)").matcher(e).find());
            }
        }
        assertThat(text).doesNotContain("head_id " + "0)").doesNotContain("held (head_id");
    }

    /**
     * Under the recorder a lock-order deadlock is seen twice, in libomp's lock memory and in the recorder's
     * mutex events: it is one deadlock, and the diagnosis names it once.
     */
    @Test
    void withTheRecorderALockCycleIsOneDeadlockFinding() {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest")));
        List<Finding> findings = new java.util.ArrayList<>();
        int recorded = ParallelStacksIT.withStacks(fixture, stacks -> {
            findings.addAll(Diagnosis.of(stacks.picture(), Optional.of(stacks)));
            return stacks.picture().history().orElseThrow().deadlocks().size();
        });
        String text = TextReport.diagnosis(findings);
        // both searches found it: the recorder's mutex events and the locks' memory
        assertThat(recorded).as(text).isEqualTo(1);
        assertThat(findings.stream().filter(f -> f.kind() == Diagnosis.FindingKind.DEADLOCK)).as(text).hasSize(1);
        namesTheCycle(fixture.facts(), findings, lock -> Optional.of(lockWords(fixture, lock)), List.of("A", "B"));
    }

    @Test
    void withTheRecorderTheCriticalBarrierHangIsADeadlock() {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.CRITICAL_BARRIER)));
        Facts facts = fixture.facts();
        List<Finding> findings = DiagnosisIT.diagnose(fixture);
        String text = TextReport.diagnosis(findings);
        Facts.ThreadFacts holder = facts.threads().stream().filter(t -> t.role().equals("holder")).findFirst().orElseThrow();
        // the recorder's holder by its OpenMP thread (team path: the outer thread numbers the program recorded)
        // and the line of the critical construct it took
        List<Integer> ancestors = holder.ancestors();
        String path = String.join(".", ancestors.subList(0, ancestors.size() - 1).stream().map(String::valueOf).toList());
        Finding critical = findings.stream().filter(f -> f.kind() == Diagnosis.FindingKind.LOCK).findFirst().orElseThrow();
        int start = critical.summary().indexOf("; held by ");
        assertThat(start).as(text).isNotNegative();
        assertThat(critical.summary().substring(start + 2)).as(text).startsWith("held by omp " + path + " · " + holder.threadNum()
                + "/" + holder.teamSize() + " (LWP " + holder.lwp() + "), which took it at critical_barrier.c:"
                + facts.get("hang.lock.gate.line") + " (jompd-recorder); ");
        // the cycle: the holder waits at the barrier for the threads that wait to enter the critical it holds; one
        // finding for the set of lock and barrier, through the first waiter of the team (the other one's cycle is the
        // same news): exactly those two threads, the summary whole (the lock's index and object as gdb reads them)
        List<Finding> deadlocks = findings.stream().filter(f -> f.kind() == Diagnosis.FindingKind.DEADLOCK).toList();
        assertThat(deadlocks).as(text).hasSize(1);
        Facts.ThreadFacts firstWaiter = facts.threads().stream().filter(t -> t.role().equals("waiter"))
                .min(java.util.Comparator.comparingInt(Facts.ThreadFacts::threadNum)).orElseThrow();
        assertThat(deadlocks.getFirst().threads().stream().map(t -> t.thread().lwp().getAsLong() + " " + t.role()).toList())
                .as(text).containsExactly(holder.lwp() + " " + Diagnosis.Role.IN_CYCLE, firstWaiter.lwp() + " " + Diagnosis.Role.IN_CYCLE);
        String ilk = "((kmp_indirect_lock_t *)*(long *)&'" + facts.get("hang.lock.gate.symbol") + "')";
        java.util.function.Function<Facts.ThreadFacts, String> named = t -> "omp " + path + " · " + t.threadNum() + "/"
                + t.teamSize() + " (LWP " + t.lwp() + ")";
        assertThat(deadlocks.getFirst().summary()).as(text).matches(java.util.regex.Pattern.quote("deadlock: " + named.apply(holder)
                + " waits at a barrier of team ") + "r\\d+" + java.util.regex.Pattern.quote(" that " + named.apply(firstWaiter)
                + " has not reached, which waits for critical(gate) at critical_barrier.c:" + facts.get("hang.lock.gate.line")
                + " (queuing lock #" + fixture.gdb().evaluate("(long)(" + ilk + " - __kmp_i_lock_table.table[0])").asLong()
                + " at 0x" + Long.toHexString(fixture.gdb().evaluate("(long)" + ilk + "->lock").asLong()) + ") held by "
                + named.apply(holder)));
    }

    @Test
    void theWaitsProgramsLockAndCriticalNameThreadZeroAsHolderWhenLibompRecordsOwners() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.WAITS).withEnvironment("KMP_CONSISTENCY_CHECK", "all"));
        Facts facts = fixture.facts();
        String text = TextReport.diagnosis(DiagnosisIT.diagnose(fixture));
        Facts.ThreadFacts marker = facts.thread(0);
        List<Finding> findings = DiagnosisIT.diagnose(fixture);
        assertThat(text).isEqualTo(TextReport.diagnosis(findings));
        java.util.Map<Long, List<GdbProbe.Frame>> stacks = fixture.gdb().backtraces();
        // two lock findings, no deadlock: waits.c's lock is its static L (the program's name; gdb: the marker thread
        // holds &L), and its critical section jompd_crit, made at the program's first critical(jompd_crit); each has its
        // one waiter (the facts' role) at the line gdb's backtrace of that thread has in waits.c, and the marker thread
        // as holder, where gdb's backtrace has it
        List<Finding> locks = findings.stream().filter(f -> f.kind() == Diagnosis.FindingKind.LOCK).toList();
        assertThat(findings.stream().map(Finding::kind).filter(k -> k == Diagnosis.FindingKind.DEADLOCK)).as(text).isEmpty();
        assertThat(locks).as(text).hasSize(2);
        GdbProbe.Frame markerTop = stacks.get(marker.lwp()).getFirst();
        String held = "; held by " + name(marker) + ", in " + markerTop.function() + " (" + markerTop.frameSource() + ")";
        String lLock = fixture.facts().get("lock_address");
        String ilk = "((kmp_indirect_lock_t *)*(long *)&'.gomp_critical_user_jompd_crit.var')";
        java.util.Map<String, String> summaries = java.util.Map.of(
                "lock", "1 thread waits for lock `L` (queuing lock #" + fixture.gdb().evaluate("(long)(*(unsigned*)" + lLock
                        + " >> 1)").asLong() + " at " + lockObject(fixture, lLock) + ")" + held,
                "critical", "1 thread waits to enter critical(jompd_crit) at waits.c:" + dev.jompd.testkit.SourceLines.lineOf(
                        Fixture.WAITS, "waits.c", "#pragma omp critical(jompd_crit)") + " (queuing lock #"
                        + fixture.gdb().evaluate("(long)(" + ilk + " - __kmp_i_lock_table.table[0])").asLong() + " at 0x"
                        + Long.toHexString(fixture.gdb().evaluate("(long)" + ilk + "->lock").asLong()) + ")" + held);
        for (String role : List.of("lock", "critical")) {
            List<Facts.ThreadFacts> waiters = facts.threads().stream().filter(t -> t.role().equals(role)).toList();
            assertThat(waiters).as(role).hasSize(1);
            Facts.ThreadFacts waiter = waiters.getFirst();
            GdbProbe.Frame at = stacks.get(waiter.lwp()).stream().filter(f -> f.frameFile().endsWith("/waits.c")).findFirst()
                    .orElseThrow();
            List<Finding> about = locks.stream().filter(f -> f.summary().equals(summaries.get(role))).toList();
            assertThat(about).as("%s\n%s", summaries.get(role), text).hasSize(1);
            Finding finding = about.getFirst();
            assertThat(finding.place()).as(text).contains(at.function() + " (" + at.frameSource() + ")");
            assertThat(finding.threads().stream().map(t -> t.thread().lwp().getAsLong() + " " + t.role()
                    + (t.role() == Diagnosis.Role.WAITS_FOR_LOCK ? " " + t.source().orElse("?") : "")).toList()).as(text)
                    .containsExactlyInAnyOrder(waiter.lwp() + " WAITS_FOR_LOCK " + at.frameSource(), marker.lwp() + " HOLDS_LOCK");
        }
    }
}
