package dev.jompd.core.ompd;

/**
 * Which parallel region (or serialized level) a value of a snapshot belongs to, as OMPD compares region
 * handles: the team's address and the lightweight team holding a serialized level (0: the team's own
 * level). A value that outlives the stop, unlike the handle.
 */
public record RegionKey(long team, long lightweight) {
    // equals and hashCode written out: a record's generated ones are bootstrapped at first use (cold start); the hash
    // is the generated one's (so hashed collections keep their order)
    @Override
    public boolean equals(Object other) {
        return other instanceof RegionKey k && team == k.team && lightweight == k.lightweight;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(team) * 31 + Long.hashCode(lightweight);
    }

    public static RegionKey of(ParallelHandle region) {
        return new RegionKey(region.teamAddress(), region.lightweightTeam());
    }
}
