package dev.jompd.core.ompd;

import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Corrupt memory gives an error code naming the field and address, never a hang or another exception:
 * real cores seen through an address space that damages chosen reads.
 */
class CorruptedMemoryIT {
    private final StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.SERIALIZED, "3", "3"));

    @Test
    void anUnreadableFieldIsNamedWithItsAddress() {
        DamagingAddressSpace target = new DamagingAddressSpace(Targets.core(fixture));
        AddressSpaceHandle process = Ompd.processInitialize(target);
        ThreadHandle thread = Ompd.threads(process).getFirst();
        long field = thread.address() + process.layout().offset("kmp_base_info_t", "th_current_task");
        target.makeUnreadable(field);
        process.resumed(); // drop what was cached before the damage
        ThreadHandle again = Ompd.threads(process).getFirst();
        assertThatThrownBy(again::currentTask).isInstanceOfSatisfying(OmpdException.class, e -> {
            assertThat(e.rc()).isEqualTo(OmpdRc.DEVICE_READ_ERROR);
            assertThat(e.getMessage()).contains("th_current_task").contains(Long.toHexString(field));
            assertThat(e.address()).hasValue(field);
        });
    }

    @Test
    void aHugeThreadCapacityIsRejected() {
        DamagingAddressSpace target = new DamagingAddressSpace(Targets.core(fixture));
        AddressSpaceHandle process = Ompd.processInitialize(target);
        target.overwrite(process.layout().symbolAddress("__kmp_threads_capacity"), 0x7fff_fff0L, 4);
        assertThatThrownBy(() -> Ompd.threads(process)).isInstanceOfSatisfying(OmpdException.class,
                e -> assertThat(e.rc()).isEqualTo(OmpdRc.ERROR));
    }

    @Test
    void aTeamThatIsItsOwnParentEndsTheWalk() {
        DamagingAddressSpace target = new DamagingAddressSpace(Targets.core(fixture));
        AddressSpaceHandle process = Ompd.processInitialize(target);
        ParallelHandle region = Ompd.threads(process).getFirst().currentParallel();
        long team = region.teamAddress() - process.layout().offset("kmp_team_p", "t");
        target.overwrite(region.teamAddress() + process.layout().offset("kmp_base_team_t", "t_parent"), team, 8);
        process.resumed();
        ProcessSnapshot snapshot = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> ProcessSnapshot.take(process));
        assertThat(snapshot.problems()).anyMatch(p -> p.contains("own parent") || p.contains("loops"));
    }

    /** Random damage to bytes the walk really reads: only recorded problems, no exception, no hang. */
    @Test
    void randomDamageNeverEscapesAsAnythingButRecordedProblems() {
        DamagingAddressSpace target = new DamagingAddressSpace(Targets.core(fixture));
        AddressSpaceHandle process = Ompd.processInitialize(target);
        ProcessSnapshot clean = ProcessSnapshot.take(process);
        assertThat(clean.problems()).isEmpty();
        List<Long> read = new ArrayList<>(target.readAddresses);
        Random random = new Random(20261122);
        long[] nasty = {0, 1, -1, 0x7fff_ffff, 0x8000_0000L, Long.MIN_VALUE, 0xdead_beef_0000L};
        for (int round = 0; round < 150; round++) {
            target.heal();
            long block = read.get(random.nextInt(read.size()));
            for (int hits = 0; hits < 1 + random.nextInt(6); hits++) {
                long at = block + 8L * random.nextInt(512);
                long value = random.nextBoolean() ? nasty[random.nextInt(nasty.length)]
                        : random.nextBoolean() ? read.get(random.nextInt(read.size())) : random.nextLong();
                target.overwrite(at, value, 8);
            }
            process.resumed();
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> ProcessSnapshot.take(process),
                    "round " + round);
        }
    }
}
