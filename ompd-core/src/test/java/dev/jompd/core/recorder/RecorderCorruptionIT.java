package dev.jompd.core.recorder;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A real core with chosen bytes of the recorder's records changed: clear refusals, never a wrong value or a hang. */
class RecorderCorruptionIT {

    /** A real address space with some bytes overwritten. */
    static final class Patched implements AddressSpace {
        private final AddressSpace real;
        private final Map<Long, Byte> patches = new HashMap<>();

        Patched(AddressSpace real) {
            this.real = real;
        }

        void write(long address, long value, int size) {
            for (int i = 0; i < size; i++) {
                patches.put(address + i, (byte) (value >>> (8 * i)));
            }
        }

        @Override public String name() { return "patched " + real.name(); }
        @Override public TargetArchitecture architecture() { return real.architecture(); }
        @Override public Optional<TargetSymbol> lookupSymbol(String name) { return real.lookupSymbol(name); }
        @Override public Optional<TargetSymbol> lookupSymbol(String name, String module) { return real.lookupSymbol(name, module); }
        @Override public List<LoadedModule> modules() { return real.modules(); }
        @Override public List<TargetThread> threads() { return real.threads(); }
        @Override public void resumed() { real.resumed(); }

        @Override
        public void read(long address, byte[] buffer, int offset, int length) throws MemoryReadException {
            real.read(address, buffer, offset, length);
            for (int i = 0; i < length; i++) {
                Byte patched = patches.get(address + i);
                if (patched != null) {
                    buffer[offset + i] = patched;
                }
            }
        }

        @Override public void close() { real.close(); }
    }

    private static long descriptor(AddressSpace space) {
        return space.lookupSymbol(Recorder.DESCRIPTOR_SYMBOL).orElseThrow().address();
    }

    @Test
    void aRecorderOfAnUnknownVersionIsRefusedWithTheVersionNamed() {
        StoppedFixture fixture = RecorderIT.core(Fixture.RECORDER_EVENTS, "2", "1");
        try (Patched space = new Patched(CoreFileAddressSpace.open(fixture.core()))) {
            space.write(descriptor(space) + 16, 3, 4);
            assertThatThrownBy(() -> Recorder.find(space)).isInstanceOf(UnsupportedRecorderVersionException.class)
                    .hasMessageContaining("layout version 3").hasMessageContaining("reads versions 1 to 2 only");
        }
    }

    @Test
    void aDescriptorWithoutTheMagicIsRefused() {
        StoppedFixture fixture = RecorderIT.core(Fixture.RECORDER_EVENTS, "2", "1");
        try (Patched space = new Patched(CoreFileAddressSpace.open(fixture.core()))) {
            space.write(descriptor(space), 'X', 1);
            assertThatThrownBy(() -> Recorder.find(space)).isInstanceOf(RecorderFormatException.class)
                    .hasMessageContaining("magic");
        }
    }

    @Test
    void aLoopingThreadListIsReportedNotWalkedForever() {
        StoppedFixture fixture = RecorderIT.core(Fixture.RECORDER_EVENTS, "2", "1");
        try (Patched space = new Patched(CoreFileAddressSpace.open(fixture.core()))) {
            RecorderSnapshot intact = Recorder.find(space).orElseThrow();
            RecordedThread newest = intact.threads().getLast();
            long next = intact.layout().offset("thread", "next");
            space.write(newest.address() + next, newest.address(), 8);
            assertThatThrownBy(() -> Recorder.find(space)).isInstanceOf(RecorderFormatException.class)
                    .hasMessageContaining("thread list loops");
        }
    }

    @Test
    void aTornEventIsLeftOutAndTheRestIsRead() {
        StoppedFixture fixture = RecorderIT.core(Fixture.RECORDER_EVENTS, "2", "1");
        try (Patched space = new Patched(CoreFileAddressSpace.open(fixture.core()))) {
            RecordedThread intact = Recorder.find(space).orElseThrow().threads().getFirst();
            RecorderLayout layout = Recorder.find(space).orElseThrow().layout();
            // The newest event as if the thread had stopped while writing it: seq 0.
            long ring = new dev.jompd.core.memory.TargetMemory(space).readPointer(intact.address() + layout.offset("thread", "events"));
            long slot = (intact.eventsWritten() - 1) % intact.capacity();
            space.write(ring + slot * layout.sizeOf("event") + layout.offset("event", "seq"), 0, 8);
            RecordedThread torn = Recorder.find(space).orElseThrow().threads().getFirst();
            assertThat(torn.events()).hasSize(intact.events().size() - 1);
            assertThat(torn.events()).isEqualTo(intact.events().subList(0, intact.events().size() - 1));
        }
    }

    /** Where the layout entry {@code name}'s value is (the descriptor's table: 48-byte name, 8-byte value). */
    private static long layoutValueAddress(AddressSpace space, String name) {
        dev.jompd.core.memory.TargetMemory memory = new dev.jompd.core.memory.TargetMemory(space);
        long descriptor = descriptor(space);
        long count = memory.readUnsigned(descriptor + 20, 4);
        long table = memory.readPointer(descriptor + 24);
        for (long i = 0; i < count; i++) {
            if (memory.readCString(table + i * 56, 48).equals(name)) {
                return table + i * 56 + 48;
            }
        }
        throw new AssertionError("no layout entry " + name);
    }

    @Test
    void anEventSizePastAnyStructIsRefusedNotAnOverflow() {
        StoppedFixture fixture = RecorderIT.core(Fixture.RECORDER_EVENTS, "2", "1");
        try (Patched space = new Patched(CoreFileAddressSpace.open(fixture.core()))) {
            space.write(layoutValueAddress(space, "event.size"), 1L << 40, 8);
            assertThatThrownBy(() -> Recorder.find(space)).isInstanceOf(RecorderFormatException.class)
                    .hasMessage("the jompd-recorder's layout at 0x%x has event.size = 1099511627776 (1..1048576 expected)"
                            .formatted(descriptor(space)));
        }
    }

    @Test
    void aFieldOutsideItsStructIsRefusedNotAnIndexError() {
        StoppedFixture fixture = RecorderIT.core(Fixture.RECORDER_EVENTS, "2", "1");
        try (Patched space = new Patched(CoreFileAddressSpace.open(fixture.core()))) {
            RecorderLayout layout = Recorder.find(space).orElseThrow().layout();
            space.write(layoutValueAddress(space, "event.seq"), 1 << 19, 8);
            assertThatThrownBy(() -> Recorder.find(space)).isInstanceOf(RecorderFormatException.class)
                    .hasMessage("the jompd-recorder's layout at 0x%x has event.seq = 524288 (a field of %d bytes inside %d expected)"
                            .formatted(descriptor(space), layout.fieldSize("event", "seq"), layout.sizeOf("event")));
        }
    }

    @Test
    void threadRecordsSharingOneRingAreRefusedNotReadTwice() {
        StoppedFixture fixture = RecorderIT.core(Fixture.RECORDER_EVENTS, "2", "1");
        try (Patched space = new Patched(CoreFileAddressSpace.open(fixture.core()))) {
            RecorderSnapshot intact = Recorder.find(space).orElseThrow();
            dev.jompd.core.memory.TargetMemory memory = new dev.jompd.core.memory.TargetMemory(space);
            long eventsField = intact.layout().offset("thread", "events");
            // the reader walks the list newest first: the newest thread's ring is read first
            RecordedThread first = intact.threads().getLast();
            RecordedThread second = intact.threads().getFirst();
            assertThat(first.eventsWritten()).isPositive();
            assertThat(second.eventsWritten()).isPositive();
            long ring = memory.readPointer(first.address() + eventsField);
            space.write(second.address() + eventsField, ring, 8);
            assertThatThrownBy(() -> Recorder.find(space)).isInstanceOf(RecorderFormatException.class)
                    .hasMessage("thread records at 0x%x and 0x%x share the ring at 0x%x (each thread has its own)"
                            .formatted(first.address(), second.address(), ring));
        }
    }

    @Test
    void ringsPastTheTotalCapAreRefusedBeforeAnyIsRead() {
        StoppedFixture fixture = RecorderIT.core(Fixture.RECORDER_EVENTS, "2", "1");
        try (Patched space = new Patched(CoreFileAddressSpace.open(fixture.core()))) {
            RecorderSnapshot intact = Recorder.find(space).orElseThrow();
            RecordedThread newest = intact.threads().getLast();
            // the largest event the layout may describe, in a full ring of the most events a thread may have
            space.write(layoutValueAddress(space, "event.size"), 1 << 20, 8);
            space.write(newest.address() + intact.layout().offset("thread", "capacity"), 1 << 20, 8);
            space.write(newest.address() + intact.layout().offset("thread", "head"), 1 << 20, 8);
            assertThatThrownBy(() -> Recorder.find(space)).isInstanceOf(RecorderFormatException.class)
                    .hasMessage("the thread records' rings hold more than 512 MiB of events (thread record at 0x%x)"
                            .formatted(newest.address()));
        }
    }
}
