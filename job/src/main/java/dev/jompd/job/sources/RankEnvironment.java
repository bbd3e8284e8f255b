package dev.jompd.job.sources;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A process's MPI rank from its environment, as the launchers set it: Open MPI's {@code OMPI_COMM_WORLD_RANK},
 * then PMIx's {@code PMIX_RANK}, MPICH's {@code PMI_RANK}, and last Slurm's {@code SLURM_PROCID} (the rank only
 * for a direct srun launch: under mpirun's orted it is the daemon's index, but then the others are set).
 */
public final class RankEnvironment {
    static final List<String> RANK_VARIABLES = List.of("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID");

    private RankEnvironment() {}

    /** The rank the environment gives, and which variable gave it. */
    public static Optional<CoreFiles.RankSource> rank(Map<String, String> environment) {
        for (String variable : RANK_VARIABLES) {
            String value = environment.get(variable);
            if (value != null && value.matches("\\d{1,9}")) {
                return Optional.of(new CoreFiles.RankSource(OptionalInt.of(Integer.parseInt(value)), variable));
            }
        }
        return Optional.empty();
    }

    /**
     * The node a process ran on, as its environment names it: Slurm's {@code SLURMD_NODENAME}, else {@code HOSTNAME}
     * when the shell exported it; empty when neither is set (a core of a process started by hand: no node known).
     */
    public static Optional<String> node(Map<String, String> environment) {
        for (String variable : List.of("SLURMD_NODENAME", "HOSTNAME")) {
            String value = environment.get(variable);
            if (value != null && !value.isBlank()) {
                return Optional.of(value.strip());
            }
        }
        return Optional.empty();
    }

    /** The environment a live process started with ({@code /proc/PID/environ}); empty when unreadable. */
    public static Map<String, String> of(long pid) {
        Map<String, String> environment = new LinkedHashMap<>();
        try {
            byte[] bytes = Files.readAllBytes(Path.of("/proc/" + pid + "/environ"));
            for (String entry : new String(bytes, StandardCharsets.UTF_8).split("\0")) {
                int equals = entry.indexOf('=');
                if (equals > 0) {
                    environment.putIfAbsent(entry.substring(0, equals), entry.substring(equals + 1));
                }
            }
        } catch (IOException | RuntimeException e) {
            // another user's process, or gone: no rank from here
        }
        return environment;
    }

    /** A live process's rank, when its environment gives one. */
    public static OptionalInt rankOf(long pid) {
        return rank(of(pid)).map(CoreFiles.RankSource::rank).orElse(OptionalInt.empty());
    }
}
