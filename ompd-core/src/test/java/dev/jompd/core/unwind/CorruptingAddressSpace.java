package dev.jompd.core.unwind;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.MemoryReadException;
import dev.jompd.core.target.TargetArchitecture;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A real address space with damage: chosen 8-byte words overwritten, chosen addresses unreadable,
 * chosen thread registers replaced. For corruption tests only; everything else reads through.
 */
final class CorruptingAddressSpace implements AddressSpace {
    private final AddressSpace real;
    private final Map<Long, Byte> overwritten = new HashMap<>();
    private final Set<Long> unreadable = new HashSet<>();
    private final Map<Long, Map<String, Long>> registers = new HashMap<>();

    CorruptingAddressSpace(AddressSpace real) {
        this.real = real;
    }

    void overwriteWord(long address, long value) {
        for (int i = 0; i < 8; i++) {
            overwritten.put(address + i, (byte) (value >>> (8 * i)));
        }
    }

    void makeUnreadable(long address) {
        unreadable.add(address & -8L);
    }

    void setRegister(long lwp, String name, long value) {
        registers.computeIfAbsent(lwp, k -> new HashMap<>()).put(name, value);
    }

    @Override
    public void read(long address, byte[] buffer, int offset, int length) {
        for (long word = address & -8L; Long.compareUnsigned(word, address + length) < 0; word += 8) {
            if (unreadable.contains(word)) {
                throw new MemoryReadException(name(), address, length, "made unreadable by the test");
            }
        }
        real.read(address, buffer, offset, length);
        if (!overwritten.isEmpty()) {
            for (int i = 0; i < length; i++) {
                Byte damage = overwritten.get(address + i);
                if (damage != null) {
                    buffer[offset + i] = damage;
                }
            }
        }
    }

    @Override
    public void resumed() {
        real.resumed();
    }

    @Override
    public List<TargetThread> threads() {
        return real.threads().stream().map(thread -> {
            Map<String, Long> changed = registers.get(thread.lwp());
            if (changed == null) {
                return thread;
            }
            Map<String, Long> all = new HashMap<>(thread.registers());
            all.putAll(changed);
            return new TargetThread(thread.lwp(), thread.threadPointer(), all);
        }).toList();
    }

    @Override public String name() { return "corrupted " + real.name(); }
    @Override public TargetArchitecture architecture() { return real.architecture(); }
    @Override public Optional<TargetSymbol> lookupSymbol(String name) { return real.lookupSymbol(name); }
    @Override public Optional<TargetSymbol> lookupSymbol(String name, String fragment) { return real.lookupSymbol(name, fragment); }
    @Override public List<LoadedModule> modules() { return real.modules(); }
}
