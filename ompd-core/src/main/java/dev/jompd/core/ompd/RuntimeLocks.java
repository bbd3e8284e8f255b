package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;
import dev.jompd.core.target.TargetException;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Who holds libomp's locks and critical sections, and who waits in their queues, as the runtime's own
 * memory says (kmp_lock.h, dynamic locks). Layouts come from {@link LockLayout}; every value is believed
 * only when the lock's content confirms it (a queuing lock points to itself, a tag is known, an owner is a
 * live thread of {@code __kmp_threads}); otherwise the holder is {@link Holder.Unknown} with the reason.
 * <ul>
 * <li><b>Direct locks</b> (tas, futex; a hint or {@code KMP_LOCK_KIND} chooses them) live in the user's
 *     {@code omp_lock_t} or critical name: an odd word, tag in the low {@code shift} bits, owner above.</li>
 * <li><b>Indirect locks</b> (queuing — libomp's default —, ticket, drdpa, adaptive and every nested kind)
 *     are objects in {@code __kmp_i_lock_table}; an {@code omp_lock_t} holds their index times two, a
 *     critical name a pointer to the table entry. A thread waiting in a queuing lock has the object's address
 *     as its OMPD wait id.</li>
 * </ul>
 * libomp writes {@code owner_id} of a <em>simple</em> (non-nested) indirect lock only in its
 * consistency-checking functions ({@code KMP_CONSISTENCY_CHECK}); nested locks and direct locks always keep
 * their owner. A held simple lock without one is reported as such, never guessed.
 */
public final class RuntimeLocks {
    /** Upper bounds for the walks over corrupt memory. */
    static final int MAX_TABLES = 32;
    static final int MAX_LOCKS = 1 << 16;
    private static final int INDIRECT_LOCK_TABLE_SIZE = 24;

    /** Why a held simple lock has no owner: what the user can do about it. */
    public static final String NO_OWNER_RECORDED = "libomp records no owner for a simple %s lock unless "
            + "KMP_CONSISTENCY_CHECK is set (nested locks and tas/futex locks keep theirs)";

    /** Who holds a lock, as far as its memory says. */
    public sealed interface Holder {
        /** Held by the thread with this gtid; {@code depth} for a nested lock. */
        record Owner(long gtid, OptionalLong depth) implements Holder {}

        /** Nobody holds it. */
        record Free() implements Holder {}

        /** Held or not, who holds it cannot be told: why. */
        record Unknown(String why) implements Holder {}
    }

    /**
     * One lock or critical section.
     *
     * @param index          its index in libomp's indirect lock table (absent for a direct lock)
     * @param object         the lock object's address: the OMPD wait id of its queuing waiters; for a direct
     *                       lock the user's word itself
     * @param kind           libomp's kind ({@code queuing}, {@code nested_queuing}, {@code tas}, …; {@code unknown})
     * @param critical       a critical section's lock (libomp's {@code kmp_lf_critical_section} flag)
     * @param location       where the runtime says it was made ({@code file:line} of a critical construct)
     * @param waiters        gtids in its wait queue, first first (queuing kinds only)
     * @param waitersComplete whether that queue was walked to its tail
     * @param evidence       the words read, for the finding's evidence
     */
    public record Lock(OptionalLong index, long object, String kind, boolean critical, Optional<String> location,
                       Holder holder, List<Long> waiters, boolean waitersComplete, String evidence) {
        /** "queuing lock #3 at 0x7f…" or "critical section (critical_barrier.c:40), queuing lock #0 at 0x…". */
        public String describe() {
            String lock = kind.replace('_', ' ') + " lock" + (index.isPresent() ? " #" + index.getAsLong() : "")
                    + " at 0x" + Long.toHexString(object);
            return critical ? "critical section" + location.map(l -> " at " + l).orElse("") + " (" + lock + ")" : lock;
        }

        public boolean nested() {
            return kind.startsWith("nested_");
        }
    }

    private final List<Lock> locks;
    private final Optional<String> unavailable;

    private RuntimeLocks(List<Lock> locks, Optional<String> unavailable) {
        this.locks = List.copyOf(locks);
        this.unavailable = unavailable;
    }

    /** Every indirect lock in libomp's table at this stop (read once per stop); never throws. */
    public static RuntimeLocks read(AddressSpaceHandle space) {
        return space.stop().memo("runtimeLocks", () -> {
            try {
                return new RuntimeLocks(new Reader(space).table(), Optional.empty());
            } catch (OmpdException e) {
                return new RuntimeLocks(List.of(), Optional.of(e.getMessage()));
            }
        });
    }

    /** The indirect locks, in table order. */
    public List<Lock> locks() {
        return locks;
    }

    /** Why the lock table could not be read (then {@link #locks()} is empty). */
    public Optional<String> unavailable() {
        return unavailable;
    }

    /** The lock whose object is at {@code address} (an OMPD wait id of a lock waiter). */
    public Optional<Lock> byObject(long address) {
        return locks.stream().filter(l -> l.object() == address).findFirst();
    }

    /**
     * The lock an {@code omp_lock_t} or {@code omp_nest_lock_t} at {@code address} is: a direct lock in its
     * word, or the indirect lock its index names.
     *
     * @throws OmpdException when the word cannot be read or names no lock (with why)
     */
    public static Lock userLock(AddressSpaceHandle space, long address) {
        Reader reader = new Reader(space);
        long word = reader.u32(address, "omp_lock_t at 0x" + Long.toHexString(address));
        // An even word is an index (0 included: the first lock made, which an uninitialised word looks like too)
        if ((word & 1) != 0) {
            return reader.direct(address, word, false);
        }
        long index = word >>> 1;
        return read(space).locks().stream().filter(l -> l.index().equals(OptionalLong.of(index))).findFirst()
                .orElseThrow(() -> new OmpdException(OmpdRc.UNAVAILABLE, "the omp_lock_t at 0x" + Long.toHexString(address)
                        + " names indirect lock #" + index + ", which libomp's lock table does not hold"
                        + read(space).unavailable().map(why -> " (" + why + ")").orElse("")));
    }

    /**
     * The lock of a critical name ({@code kmp_critical_name}, the compiler's {@code .gomp_critical_user_NAME.var}).
     *
     * @throws OmpdException when it cannot be read, was never entered, or points to no lock
     */
    public static Lock criticalName(AddressSpaceHandle space, long address) {
        Reader reader = new Reader(space);
        long word = reader.pointer(address, "critical name at 0x" + Long.toHexString(address));
        if (word == 0) {
            throw new OmpdException(OmpdRc.UNAVAILABLE, "the critical name at 0x" + Long.toHexString(address)
                    + " holds 0: the critical section was never entered");
        }
        if ((word & 1) != 0) {
            return reader.direct(address, word & 0xffffffffL, true);
        }
        LockLayout layout = reader.layout;
        long object = reader.pointer(word + layout.member("kmp_indirect_lock_t", "lock").offset(), "kmp_indirect_lock_t.lock");
        return read(space).byObject(object).orElseGet(() -> reader.indirect(OptionalLong.empty(), object,
                reader.u32(word + layout.member("kmp_indirect_lock_t", "type").offset(), "kmp_indirect_lock_t.type")));
    }

    /** Reads through the layout, checking as it goes. */
    private static final class Reader {
        private final AddressSpaceHandle space;
        private final LockLayout layout = LockLayout.shipped();
        private long[] threadTable;

        Reader(AddressSpaceHandle space) {
            this.space = space;
        }

        List<Lock> table() {
            long table = space.layout().symbolAddress("__kmp_i_lock_table");
            List<Lock> found = new ArrayList<>();
            Set<Long> seenTables = new HashSet<>();
            long base = 0;
            for (int t = 0; table != 0 && t < MAX_TABLES && seenTables.add(table); t++) {
                String path = t == 0 ? "__kmp_i_lock_table" : "__kmp_i_lock_table.next_table[" + t + "]";
                long rows = pointer(table + member("kmp_indirect_lock_table_t", "table").offset(), path + ".table");
                long rowCount = u32(table + member("kmp_indirect_lock_table_t", "nrow_ptrs").offset(), path + ".nrow_ptrs");
                long next = u32(table + member("kmp_indirect_lock_table_t", "next").offset(), path + ".next");
                long capacity = rowCount * layout.chunk();
                if (rowCount > MAX_LOCKS || next > capacity || (rows == 0 && next > 0)) {
                    throw new OmpdException(OmpdRc.ERROR, path + " holds " + rowCount + " rows and next " + next
                            + ": not libomp's lock table (memory corrupt, or another layout)");
                }
                for (long row = 0; row * layout.chunk() < next && found.size() < MAX_LOCKS; row++) {
                    long entries = pointer(rows + row * 8, path + ".table[" + row + "]");
                    int count = (int) Math.min(layout.chunk(), next - row * layout.chunk());
                    if (entries == 0) {
                        continue;
                    }
                    ByteBuffer bytes = block(entries, count * (int) layout.indirectLockSize(), path + ".table[" + row + "]");
                    for (int col = 0; col < count && found.size() < MAX_LOCKS; col++) {
                        int at = col * (int) layout.indirectLockSize();
                        long object = bytes.getLong(at + (int) member("kmp_indirect_lock_t", "lock").offset());
                        int tag = bytes.getInt(at + (int) member("kmp_indirect_lock_t", "type").offset());
                        if (object != 0) {
                            found.add(indirect(OptionalLong.of(base + row * layout.chunk() + col), object, tag));
                        }
                    }
                }
                base += capacity;
                table = pointer(table + member("kmp_indirect_lock_table_t", "next_table").offset(), path + ".next_table");
            }
            return found;
        }

        /** An indirect lock object, decoded by its kind. */
        Lock indirect(OptionalLong index, long object, long tag) {
            String hex = "0x" + Long.toHexString(object);
            Optional<String> kind = layout.indirectKind((int) tag);
            if (kind.isEmpty()) {
                return new Lock(index, object, "unknown", false, Optional.empty(), new Holder.Unknown("its type tag "
                        + tag + " is no lock kind of " + SupportedRuntimes.described()), List.of(), false, "kmp_indirect_lock_t.type " + tag);
            }
            try {
                return switch (kind.get()) {
                    case "queuing", "adaptive", "rtm_queuing", "nested_queuing" -> queuing(index, object, kind.get());
                    case "ticket", "nested_ticket" -> ticket(index, object, kind.get());
                    case "drdpa", "nested_drdpa" -> drdpa(index, object, kind.get());
                    case "nested_tas", "nested_futex" -> {
                        Lock word = direct(object, u32(object, kind.get() + " lock word at " + hex), false);
                        long depth = u32signed(object + member("kmp_base_tas_lock_t", "depth_locked").offset(), "depth_locked");
                        Holder holder = word.holder() instanceof Holder.Owner owner
                                ? new Holder.Owner(owner.gtid(), OptionalLong.of(depth)) : word.holder();
                        yield new Lock(index, object, kind.get(), false, Optional.empty(), holder, List.of(), false,
                                word.evidence() + ", depth " + depth);
                    }
                    default -> new Lock(index, object, kind.get(), false, Optional.empty(),
                            new Holder.Unknown("jompd does not decode " + kind.get() + " locks"), List.of(), false, "");
                };
            } catch (OmpdException e) {
                return new Lock(index, object, kind.get(), false, Optional.empty(), new Holder.Unknown(e.getMessage()),
                        List.of(), false, "");
            }
        }

        private Lock queuing(OptionalLong index, long object, String kind) {
            String type = "kmp_base_queuing_lock_t";
            String hex = "0x" + Long.toHexString(object);
            long self = pointer(object + member(type, "initialized").offset(), kind + " lock at " + hex + ".initialized");
            if (self != object) {
                return new Lock(index, object, kind, false, Optional.empty(), new Holder.Unknown("the " + kind
                        + " lock at " + hex + " does not point to itself (initialized 0x" + Long.toHexString(self)
                        + "): destroyed, or not a lock"), List.of(), false, "");
            }
            long head = u32signed(object + member(type, "head_id").offset(), "head_id");
            long tail = u32signed(object + member(type, "tail_id").offset(), "tail_id");
            long owner = u32signed(object + member(type, "owner_id").offset(), "owner_id");
            long depth = u32signed(object + member(type, "depth_locked").offset(), "depth_locked");
            long flags = u32(object + member(type, "flags").offset(), "flags");
            boolean critical = (flags & layout.criticalSectionFlag()) != 0;
            Optional<String> location = location(pointer(object + member(type, "location").offset(), "location"));
            String evidence = "the " + kind.replace('_', ' ') + " lock at " + hex + ": owner_id " + owner
                    + ", head_id " + head + ", tail_id " + tail + (kind.startsWith("nested") ? ", depth_locked " + depth : "");
            Holder holder;
            if (head == 0) {
                holder = new Holder.Free();
            } else if (owner > 0) {
                holder = owner(owner - 1, kind.startsWith("nested") ? OptionalLong.of(depth) : OptionalLong.empty());
            } else {
                holder = new Holder.Unknown("held (head_id " + head + "), but " + NO_OWNER_RECORDED.formatted(kind));
            }
            List<Long> waiters = new ArrayList<>();
            boolean complete = head <= 0 || queue(head, tail, waiters);
            return new Lock(index, object, kind, critical, location, holder, List.copyOf(waiters), complete, evidence);
        }

        /** The wait queue from head to tail through each waiter's th_next_waiting; false when it breaks off. */
        private boolean queue(long head, long tail, List<Long> waiters) {
            long[] threads = threads();
            Set<Long> seen = new HashSet<>();
            long next = head;
            long nextWaiting = space.layout().offset("kmp_base_info_t", layout.nextWaitingAnchor())
                    + layout.nextWaiting().offset();
            while (next > 0 && next - 1 < threads.length && threads[(int) (next - 1)] != 0 && seen.add(next)
                    && waiters.size() < threads.length) {
                waiters.add(next - 1);
                if (next == tail) {
                    return true;
                }
                long base = Ompd.infoToBase(space, threads[(int) (next - 1)]);
                next = u32signed(base + nextWaiting, "__kmp_threads[" + (next - 1) + "]->th.th_next_waiting");
            }
            return false;
        }

        private Lock ticket(OptionalLong index, long object, String kind) {
            String type = "kmp_base_ticket_lock_t";
            String hex = "0x" + Long.toHexString(object);
            long self = pointer(object + member(type, "self").offset(), kind + " lock at " + hex + ".self");
            if (self != object) {
                return new Lock(index, object, kind, false, Optional.empty(), new Holder.Unknown("the " + kind
                        + " lock at " + hex + " does not point to itself: destroyed, or not a lock"), List.of(), false, "");
            }
            long nextTicket = u32(object + member(type, "next_ticket").offset(), "next_ticket");
            long nowServing = u32(object + member(type, "now_serving").offset(), "now_serving");
            long owner = u32signed(object + member(type, "owner_id").offset(), "owner_id");
            long depth = u32signed(object + member(type, "depth_locked").offset(), "depth_locked");
            boolean critical = (u32(object + member(type, "flags").offset(), "flags") & layout.criticalSectionFlag()) != 0;
            Optional<String> location = location(pointer(object + member(type, "location").offset(), "location"));
            Holder holder = nextTicket == nowServing ? new Holder.Free() : owner > 0
                    ? owner(owner - 1, kind.startsWith("nested") ? OptionalLong.of(depth) : OptionalLong.empty())
                    : new Holder.Unknown("held (ticket " + nowServing + " of " + nextTicket + "), but "
                    + NO_OWNER_RECORDED.formatted(kind));
            return new Lock(index, object, kind, critical, location, holder, List.of(), false, "the " + kind
                    + " lock at " + hex + ": owner_id " + owner + ", now_serving " + nowServing + ", next_ticket " + nextTicket);
        }

        private Lock drdpa(OptionalLong index, long object, String kind) {
            String type = "kmp_base_drdpa_lock_t";
            String hex = "0x" + Long.toHexString(object);
            if (pointer(object + member(type, "initialized").offset(), kind + " lock at " + hex + ".initialized") != object) {
                return new Lock(index, object, kind, false, Optional.empty(), new Holder.Unknown("the " + kind
                        + " lock at " + hex + " does not point to itself: destroyed, or not a lock"), List.of(), false, "");
            }
            long owner = u32signed(object + member(type, "owner_id").offset(), "owner_id");
            long depth = u32signed(object + member(type, "depth_locked").offset(), "depth_locked");
            boolean critical = (u32(object + member(type, "flags").offset(), "flags") & layout.criticalSectionFlag()) != 0;
            Holder holder = owner > 0 ? owner(owner - 1, kind.startsWith("nested") ? OptionalLong.of(depth) : OptionalLong.empty())
                    : new Holder.Unknown("a drdpa lock's owner_id is 0 both when it is free and, without "
                    + "KMP_CONSISTENCY_CHECK, when a simple one is held");
            return new Lock(index, object, kind, critical, location(pointer(object + member(type, "location").offset(),
                    "location")), holder, List.of(), false, "the " + kind + " lock at " + hex + ": owner_id " + owner);
        }

        /** A direct lock word (tas, futex, …): the tag in the low bits, the owner above. */
        Lock direct(long address, long word, boolean critical) {
            String hex = "0x" + Long.toHexString(address);
            int tag = (int) (word & ((1 << layout.shift()) - 1));
            long value = word >>> layout.shift();
            Optional<String> kind = layout.directKind(tag);
            String evidence = "lock word 0x" + Long.toHexString(word) + " at " + hex;
            if (kind.isEmpty()) {
                return new Lock(OptionalLong.empty(), address, "unknown", critical, Optional.empty(),
                        new Holder.Unknown("its tag " + tag + " is no direct lock kind of " + SupportedRuntimes.described()), List.of(), false, evidence);
            }
            Holder holder = switch (kind.get()) {
                case "tas" -> value == 0 ? new Holder.Free() : owner(value - 1, OptionalLong.empty());
                case "futex" -> value == 0 ? new Holder.Free() : owner((value >>> 1) - 1, OptionalLong.empty());
                default -> new Holder.Unknown("a " + kind.get() + " lock word records no owner");
            };
            return new Lock(OptionalLong.empty(), address, kind.get(), critical, Optional.empty(), holder, List.of(),
                    false, evidence + " (" + kind.get() + (holder instanceof Holder.Owner o ? ", owner gtid " + o.gtid() : "") + ")");
        }

        /** An owner gtid, believed only when it is a live thread of __kmp_threads. */
        private Holder owner(long gtid, OptionalLong depth) {
            long[] threads = threads();
            if (gtid < 0 || gtid >= threads.length || threads[(int) gtid] == 0) {
                return new Holder.Unknown("the lock names gtid " + gtid + ", which is no thread of __kmp_threads");
            }
            return new Holder.Owner(gtid, depth);
        }

        /** ident_t.psource ";file;function;line;column;;" as file:line. */
        private Optional<String> location(long ident) {
            if (ident == 0) {
                return Optional.empty();
            }
            try {
                long source = space.memory().readPointer(ident + member("ident_t", "psource").offset());
                if (source == 0) {
                    return Optional.empty();
                }
                String[] parts = space.memory().readCString(source, 512).split(";", -1);
                if (parts.length < 4 || parts[1].isEmpty() || !parts[3].matches("\\d+")) {
                    return Optional.empty();
                }
                return Optional.of(parts[1].substring(parts[1].lastIndexOf('/') + 1) + ":" + parts[3]);
            } catch (TargetException unreadable) {
                return Optional.empty();
            }
        }

        private long[] threads() {
            if (threadTable == null) {
                threadTable = Ompd.threadTable(space);
            }
            return threadTable;
        }

        private Member member(String type, String field) {
            return layout.member(type, field);
        }

        long u32(long address, String what) {
            try {
                return space.memory().readUnsigned(address, 4);
            } catch (TargetException e) {
                throw space.readError("cannot read " + what + " at 0x" + Long.toHexString(address), e);
            }
        }

        long u32signed(long address, String what) {
            return (int) u32(address, what);
        }

        long pointer(long address, String what) {
            try {
                return space.memory().readPointer(address);
            } catch (TargetException e) {
                throw space.readError("cannot read " + what + " at 0x" + Long.toHexString(address), e);
            }
        }

        private ByteBuffer block(long address, int length, String what) {
            try {
                return ByteBuffer.wrap(space.memory().read(address, length)).order(space.memory().architecture().byteOrder());
            } catch (TargetException e) {
                throw space.readError("cannot read " + what + " at 0x" + Long.toHexString(address), e);
            }
        }
    }
}
