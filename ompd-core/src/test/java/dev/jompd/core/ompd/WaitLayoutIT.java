package dev.jompd.core.ompd;

import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WaitLayout}'s data against each runtime's DWARF (gdb evaluating offsetof and sizeof in our builds of
 * libomp), and {@link RuntimeWaits} against gdb reading the same core: the barrier straggler's waiters are at an
 * explicit barrier, whose ident gdb reads through {@code __kmp_threads[g]->th.th_ident}.
 */
class WaitLayoutIT {

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void theWaitLayoutIsWhatTheRuntimesDwarfSaysAndReadsTheBarriersIdent(int version) {
        WaitLayout layout = WaitLayout.shipped();
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.BARRIER_STRAGGLER, "3", "1").onRuntime(version));
        Facts facts = fixture.facts();
        AddressSpaceHandle space = Targets.process(fixture);
        List<Long> waiters = new ArrayList<>();
        for (Facts.ThreadFacts thread : facts.threads()) {
            if (thread.role().equals("barrier")) {
                waiters.add(ProcessSnapshot.take(space).threads().stream()
                        .filter(t -> t.lwp().equals(OptionalLong.of(thread.lwp()))).findFirst().orElseThrow().gtid());
            }
        }
        assertThat(waiters).hasSize(2);
        List<String> expressions = new ArrayList<>();
        String before = "(long)&((kmp_base_info_t*)0)->th_current_task - (long)&((kmp_base_info_t*)0)->th_ident";
        expressions.add(before);
        expressions.add("(long)sizeof(((kmp_base_info_t*)0)->th_ident)");
        for (long gtid : waiters) {
            expressions.add("(long)__kmp_threads[" + gtid + "]->th.th_ident");
            expressions.add("(long)__kmp_threads[" + gtid + "]->th.th_ident->flags");
        }
        Map<String, GdbProbe.Value> truth = LayoutMembersAgainstDwarf.check(fixture, layout.members(), expressions);
        assertThat(truth.get(before).asLong()).as("th_ident before th_current_task").isEqualTo(layout.threadIdentBefore());
        assertThat(truth.get("(long)sizeof(((kmp_base_info_t*)0)->th_ident)").asLong()).isEqualTo(layout.threadIdentSize());

        for (long gtid : waiters) {
            RuntimeWaits.Reading reading = RuntimeWaits.threadIdent(space, gtid);
            assertThat(reading).as(reading.toString()).isInstanceOf(RuntimeWaits.Reading.Known.class);
            RuntimeWaits.Ident ident = ((RuntimeWaits.Reading.Known) reading).ident();
            assertThat(ident.address()).isEqualTo(truth.get("(long)__kmp_threads[" + gtid + "]->th.th_ident").asLong());
            assertThat((long) ident.flags()).isEqualTo(truth.get("(long)__kmp_threads[" + gtid + "]->th.th_ident->flags").asLong());
            assertThat(ident.construct()).isEqualTo(RuntimeWaits.IdentConstruct.EXPLICIT_BARRIER);
            assertThat(ident.source()).contains("barrier_straggler.c:" + facts.number("hang.barrier.line"));
        }
    }
}
