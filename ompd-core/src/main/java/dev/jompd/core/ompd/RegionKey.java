package dev.jompd.core.ompd;

/**
 * Which parallel region (or serialized level) a value of a snapshot belongs to, as OMPD compares region
 * handles: the team's address and the lightweight team holding a serialized level (0: the team's own
 * level). A value that outlives the stop, unlike the handle.
 */
public record RegionKey(long team, long lightweight) {
    public static RegionKey of(ParallelHandle region) {
        return new RegionKey(region.teamAddress(), region.lightweightTeam());
    }
}
