package dev.jompd.job.model;

import java.util.OptionalInt;

/**
 * Who a process of a job is: its MPI rank (empty when nothing said which), the node it runs on and its
 * pid there (0 for a core file, whose name is in {@code source}).
 */
public record RankId(OptionalInt rank, String host, long pid, String source) {
}
