package dev.jompd.job.sources;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where a job's ranks are found: each kind of source is one record, and {@link Jobs#summarize} the one place that
 * knows how each is read.
 */
public sealed interface JobSource {
    /** How the job is named to people (the HTML page's title). */
    String title();

    /** Core files, one per rank: a directory or a glob; {@code executable} when the cores' own record is not the program. */
    record Cores(String pattern, Optional<Path> executable) implements JobSource {
        @Override
        public String title() {
            return "cores " + pattern;
        }
    }

    /** The ranks' processes on this host (their ranks from their environments). */
    record Pids(List<Long> pids) implements JobSource {
        public Pids {
            pids = List.copyOf(pids);
        }

        @Override
        public String title() {
            return "ranks " + pids;
        }
    }

    /** The job's launcher (mpirun, mpiexec, srun): its ranks from its MPIR process table. */
    record Mpirun(long launcher) implements JobSource {
        @Override
        public String title() {
            return "mpirun " + launcher;
        }
    }

    /** A running Slurm job (its first step) or job step, {@code JOBID[.STEP]}: one agent per node. */
    record SlurmStep(String step) implements JobSource {
        @Override
        public String title() {
            return "Slurm job " + step;
        }
    }
}
