package dev.jompd.core.ompd;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.testkit.StoppedFixture;

/** Opens the address spaces tests run their scenarios against. */
final class Targets {
    private Targets() {}

    static AddressSpace core(StoppedFixture fixture) {
        return CoreFileAddressSpace.open(fixture.core());
    }

    static AddressSpaceHandle process(StoppedFixture fixture) {
        return Ompd.processInitialize(core(fixture));
    }
}
