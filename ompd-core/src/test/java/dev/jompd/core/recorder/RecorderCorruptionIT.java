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
}
