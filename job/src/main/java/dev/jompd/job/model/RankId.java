package dev.jompd.job.model;

import java.util.OptionalInt;

/**
 * Who a process of a job is: its MPI rank (empty when nothing said which), the node it runs on and its
 * pid there (0 for a core file, whose name is in {@code source}).
 */
public record RankId(OptionalInt rank, String host, long pid, String source) {
    /** A live process: its source is {@code pid PID}. */
    public static RankId live(OptionalInt rank, String host, long pid) {
        return new RankId(rank, host, pid, "pid " + pid);
    }

    /** A core file ({@code host} empty when nothing in the core names its node). */
    public static RankId core(OptionalInt rank, String host, java.nio.file.Path core) {
        return new RankId(rank, host, 0, core.toString());
    }
}
