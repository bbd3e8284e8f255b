package dev.jompd.core.ompd;

/**
 * Which task a value of a snapshot belongs to: the task's address and the lightweight team whose implicit
 * task it is (0: a task of its own). A value that outlives the stop, unlike the handle.
 */
public record TaskKey(long address, long lightweight) {
    // equals and hashCode written out: a record's generated ones are bootstrapped at first use (cold start); the hash
    // is the generated one's (so hashed collections keep their order)
    @Override
    public boolean equals(Object other) {
        return other instanceof TaskKey k && address == k.address && lightweight == k.lightweight;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(address) * 31 + Long.hashCode(lightweight);
    }
}
