package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;
import dev.jompd.core.ompd.RuntimeLocks.Holder;
import dev.jompd.core.ompd.RuntimeLocks.Lock;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockLayout}'s data against each runtime's DWARF (gdb evaluating offsetof, sizeof and enum values
 * in our builds of libomp), and {@link RuntimeLocks} against what the lock_deadlock and waits programs
 * recorded about themselves and what gdb reads from the same core.
 */
class LockLayoutIT {

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void theLockLayoutIsWhatTheRuntimesDwarfSays(int version) {
        LockLayout layout = LockLayout.shipped();
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").onRuntime(version));
        List<String> expressions = new ArrayList<>();
        layout.indirectTags().keySet().forEach(kind -> expressions.add("(long)locktag_" + kind));
        layout.directTags().keySet().forEach(kind -> expressions.add("(long)lockseq_" + kind));
        expressions.add("(long)sizeof(kmp_indirect_lock_t)");
        expressions.add("(long)&((kmp_base_info_t*)0)->th_next_waiting - (long)&((kmp_base_info_t*)0)->"
                + layout.nextWaitingAnchor());
        expressions.add("(long)sizeof(((kmp_base_info_t*)0)->th_next_waiting)");
        expressions.add("(long)sizeof(__kmp_i_lock_table)");
        Map<String, GdbProbe.Value> truth = LayoutMembersAgainstDwarf.check(fixture, layout.members(), expressions);

        layout.indirectTags().forEach((kind, tag) ->
                assertThat(truth.get("(long)locktag_" + kind).asLong()).as("locktag_" + kind).isEqualTo((long) tag));
        // KMP_GET_D_TAG(seq) = seq << 1 | 1
        layout.directTags().forEach((kind, tag) ->
                assertThat(truth.get("(long)lockseq_" + kind).asLong() << 1 | 1).as("direct tag " + kind).isEqualTo((long) tag));
        assertThat(truth.get("(long)sizeof(kmp_indirect_lock_t)").asLong()).isEqualTo(layout.indirectLockSize());
        Member next = layout.nextWaiting();
        assertThat(truth.get(expressions.get(expressions.size() - 3)).asLong()).as("th_next_waiting after "
                + layout.nextWaitingAnchor()).isEqualTo(next.offset());
        assertThat(truth.get("(long)sizeof(((kmp_base_info_t*)0)->th_next_waiting)").asLong()).isEqualTo(next.size());
        assertThat(truth.get("(long)sizeof(__kmp_i_lock_table)").asLong()).isEqualTo(24);
    }

    private static long gtidOf(AddressSpaceHandle space, Facts.ThreadFacts thread) {
        return ProcessSnapshot.take(space).threads().stream()
                .filter(t -> t.lwp().equals(OptionalLong.of(thread.lwp()))).findFirst().orElseThrow().gtid();
    }

    private static Facts.ThreadFacts waiterFor(Facts facts, String lock) {
        return facts.threads().stream().filter(t -> t.find("waits_for").orElse("").equals(lock)).findFirst().orElseThrow();
    }

    @Test
    void nestLocksNameTheirOwnerDepthAndWaiter() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest"));
        Facts facts = fixture.facts();
        AddressSpaceHandle space = Targets.process(fixture);
        for (String name : List.of("A", "B")) {
            long address = Long.decode(facts.get("hang.lock." + name + ".address"));
            Lock lock = RuntimeLocks.userLock(space, address);
            long holder = gtidOf(space, facts.thread((int) facts.number("hang.lock." + name + ".holder")));
            assertThat(lock.kind()).isEqualTo(LockKind.NESTED_QUEUING);
            assertThat(lock.holder()).as(lock.evidence())
                    .isEqualTo(new Holder.Owner(holder, OptionalLong.of(facts.number("hang.lock." + name + ".depth"))));
            assertThat(lock.waiters()).containsExactly(gtidOf(space, waiterFor(facts, name)));
            assertThat(lock.waitersComplete()).isTrue();
            // gdb, reading the same core through libomp's DWARF, finds the same object through the table
            long index = fixture.gdb().evaluate("(long)(*(unsigned*)" + address + " >> 1)").asLong();
            assertThat(lock.index()).hasValue(index);
            long object = fixture.gdb().evaluate("(long)__kmp_i_lock_table.table[" + index / 1024 + "]["
                    + index % 1024 + "].lock").asLong();
            assertThat(lock.object()).isEqualTo(object);
            assertThat(RuntimeLocks.read(space).byObject(object)).contains(lock);
        }
    }

    @Test
    void simpleLocksSayTheirOwnerIsNotRecordedUnlessConsistencyChecksAreOn() {
        StoppedFixture plain = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "lock"));
        AddressSpaceHandle space = Targets.process(plain);
        Lock a = RuntimeLocks.userLock(space, Long.decode(plain.facts().get("hang.lock.A.address")));
        assertThat(a.kind()).isEqualTo(LockKind.QUEUING);
        assertThat(a.holder()).isInstanceOf(Holder.Unknown.class);
        assertThat(((Holder.Unknown) a.holder()).why()).contains("KMP_CONSISTENCY_CHECK");
        assertThat(a.waiters()).containsExactly(gtidOf(space, waiterFor(plain.facts(), "A")));

        StoppedFixture checked = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "lock")
                .withEnvironment("KMP_CONSISTENCY_CHECK", "all"));
        AddressSpaceHandle checkedSpace = Targets.process(checked);
        for (String name : List.of("A", "B", "C")) {
            Lock lock = RuntimeLocks.userLock(checkedSpace, Long.decode(checked.facts().get("hang.lock." + name + ".address")));
            long holder = gtidOf(checkedSpace, checked.facts().thread((int) checked.facts().number("hang.lock." + name + ".holder")));
            assertThat(lock.holder()).as(lock.evidence()).isEqualTo(new Holder.Owner(holder, OptionalLong.empty()));
        }
    }
}
