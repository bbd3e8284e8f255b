package dev.jompd.core.ompd;

import dev.jompd.core.memory.TargetMemory;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.TargetSymbol;
import dev.jompd.core.target.TargetThread;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The content checks of the {@link ProfiledGlobal} table: what a global placed by a runtime profile must hold
 * to be believed, checked before jompd reads it. Each answers empty when the content fits, else why not.
 */
final class ProfiledGlobalChecks {
    /** How many thread-array entries are checked against the process's threads (the rest are bounded by counts). */
    private static final int CHECKED_ENTRIES = 4096;
    private static final long DS_GTID_AFTER_DS_TID = 4;

    private ProfiledGlobalChecks() {}

    /** An integer of {@code bytes} (signed or not) within [low, high]. */
    record Range(int bytes, boolean signed, long low, long high) implements ProfiledGlobal.Check {
        @Override
        public Optional<String> at(long address, ProfiledGlobal.Candidate candidate) {
            TargetMemory memory = candidate.memory();
            return range(signed ? memory.readSigned(address, bytes) : memory.readUnsigned(address, bytes), low, high);
        }
    }

    /** ompd_dll_locations: a pointer to an array of file names, the first one libompd's. */
    static Optional<String> libompdLocations(long address, ProfiledGlobal.Candidate candidate) {
        TargetMemory memory = candidate.memory();
        long array = memory.readPointer(address);
        if (array == 0) {
            return Optional.of("null");
        }
        String first = memory.readCString(memory.readPointer(array), 256);
        return first.contains("libompd") ? Optional.empty() : Optional.of("first entry is \"" + first + "\", not libompd");
    }

    /** ompd_env_block: null, or a pointer to NAME=VALUE lines. */
    static Optional<String> environmentBlock(long address, ProfiledGlobal.Candidate candidate) {
        TargetMemory memory = candidate.memory();
        long block = memory.readPointer(address);
        if (block == 0) {
            return Optional.empty();
        }
        String first = memory.readCString(block, 256).lines().findFirst().orElse("").strip();
        return first.matches("[A-Za-z_][A-Za-z0-9_]*=.*") ? Optional.empty()
                : Optional.of("does not point at NAME=VALUE (\"" + first + "\")");
    }

    /** __kmp_affin_mask_size: 0 (affinity off) or a whole number of mask words, at most 2^20 processors' worth. */
    static Optional<String> maskSize(long address, ProfiledGlobal.Candidate candidate) {
        long size = candidate.memory().readSigned(address, 8);
        int word = PlacesLayout.shipped().wordSize();
        return size >= 0 && size <= (1 << 17) && size % word == 0 ? Optional.empty()
                : Optional.of(size + " is no mask size");
    }

    /**
     * __kmp_affinity (libomp 16 on): its place count in bounds and, with places, a readable place list whose first
     * mask's vtable pointer is non-null; where the runtime's layout group puts them.
     */
    static Optional<String> placeList(long address, ProfiledGlobal.Candidate candidate) {
        PlacesLayout.Group group = PlacesLayout.shipped().groupFor(candidate.layout());
        if (!group.numMasks().symbol().equals("__kmp_affinity")) {
            return Optional.of("this libomp keeps its places in " + group.numMasks().symbol());
        }
        TargetMemory memory = candidate.memory();
        long count = memory.readUnsigned(address + group.numMasks().offset(), group.numMasks().size());
        long list = memory.readPointer(address + group.masks().offset());
        return placesFit(memory, count, list);
    }

    /** __kmp_affinity_masks (before libomp 16): null, or a place list whose first mask's vtable pointer is non-null. */
    static Optional<String> maskArray(long address, ProfiledGlobal.Candidate candidate) {
        TargetMemory memory = candidate.memory();
        long list = memory.readPointer(address);
        return list == 0 ? Optional.empty() : placesFit(memory, 1, list);
    }

    private static Optional<String> placesFit(TargetMemory memory, long count, long list) {
        if (count > 1 << 16) {
            return Optional.of(count + " places");
        }
        if (count == 0) {
            return Optional.empty();
        }
        return list != 0 && memory.readPointer(list) != 0 ? Optional.empty()
                : Optional.of("no place list with a mask at 0x" + Long.toHexString(list));
    }

    /**
     * A primary vtable of libomp's (built without RTTI): offset-to-top 0, no type_info, then function pointers. What
     * makes it the place masks' is checked where they are read (every mask's vtable pointer must be this vtable's
     * address point: Places).
     */
    static Optional<String> maskVtable(long address, ProfiledGlobal.Candidate candidate) {
        TargetMemory memory = candidate.memory();
        return memory.readSigned(address, 8) == 0 && memory.readPointer(address + 8) == 0
                && memory.readPointer(address + 16) != 0 && memory.readPointer(address + 24) != 0 ? Optional.empty()
                : Optional.of("no vtable (offset-to-top 0, no type_info, function pointers)");
    }

    /** __kmp_openmp_version: a YYYYMM date. */
    static Optional<String> openMpVersion(long address, ProfiledGlobal.Candidate candidate) {
        long version = candidate.memory().readSigned(address, 4);
        return version / 100 >= 1997 && version / 100 <= 2040 && version % 100 >= 1 && version % 100 <= 12
                ? Optional.empty() : Optional.of(version + " is no OpenMP version date (YYYYMM)");
    }

    /** __kmp_def_allocator: a predefined allocator's small number, or a readable allocator object. */
    static Optional<String> allocator(long address, ProfiledGlobal.Candidate candidate) {
        TargetMemory memory = candidate.memory();
        long allocator = memory.readPointer(address);
        return allocator >= 1 && allocator <= 0x400 ? Optional.empty() : readable(memory, allocator);
    }

    /** A {@code char *}: null, or a printable string. */
    static Optional<String> printableString(long address, ProfiledGlobal.Candidate candidate) {
        TargetMemory memory = candidate.memory();
        long string = memory.readPointer(address);
        if (string == 0) {
            return Optional.empty();
        }
        String text = memory.readCString(string, 1024);
        return text.chars().allMatch(c -> c >= 0x20 && c < 0x7f) ? Optional.empty()
                : Optional.of("does not point at a printable string");
    }

    /** __kmp_nested_nth, __kmp_nested_proc_bind: a used count in bounds and, when used, a readable array. */
    static ProfiledGlobal.Check nestedList(String type, String arrayField) {
        return (address, candidate) -> {
            TargetMemory memory = candidate.memory();
            RuntimeLayout layout = candidate.layout();
            long used = memory.readSigned(address + layout.offset(type, "used"), 4);
            long array = memory.readPointer(address + layout.offset(type, arrayField));
            if (used < 0 || used > 1024) {
                return Optional.of("used = " + used);
            }
            return used == 0 ? Optional.empty() : readable(memory, array);
        };
    }

    /**
     * __kmp_threads: a pointer to an array of __kmp_threads_capacity kmp_info_t pointers, entry 0 set,
     * as many non-null entries as __kmp_all_nth says, each entry's gtid its index and its pthread a thread
     * of the process.
     */
    static Optional<String> threadArray(long address, ProfiledGlobal.Candidate candidate) {
        TargetMemory memory = candidate.memory();
        RuntimeLayout layout = candidate.layout();
        ProfiledRuntime runtime = candidate.runtime();
        AddressSpace target = candidate.target();
        Optional<TargetSymbol> capacitySymbol = runtime.symbol("__kmp_threads_capacity");
        Optional<TargetSymbol> countSymbol = runtime.symbol("__kmp_all_nth");
        if (capacitySymbol.isEmpty() || countSymbol.isEmpty()) {
            return Optional.of("its capacity and count cannot be placed: "
                    + runtime.whyUnavailable(capacitySymbol.isEmpty() ? "__kmp_threads_capacity" : "__kmp_all_nth").orElse(""));
        }
        long capacity = memory.readSigned(capacitySymbol.get().address(), 4);
        long count = memory.readSigned(countSymbol.get().address(), 4);
        long array = memory.readPointer(address);
        if (array == 0) {
            return Optional.of("a null pointer, no thread array");
        }
        if (count > capacity) {
            return Optional.of("the thread count there (__kmp_all_nth) is " + count
                    + ", more than the array's capacity (__kmp_threads_capacity) " + capacity);
        }
        Set<Long> pthreads = new HashSet<>();
        for (TargetThread thread : target.threads()) {
            thread.threadPointer().ifPresent(pthreads::add);
        }
        if (pthreads.isEmpty()) {
            return Optional.of("the process's pthread ids are unknown: its entries cannot be checked");
        }
        // libomp: __kmp_threads[i]->th.th_info.ds.ds_thread
        long ds = layout.offset("kmp_info_t", "th") + layout.offset("kmp_base_info_t", "th_info") + layout.offset("kmp_desc_t", "ds");
        long dsThread = ds + layout.offset("kmp_desc_base_t", "ds_thread");
        // ds_gtid has no breadcrumb; kmp.h declares it right after ds_tid (volatile int ds_tid; int ds_gtid;),
        // at ds_tid + 4 in every build measured (14, 15, 16, 19).
        long dsGtid = ds + layout.offset("kmp_desc_base_t", "ds_tid") + DS_GTID_AFTER_DS_TID;
        int nonNull = 0;
        for (int i = 0; i < Math.min(capacity, CHECKED_ENTRIES); i++) {
            long info = memory.readPointer(array + 8L * i);
            if (info == 0) {
                if (i == 0) {
                    return Optional.of("entry 0 (the initial thread) is null");
                }
                continue;
            }
            nonNull++;
            long gtid = memory.readSigned(info + dsGtid, 4);
            if (gtid != i) {
                return Optional.of("entry " + i + " holds a kmp_info_t whose gtid is " + gtid);
            }
            long pthread = memory.readPointer(info + dsThread);
            if (!pthreads.contains(pthread)) {
                return Optional.of("entry " + i + "'s pthread 0x" + Long.toHexString(pthread) + " is no thread of the process");
            }
        }
        if (capacity <= CHECKED_ENTRIES && nonNull != count) {
            return Optional.of(nonNull + " entries set but __kmp_all_nth is " + count);
        }
        return Optional.empty();
    }

    /**
     * __kmp_i_lock_table (kmp_lock.cpp, set up at serial initialisation): a pointer to its row pointers, at
     * least one row (row 0 is allocated with the table), {@code next} within the rows, row 0's used entries
     * each a readable lock object (or none) with a known indirect tag, and a next table that is null or readable.
     */
    static Optional<String> lockTable(long address, ProfiledGlobal.Candidate candidate) {
        return lockTable(address, candidate.memory());
    }

    private static Optional<String> lockTable(long address, TargetMemory memory) {
        LockLayout locks = LockLayout.shipped();
        long rows = memory.readPointer(address + locks.member("kmp_indirect_lock_table_t", "table").offset());
        long rowCount = memory.readUnsigned(address + locks.member("kmp_indirect_lock_table_t", "nrow_ptrs").offset(), 4);
        long next = memory.readUnsigned(address + locks.member("kmp_indirect_lock_table_t", "next").offset(), 4);
        long nextTable = memory.readPointer(address + locks.member("kmp_indirect_lock_table_t", "next_table").offset());
        if (rows == 0 || rowCount < 1 || rowCount > RuntimeLocks.MAX_LOCKS || next > rowCount * locks.chunk()) {
            return Optional.of("table 0x" + Long.toHexString(rows) + ", " + rowCount + " rows, next " + next
                    + ": no lock table");
        }
        long row = memory.readPointer(rows);
        if (row == 0) {
            return Optional.of("row 0 is null");
        }
        int tagMax = locks.indirectTags().values().stream().mapToInt(Integer::intValue).max().orElse(0);
        for (long i = 0; i < Math.min(next, locks.chunk()); i++) {
            long entry = row + i * locks.indirectLockSize();
            long lock = memory.readPointer(entry + locks.member("kmp_indirect_lock_t", "lock").offset());
            long tag = memory.readUnsigned(entry + locks.member("kmp_indirect_lock_t", "type").offset(), 4);
            if (tag > tagMax) {
                return Optional.of("entry " + i + " has tag " + tag + ", no indirect lock kind");
            }
            if (lock != 0 && readable(memory, lock).isPresent()) {
                return Optional.of("entry " + i + "'s lock 0x" + Long.toHexString(lock) + " is unreadable");
            }
            Optional<String> self = lock == 0 ? Optional.empty() : selfPointer(memory, locks, lock, (int) tag);
            if (self.isPresent()) {
                return Optional.of("entry " + i + "'s lock " + self.get());
            }
        }
        if (next == 0) {
            Optional<String> rowReadable = readable(memory, row);
            if (rowReadable.isPresent()) {
                return Optional.of("row 0 " + rowReadable.get());
            }
        }
        return nextTable == 0 ? Optional.empty() : readable(memory, nextTable).map(why -> "next table " + why);
    }

    /** A queuing, drdpa or ticket lock points to itself (initialized, or self); other kinds hold no such word. */
    private static Optional<String> selfPointer(TargetMemory memory, LockLayout locks, long lock, int tag) {
        Optional<LockKind> kind = locks.indirectKind(tag);
        LockKind.Decoding decoding = kind.map(LockKind::decoding).orElse(LockKind.Decoding.NO_OWNER);
        if (decoding.selfField().isEmpty()) {
            return Optional.empty();
        }
        long self = memory.readPointer(lock + locks.member(decoding.struct().orElseThrow(), decoding.selfField().get()).offset());
        return self == lock ? Optional.empty()
                : Optional.of("0x" + Long.toHexString(lock) + " (" + kind.get() + ") does not point to itself");
    }

    /**
     * The lock table confirms itself when it holds locks and passes its check: locks that point to themselves
     * are found nowhere else (used for a place moved from where the profile says).
     */
    static Optional<String> lockTableWithLocks(long address, ProfiledGlobal.Candidate candidate) {
        TargetMemory memory = candidate.memory();
        LockLayout locks = LockLayout.shipped();
        long next = memory.readUnsigned(address + locks.member("kmp_indirect_lock_table_t", "next").offset(), 4);
        return next > 0 ? lockTable(address, memory) : Optional.of("holds no locks");
    }

    private static Optional<String> range(long value, long low, long high) {
        return value >= low && value <= high ? Optional.empty()
                : Optional.of("holds " + value + ", outside " + low + ".." + high);
    }

    private static Optional<String> readable(TargetMemory memory, long address) {
        try {
            memory.readUnsigned(address, 1);
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of("points at unreadable 0x" + Long.toHexString(address));
        }
    }
}
