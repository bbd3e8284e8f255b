package dev.jompd.core.ompd;

import java.util.Locale;
import java.util.Optional;

/**
 * libomp's lock kinds ({@code kmp_dyna_lockseq_t}, {@code kmp_indirect_locktag_t} in kmp_lock.h) and how jompd
 * decodes each. Which tag names which kind is data: the {@code direct.*} and {@code indirect.*} rows of
 * {@code libomp-locks.layout}, read into {@link LockLayout} by these constants' {@link #cName() names}.
 */
public enum LockKind {
    TAS(Decoding.TAS_WORD, false),
    FUTEX(Decoding.FUTEX_WORD, false),
    HLE(Decoding.NO_OWNER, false),
    RTM_SPIN(Decoding.NO_OWNER, false),
    TICKET(Decoding.TICKET, false),
    QUEUING(Decoding.QUEUING, false),
    ADAPTIVE(Decoding.QUEUING, false),
    DRDPA(Decoding.DRDPA, false),
    RTM_QUEUING(Decoding.QUEUING, false),
    NESTED_TAS(Decoding.TAS_WORD, true),
    NESTED_FUTEX(Decoding.FUTEX_WORD, true),
    NESTED_TICKET(Decoding.TICKET, true),
    NESTED_QUEUING(Decoding.QUEUING, true),
    NESTED_DRDPA(Decoding.DRDPA, true),
    /** A tag no kind of the layout names (memory corrupt, or another libomp). */
    UNKNOWN(Decoding.NO_OWNER, false);

    /** How a lock of a kind is read: its struct, where it points to itself, and where its owner is. */
    public enum Decoding {
        /** A word: tag in the low bits, owner gtid + 1 above (a direct lock, or a nested tas lock's poll). */
        TAS_WORD(null, null),
        /** A word: tag in the low bits, (owner gtid + 1) &lt;&lt; 1 above. */
        FUTEX_WORD(null, null),
        /** {@code kmp_base_queuing_lock_t}: owner, and a wait queue through the threads' th_next_waiting. */
        QUEUING("kmp_base_queuing_lock_t", "initialized"),
        /** {@code kmp_base_ticket_lock_t}: held while next_ticket != now_serving. */
        TICKET("kmp_base_ticket_lock_t", "self"),
        /** {@code kmp_base_drdpa_lock_t}: only its owner_id tells. */
        DRDPA("kmp_base_drdpa_lock_t", "initialized"),
        /** Records no owner jompd can read. */
        NO_OWNER(null, null);

        private final String struct;
        private final String selfField;

        Decoding(String struct, String selfField) {
            this.struct = struct;
            this.selfField = selfField;
        }

        /** The lock object's struct (kmp_lock.h), for the kinds that are objects with an owner_id. */
        public Optional<String> struct() {
            return Optional.ofNullable(struct);
        }

        /** The member that points to the lock itself while it is initialised: what confirms a lock object. */
        public Optional<String> selfField() {
            return Optional.ofNullable(selfField);
        }
    }

    private final Decoding decoding;
    private final boolean nested;

    LockKind(Decoding decoding, boolean nested) {
        this.decoding = decoding;
        this.nested = nested;
    }

    public Decoding decoding() {
        return decoding;
    }

    /** A nested lock ({@code omp_nest_lock_t}): it keeps its owner and a depth. */
    public boolean nested() {
        return nested;
    }

    /** The name kmp_lock.h gives it after {@code lockseq_} / {@code locktag_} ({@code nested_queuing}). */
    public String cName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** In words: "nested queuing". */
    public String words() {
        return cName().replace('_', ' ');
    }

    /** The kind kmp_lock.h names {@code name}, if jompd knows it. */
    public static Optional<LockKind> named(String name) {
        for (LockKind kind : values()) {
            if (kind != UNKNOWN && kind.cName().equals(name)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return cName();
    }
}
