package dev.jompd.core.ompd;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.ompd.RuntimeLocks.Lock;
import dev.jompd.core.target.LoadedModule;
import dev.jompd.core.target.TargetException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Locks by the program's own name: the variable the program passed to {@code omp_set_lock}, not the
 * runtime's internal lock object (an address the user never sees, and another one in every run).
 * <ul>
 * <li>A <b>direct lock</b> (tas, futex) is the user's {@code omp_lock_t} word itself: the executable's symbol
 *     that contains the address names it ({@code guard}, {@code locks[2]}).</li>
 * <li>An <b>indirect lock</b> (queuing, libomp's default, and every nested kind) is an object in libomp's
 *     table; the user's {@code omp_lock_t} holds its index times two. The executable's static variables
 *     are read and the one whose slots hold lock indices names it: a variable is believed to hold locks only
 *     when every 8-byte slot of it ({@code omp_lock_t} is one pointer in libomp's {@code omp.h}) holds a
 *     distinct index of a lock in the table, and a lock is named only when exactly one such slot holds its
 *     index (index 0, which every zeroed variable looks like, only inside a variable that holds other
 *     locks too).</li>
 * <li>Anything else (a lock on the heap, in a struct with other members, or two candidates): no name here;
 *     the diagnosis then names the lock by the source line of the {@code omp_set_lock} call, saying so.</li>
 * </ul>
 * Read here (raw memory and the executable's file, which the report layer does not touch) with the picture,
 * once per stop, bounded ({@link #MAX_SYMBOL_BYTES} per variable, {@link #MAX_BYTES} in all).
 */
public final class LockNames {
    static final int MAX_SYMBOL_BYTES = 1 << 16;
    static final int MAX_BYTES = 4 << 20;
    private static final int LOCK_SIZE = 8;
    static final int MAX_LOCK_VARIABLES = 4096;

    /** A lock's name in the program and how it was found. */
    public record Name(String variable, String evidence) {}

    private static final LockNames NONE = new LockNames(Map.of(), List.of(), Map.of(), Optional.empty(), 0, "", Map.of());

    /**
     * The variable a compiler makes for each critical construct's name and passes to libomp
     * ({@code __kmpc_critical}, {@code GOMP_critical_name_start}): clang's {@code .gomp_critical_user_NAME.var},
     * gcc's {@code .gomp_critical_user_NAME}; the unnamed critical's name is empty.
     */
    private static final java.util.regex.Pattern CRITICAL_NAME =
            java.util.regex.Pattern.compile("\\.gomp_critical_user_(.*?)(\\.var)?");

    private final Map<Long, Name> byObject;
    /** Critical sections by their lock object: {@code critical(big)}, {@code unnamed critical}. */
    private final Map<Long, Name> criticalByObject;
    /** The executable's variables, read from its file when first needed (no lock, no reading). */
    private List<Variable> variables;
    /** Variables every slot of which holds a lock word, with the index each slot holds (-1: a direct lock). */
    private final Map<Variable, long[]> lockVariables;
    private final Optional<Path> executable;
    private final long bias;
    private final String executableName;

    private LockNames(Map<Long, Name> byObject, List<Variable> variables, Map<Variable, long[]> lockVariables,
                      Optional<Path> executable, long bias, String executableName, Map<Long, Name> criticalByObject) {
        this.executableName = executableName;
        this.criticalByObject = Map.copyOf(criticalByObject);
        this.byObject = Map.copyOf(byObject);
        this.variables = variables == null ? null : List.copyOf(variables);
        this.lockVariables = Map.copyOf(lockVariables);
        this.executable = executable;
        this.bias = bias;
    }

    /** Whether a frame's module (its file name) is the program's executable, whose variables name locks. */
    public boolean inExecutable(String module) {
        return !executableName.isEmpty() && executableName.equals(module);
    }

    /**
     * The variable the program passed to {@code omp_set_lock} where a waiter calls it: the executable's
     * code just before the call ({@code lea rdi, [rip+locks]}, the address of a static variable or of the
     * array it indexes, as compilers emit for {@code omp_set_lock(&locks[k])}) names a variable, and that
     * variable must hold {@code lock}'s index in one of its slots — the slot is the lock. Empty when the code
     * says no such thing (a lock on the heap, optimised code that keeps the address elsewhere).
     *
     * @param returnPc the waiter's return address into the program's code (the frame that called libomp)
     */
    public Optional<Name> atCall(Lock lock, long returnPc) {
        if (lock.index().isEmpty() || executable.isEmpty()) {
            return Optional.empty();
        }
        long fileAddress = returnPc - bias;
        Optional<byte[]> code = codeBefore(executable.get(), fileAddress, CALL_WINDOW);
        if (code.isEmpty()) {
            return Optional.empty();
        }
        byte[] bytes = code.get();
        int end = bytes.length;
        boolean call = (end >= 5 && (bytes[end - 5] & 0xff) == 0xe8)
                || (end >= 6 && (bytes[end - 6] & 0xff) == 0xff && (bytes[end - 5] & 0xff) == 0x15);
        if (!call) {
            return Optional.empty();
        }
        // the nearest rip-relative lea before the call: REX.W (0x48/0x4c) 0x8d, ModRM mod 00 rm 101
        for (int at = end - 7 - 5; at >= 0; at--) {
            int rex = bytes[at] & 0xff;
            if ((rex == 0x48 || rex == 0x4c) && (bytes[at + 1] & 0xff) == 0x8d && (bytes[at + 2] & 0xc7) == 0x05) {
                int displacement = ByteBuffer.wrap(bytes, at + 3, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
                long target = bias + fileAddress - (end - (at + 7)) + displacement;
                for (Map.Entry<Variable, long[]> entry : lockVariables.entrySet()) {
                    Variable v = entry.getKey();
                    if (v.address() != target) {
                        continue;
                    }
                    long[] slots = entry.getValue();
                    for (int s = 0; s < slots.length; s++) {
                        if (slots[s] == lock.index().getAsLong()) {
                            return Optional.of(new Name(element(v, v.address() + (long) s * LOCK_SIZE),
                                    "the program passes " + v.name() + (slots.length > 1 ? " (an array of locks)" : "")
                                    + " to libomp at the waiter's call (the code before 0x" + Long.toHexString(fileAddress)
                                    + "), and it holds indirect lock #" + lock.index().getAsLong()));
                        }
                    }
                }
                return Optional.empty(); // the nearest address the code takes is no variable holding this lock
            }
        }
        return Optional.empty();
    }

    private static final int CALL_WINDOW = 48;

    /** The {@code length} bytes of the executable's file image just before {@code fileAddress}. */
    private static Optional<byte[]> codeBefore(Path file, long fileAddress, int length) {
        try (ElfFile elf = ElfFile.open(file)) {
            for (var segment : elf.programHeaders(dev.jompd.core.elf.ProgramHeader.PT_LOAD)) {
                long into = fileAddress - segment.virtualAddress();
                if (into >= length && into <= segment.fileSize()) {
                    var bytes = elf.segmentBytes(segment);
                    byte[] code = new byte[length];
                    for (int i = 0; i < length; i++) {
                        code[i] = (byte) bytes.u8(into - length + i);
                    }
                    return Optional.of(code);
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /** No names (a picture built without the process at hand). */
    public static LockNames none() {
        return NONE;
    }

    /**
     * A critical section's lock by the construct the program wrote: {@code critical(big)}, or {@code unnamed
     * critical}; found through the name's variable the compiler passes to libomp, which points to the lock's
     * entry in libomp's table (an indirect lock) or is the lock word itself (a direct one).
     */
    public Optional<Name> critical(Lock lock) {
        Name known = criticalByObject.get(lock.object());
        if (known != null || lock.index().isPresent()) {
            return Optional.ofNullable(known);
        }
        return containing(variables(), lock.object()).flatMap(v -> criticalName(v.name()).map(name -> new Name(name,
                "the lock word lies in " + v.name() + ", the variable the compiler makes for " + name)));
    }

    /** {@code critical(big)} for {@code .gomp_critical_user_big.var}, {@code unnamed critical} for the unnamed one. */
    static Optional<String> criticalName(String symbol) {
        java.util.regex.Matcher name = CRITICAL_NAME.matcher(symbol);
        if (!name.matches()) {
            return Optional.empty();
        }
        return Optional.of(name.group(1).isEmpty() ? "unnamed critical" : "critical(" + name.group(1) + ")");
    }

    /** The program's name of {@code lock}, when the executable's variables tell it unambiguously. */
    public Optional<Name> of(Lock lock) {
        return Optional.ofNullable(byObject.get(lock.object()));
    }

    /**
     * The program's name of the lock whose object is at {@code object}, or of a direct (tas, futex) lock
     * whose word is there (the OMPD wait id of its waiters): the executable's variable that contains it.
     */
    public Optional<Name> ofObject(long object) {
        Name known = byObject.get(object);
        if (known != null || object == 0) {
            return Optional.ofNullable(known);
        }
        return containing(variables(), object).map(v -> new Name(element(v, object),
                "the lock word lies in the executable's variable " + v.name()));
    }

    private synchronized List<Variable> variables() {
        if (variables == null) {
            variables = executable.map(file -> variables(file, bias)).orElse(List.of());
        }
        return variables;
    }

    /** Reads the executable's static variables at this stop; never throws (unreadable: no names). */
    public static LockNames read(AddressSpaceHandle process, RuntimeLocks locks) {
        try {
            return compute(process, locks);
        } catch (RuntimeException unreadable) {
            return NONE; // no names: the diagnosis says the lock by its object and the caller's line
        }
    }

    private record Variable(String name, long address, long size) {}

    private static LockNames compute(AddressSpaceHandle process, RuntimeLocks locks) {
        if (process.target().modules().isEmpty()) {
            return NONE;
        }
        LoadedModule executable = process.target().modules().getFirst();
        Optional<Path> file = process.target().moduleFile(executable);
        if (file.isEmpty()) {
            return NONE;
        }
        if (locks.locks().isEmpty()) { // no indirect lock: only a direct lock's word may be asked about, later
            return new LockNames(Map.of(), null, Map.of(), file, executable.loadBias(),
                    executable.path().getFileName().toString(), Map.of());
        }
        List<Variable> variables = variables(file.get(), executable.loadBias());
        TargetMemory memory = process.memory();
        Map<Long, Name> criticals = criticals(process, variables, locks);
        Map<Long, Name> names = new HashMap<>();
        // direct locks: the user's word is the lock
        for (Lock lock : locks.locks()) {
            if (lock.index().isEmpty()) {
                containing(variables, lock.object()).ifPresent(v -> names.put(lock.object(), new Name(
                        element(v, lock.object()), "the lock word lies in the executable's variable " + v.name())));
            }
        }
        Map<Long, Lock> byIndex = new HashMap<>();
        locks.locks().forEach(l -> l.index().ifPresent(i -> byIndex.put(i, l)));
        Map<Long, List<String>> candidates = new HashMap<>();
        Map<Variable, long[]> lockVariables = new HashMap<>();
        long budget = MAX_BYTES;
        for (Variable v : variables) {
            if (v.size() % LOCK_SIZE != 0 || v.size() > MAX_SYMBOL_BYTES || (budget -= v.size()) < 0) {
                continue;
            }
            byte[] bytes;
            try {
                bytes = memory.read(v.address(), (int) v.size());
            } catch (RuntimeException unreadable) {
                continue;
            }
            ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            int slots = (int) (v.size() / LOCK_SIZE);
            List<Long> indices = new ArrayList<>();
            Set<Long> distinct = new HashSet<>();
            boolean allLocks = true;
            boolean nonZero = false;
            for (int s = 0; s < slots && allLocks; s++) {
                long low = Integer.toUnsignedLong(buffer.getInt(s * LOCK_SIZE));
                long high = Integer.toUnsignedLong(buffer.getInt(s * LOCK_SIZE + 4));
                long index = low >>> 1;
                allLocks = (low & 1) == 0 && high == 0 && byIndex.containsKey(index) && distinct.add(index);
                nonZero |= low != 0;
                indices.add(index);
            }
            if (!allLocks || lockVariables.size() >= MAX_LOCK_VARIABLES) {
                continue;
            }
            lockVariables.put(v, indices.stream().mapToLong(Long::longValue).toArray());
            if (!nonZero) {
                continue; // all zero: index 0 by content alone is any zeroed variable; only a call site tells
            }
            for (int s = 0; s < slots; s++) {
                candidates.computeIfAbsent(indices.get(s), k -> new ArrayList<>())
                        .add(element(v, v.address() + (long) s * LOCK_SIZE) + "\u0000" + v.name());
            }
        }
        candidates.forEach((index, found) -> {
            if (found.size() == 1) {
                String[] parts = found.getFirst().split("\u0000");
                names.put(byIndex.get(index).object(), new Name(parts[0], "the executable's variable " + parts[1]
                        + " holds indirect lock #" + index + " (the only static variable whose slots hold it)"));
            }
        });
        return new LockNames(names, variables, lockVariables, file, executable.loadBias(),
                executable.path().getFileName().toString(), criticals);
    }

    /**
     * The critical sections' indirect locks by the names' variables: libomp stores in the name a pointer to
     * the lock's entry in its table ({@code *(kmp_indirect_lock_t **)crit}), whose {@code lock} is the object.
     */
    private static Map<Long, Name> criticals(AddressSpaceHandle process, List<Variable> variables, RuntimeLocks locks) {
        Set<Long> objects = new HashSet<>();
        locks.locks().forEach(l -> objects.add(l.object()));
        long lockMember = LockLayout.shipped().member("kmp_indirect_lock_t", "lock").offset();
        Map<Long, Name> criticals = new HashMap<>();
        for (Variable v : variables) {
            Optional<String> name = criticalName(v.name());
            if (name.isEmpty() || v.size() < LOCK_SIZE) {
                continue;
            }
            try {
                // libomp: ((kmp_indirect_lock_t *)*crit)->lock
                long entry = process.memory().readPointer(v.address());
                if (entry == 0 || (entry & 1) != 0) {
                    continue; // not entered yet, or a direct lock's word (named by containing(), when asked)
                }
                long object = process.memory().readPointer(entry + lockMember);
                if (objects.contains(object)) {
                    criticals.put(object, new Name(name.get(), v.name() + ", the variable the compiler makes for "
                            + name.get() + ", points to this lock's entry in libomp's lock table"));
                }
            } catch (RuntimeException unreadable) {
                // no name for this one: the finding says the critical section by its line
            }
        }
        return criticals;
    }

    private static Optional<Variable> containing(List<Variable> variables, long address) {
        return variables.stream().filter(v -> Long.compareUnsigned(address - v.address(), Math.max(v.size(), 1)) < 0)
                .findFirst();
    }

    /** {@code guard}, or {@code locks[2]} for a slot of an array of locks, {@code table+0x10} otherwise. */
    private static String element(Variable v, long address) {
        long offset = address - v.address();
        String name = sourceName(v.name());
        if (v.size() == LOCK_SIZE && offset == 0) {
            return name;
        }
        return offset % LOCK_SIZE == 0 ? name + "[" + offset / LOCK_SIZE + "]" : name + "+0x" + Long.toHexString(offset);
    }

    /**
     * The variable's name as its source spells it: clang names a function's static {@code main.locks}, gcc
     * {@code locks.0}.
     */
    static String sourceName(String symbol) {
        String name = symbol.replaceFirst("\\.\\d+$", "");
        int dot = name.lastIndexOf('.');
        return dot > 0 && dot < name.length() - 1 ? name.substring(dot + 1) : name;
    }

    private static List<Variable> variables(Path file, long bias) {
        List<Variable> variables = new ArrayList<>();
        try (ElfFile elf = ElfFile.open(file)) {
            for (ElfSymbol symbol : elf.symbolTable().all()) {
                if (symbol.type() == ElfSymbol.STT_OBJECT && symbol.isDefined() && !symbol.isAbsolute()
                        && symbol.size() > 0 && !symbol.name().isEmpty()) {
                    variables.add(new Variable(symbol.name(), bias + symbol.value(), symbol.size()));
                }
            }
        } catch (IOException | TargetException unreadable) {
            return List.of();
        }
        return variables;
    }
}
