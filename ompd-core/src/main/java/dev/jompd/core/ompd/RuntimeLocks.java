package dev.jompd.core.ompd;

import dev.jompd.core.target.TargetException;

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

    /**
     * Why a held simple lock has no owner, in the user's words, and what the user can do about it (the lock's
     * words, head_id and the like, are the finding's evidence).
     */
    public static final String NO_OWNER_RECORDED = "it is held, but libomp does not record its owner for this lock "
            + "kind (a simple %s lock; nested locks and tas/futex locks keep their owner, and every lock does when "
            + "the program runs with KMP_CONSISTENCY_CHECK=all)";

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
     * @param kind           libomp's kind ({@link LockKind#UNKNOWN} for a tag no kind names)
     * @param critical       a critical section's lock (libomp's {@code kmp_lf_critical_section} flag)
     * @param location       where the runtime says it was made ({@code file:line} of a critical construct)
     * @param waiters        gtids in its wait queue, first first (queuing kinds only)
     * @param waitersComplete whether that queue was walked to its tail
     * @param evidence       the words read, for the finding's evidence
     */
    public record Lock(OptionalLong index, long object, LockKind kind, boolean critical, Optional<String> location,
                       Holder holder, List<Long> waiters, boolean waitersComplete, String evidence) {
        /** "queuing lock #3 at 0x7f…" or "critical section (critical_barrier.c:40), queuing lock #0 at 0x…". */
        public String describe() {
            return describe(runtimeObject());
        }

        /** {@link #describe()} with the runtime's object said as {@code object} (without its address: {@link #runtimeLock()}). */
        public String describe(String object) {
            return critical ? "critical section" + location.map(l -> " at " + l).orElse("") + " (" + object + ")" : object;
        }

        /** The runtime's object: "queuing lock #3 at 0x7f…". */
        public String runtimeObject() {
            return runtimeLock() + " at 0x" + Long.toHexString(object);
        }

        /** The runtime's object without its address (another in every run): "queuing lock #3". */
        public String runtimeLock() {
            return kind.words() + " lock" + (index.isPresent() ? " #" + index.getAsLong() : "");
        }

        public boolean nested() {
            return kind.nested();
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
                return new RuntimeLocks(List.of(), Optional.of(OmpdException.words(e)));
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
        // libomp: *(kmp_dyna_lock_t *)user_lock
        long word = space.at(address, null, "omp_lock_t@0x" + Long.toHexString(address)).asUnsigned(4);
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

    /** Reads through the layout, checking as it goes. */
    private static final class Reader {
        private static final String TABLE = "kmp_indirect_lock_table_t";
        private static final String ENTRY = "kmp_indirect_lock_t";

        private final AddressSpaceHandle space;
        private final LockLayout layout = LockLayout.shipped();
        private final long pointerSize;
        private long[] threadTable;

        Reader(AddressSpaceHandle space) {
            this.space = space;
            this.pointerSize = space.memory().architecture().pointerSize();
        }

        List<Lock> table() {
            // libomp: __kmp_i_lock_table, then each ->next_table
            RemoteValue table = space.global("__kmp_i_lock_table", null);
            List<Lock> found = new ArrayList<>();
            Set<Long> seenTables = new HashSet<>();
            long base = 0;
            for (int t = 0; t < MAX_TABLES && seenTables.add(table.address()); t++) {
                long rowCount = member(table, TABLE, "nrow_ptrs").asUnsigned();
                long next = member(table, TABLE, "next").asUnsigned();
                RemoteValue rows = member(table, TABLE, "table");
                long capacity = rowCount * layout.chunk();
                if (rowCount > MAX_LOCKS || next > capacity || (rows.pointerValue() == 0 && next > 0)) {
                    throw new OmpdException(OmpdRc.ERROR, table.path() + " holds " + rowCount + " rows and next " + next
                            + ": not libomp's lock table (memory corrupt, or another layout)");
                }
                for (long row = 0; row * layout.chunk() < next && found.size() < MAX_LOCKS; row++) {
                    // libomp: table->table[row], an array of kmp_indirect_lock_t
                    RemoteValue entries = rows.deref(null).element(row, pointerSize, null);
                    if (entries.pointerValue() == 0) {
                        continue;
                    }
                    int count = (int) Math.min(layout.chunk(), next - row * layout.chunk());
                    RemoteValue rowEntries = entries.deref(null);
                    for (int col = 0; col < count && found.size() < MAX_LOCKS; col++) {
                        // libomp: table->table[row][col].lock and .type
                        RemoteValue entry = rowEntries.element(col, layout.indirectLockSize(), null);
                        long object = member(entry, ENTRY, "lock").pointerValue();
                        if (object != 0) {
                            found.add(indirect(OptionalLong.of(base + row * layout.chunk() + col), object,
                                    member(entry, ENTRY, "type").asLong()));
                        }
                    }
                }
                base += capacity;
                RemoteValue nextTable = member(table, TABLE, "next_table");
                if (nextTable.pointerValue() == 0) {
                    break;
                }
                table = nextTable.deref(TABLE);
            }
            return found;
        }

        /** An indirect lock object, decoded by its kind. */
        Lock indirect(OptionalLong index, long object, long tag) {
            Optional<LockKind> known = layout.indirectKind((int) tag);
            if (known.isEmpty() || tag != (int) tag) {
                return new Lock(index, object, LockKind.UNKNOWN, false, Optional.empty(), new Holder.Unknown("its type tag "
                        + tag + " is no lock kind of " + SupportedRuntimes.described()), List.of(), false, "kmp_indirect_lock_t.type " + tag);
            }
            LockKind kind = known.get();
            try {
                return switch (kind.decoding()) {
                    case QUEUING, TICKET, DRDPA -> lockObject(index, object, kind);
                    case TAS_WORD, FUTEX_WORD -> {
                        // libomp: ((kmp_tas_lock_t *)lock)->lk.poll and .depth_locked (futex: the same places)
                        RemoteValue lock = space.at(object, null, kind + " lock@0x" + Long.toHexString(object));
                        Lock word = direct(object, member(lock, "kmp_base_tas_lock_t", "poll").asUnsigned(), false);
                        long depth = member(lock, "kmp_base_tas_lock_t", "depth_locked").asLong();
                        Holder holder = word.holder() instanceof Holder.Owner owner
                                ? new Holder.Owner(owner.gtid(), OptionalLong.of(depth)) : word.holder();
                        yield new Lock(index, object, kind, false, Optional.empty(), holder, List.of(), false,
                                word.evidence() + ", depth " + depth);
                    }
                    case NO_OWNER -> new Lock(index, object, kind, false, Optional.empty(),
                            new Holder.Unknown("jompd does not decode " + kind + " locks"), List.of(), false, "");
                };
            } catch (OmpdException e) {
                return new Lock(index, object, kind, false, Optional.empty(), new Holder.Unknown(OmpdException.words(e)),
                        List.of(), false, "");
            }
        }

        /**
         * A queuing, ticket or drdpa lock object (and the kinds laid out as one): it must point to itself; its
         * owner_id is gtid + 1, 0 when none is recorded; what tells a held lock from a free one is its kind's.
         */
        private Lock lockObject(OptionalLong index, long object, LockKind kind) {
            String type = kind.decoding().struct().orElseThrow();
            String hex = "0x" + Long.toHexString(object);
            // libomp: ((kmp_queuing_lock_t *)lock)->lk (ticket, drdpa: the same)
            RemoteValue lock = space.at(object, null, kind + " lock@" + hex);
            long self = member(lock, type, kind.decoding().selfField().orElseThrow()).pointerValue();
            if (self != object) {
                return new Lock(index, object, kind, false, Optional.empty(), new Holder.Unknown("the " + kind
                        + " lock at " + hex + " does not point to itself (" + kind.decoding().selfField().get() + " 0x"
                        + Long.toHexString(self) + "): destroyed, or not a lock"), List.of(), false, "");
            }
            long owner = member(lock, type, "owner_id").asLong();
            long depth = member(lock, type, "depth_locked").asLong();
            boolean critical = (member(lock, type, "flags").asUnsigned() & layout.criticalSectionFlag()) != 0;
            Optional<String> location = location(member(lock, type, "location").pointerValue());
            OptionalLong ownDepth = kind.nested() ? OptionalLong.of(depth) : OptionalLong.empty();
            String evidence = "the " + kind + " lock at " + hex + ": owner_id " + owner;
            return switch (kind.decoding()) {
                case QUEUING -> {
                    long head = member(lock, type, "head_id").asLong();
                    long tail = member(lock, type, "tail_id").asLong();
                    Holder holder = head == 0 ? new Holder.Free() : owner > 0 ? owner(owner - 1, ownDepth)
                            : new Holder.Unknown(NO_OWNER_RECORDED.formatted(kind));
                    List<Long> waiters = new ArrayList<>();
                    boolean complete = head <= 0 || queue(head, tail, waiters);
                    yield new Lock(index, object, kind, critical, location, holder, List.copyOf(waiters), complete,
                            "the " + kind.words() + " lock at " + hex + ": owner_id " + owner + ", head_id " + head
                                    + ", tail_id " + tail + (kind.nested() ? ", depth_locked " + depth : ""));
                }
                case TICKET -> {
                    long nextTicket = member(lock, type, "next_ticket").asUnsigned();
                    long nowServing = member(lock, type, "now_serving").asUnsigned();
                    Holder holder = nextTicket == nowServing ? new Holder.Free() : owner > 0 ? owner(owner - 1, ownDepth)
                            : new Holder.Unknown(NO_OWNER_RECORDED.formatted(kind));
                    yield new Lock(index, object, kind, critical, location, holder, List.of(), false,
                            evidence + ", now_serving " + nowServing + ", next_ticket " + nextTicket);
                }
                default -> new Lock(index, object, kind, critical, location, owner > 0 ? owner(owner - 1, ownDepth)
                        : new Holder.Unknown("libomp does not record whether a simple drdpa lock is held, nor by "
                        + "whom (it does when the program runs with KMP_CONSISTENCY_CHECK=all)"), List.of(), false, evidence);
            };
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
                // libomp: __kmp_threads[next - 1]->th.th_next_waiting (placed after a breadcrumbed member)
                long gtid = next - 1;
                next = space.at(Ompd.infoToBase(space, threads[(int) gtid]) + nextWaiting, null,
                        "__kmp_threads[" + gtid + "]->th.th_next_waiting").asLong(layout.nextWaiting().size());
            }
            return false;
        }

        /** A direct lock word (tas, futex, …): the tag in the low bits, the owner above. */
        Lock direct(long address, long word, boolean critical) {
            String hex = "0x" + Long.toHexString(address);
            int tag = (int) (word & ((1 << layout.shift()) - 1));
            long value = word >>> layout.shift();
            Optional<LockKind> kind = layout.directKind(tag);
            String evidence = "lock word 0x" + Long.toHexString(word) + " at " + hex;
            if (kind.isEmpty()) {
                return new Lock(OptionalLong.empty(), address, LockKind.UNKNOWN, critical, Optional.empty(),
                        new Holder.Unknown("its tag " + tag + " is no direct lock kind of " + SupportedRuntimes.described()), List.of(), false, evidence);
            }
            Holder holder = switch (kind.get().decoding()) {
                case TAS_WORD -> value == 0 ? new Holder.Free() : owner(value - 1, OptionalLong.empty());
                case FUTEX_WORD -> value == 0 ? new Holder.Free() : owner((value >>> 1) - 1, OptionalLong.empty());
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
                // libomp: lock->lk.location->psource
                RemoteValue source = member(space.at(ident, null, "ident@0x" + Long.toHexString(ident)), "ident_t", "psource");
                String[] parts = source.asCString(512).orElse("").split(";", -1);
                if (parts.length < 4 || parts[1].isEmpty() || !parts[3].matches("\\d+")) {
                    return Optional.empty();
                }
                return Optional.of(parts[1].substring(parts[1].lastIndexOf('/') + 1) + ":" + parts[3]);
            } catch (TargetException | OmpdException unreadable) {
                return Optional.empty();
            }
        }

        private long[] threads() {
            if (threadTable == null) {
                threadTable = Ompd.threadTable(space);
            }
            return threadTable;
        }

        /** {@code value.field}, seen as {@code type}, placed by the lock layout. */
        private RemoteValue member(RemoteValue value, String type, String field) {
            return value.field(field, layout.member(type, field));
        }
    }
}
