package dev.jompd.core.ompd;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Wraps a real address space and damages chosen bytes of what it reads (or makes chosen addresses
 * unreadable): corruption tests on top of real cores. It also records which addresses were read.
 */
final class DamagingAddressSpace implements AddressSpace {
    private final AddressSpace real;
    private final Map<Long, Byte> overwritten = new HashMap<>();
    private final Set<Long> unreadable = new TreeSet<>();
    final TreeSet<Long> readAddresses = new TreeSet<>();

    DamagingAddressSpace(AddressSpace real) {
        this.real = real;
    }

    void overwrite(long address, long value, int size) {
        for (int i = 0; i < size; i++) {
            overwritten.put(address + i, (byte) (value >>> (8 * i)));
        }
    }

    void makeUnreadable(long address) {
        unreadable.add(address);
    }

    void heal() {
        overwritten.clear();
        unreadable.clear();
    }

    @Override
    public void read(long address, byte[] buffer, int offset, int length) {
        for (long bad : unreadable) {
            if (Long.compareUnsigned(bad, address) >= 0 && Long.compareUnsigned(bad, address + length) < 0) {
                throw new MemoryReadException(name(), address, length, "damaged by the test at 0x" + Long.toHexString(bad));
            }
        }
        real.read(address, buffer, offset, length);
        readAddresses.add(address);
        if (!overwritten.isEmpty()) {
            for (int i = 0; i < length; i++) {
                Byte damage = overwritten.get(address + i);
                if (damage != null) {
                    buffer[offset + i] = damage;
                }
            }
        }
    }

    @Override public String name() { return "damaged(" + real.name() + ")"; }
    @Override public TargetArchitecture architecture() { return real.architecture(); }
    @Override public Optional<TargetSymbol> lookupSymbol(String name) { return real.lookupSymbol(name); }
    @Override public Optional<TargetSymbol> lookupSymbol(String name, String module) { return real.lookupSymbol(name, module); }
    @Override public List<LoadedModule> modules() { return real.modules(); }
    @Override public List<TargetThread> threads() { return real.threads(); }
    @Override public void resumed() { real.resumed(); }
}
