package dev.jompd.job.model;

import dev.jompd.report.Diagnosis;
import dev.jompd.report.Naming;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.TargetSession;

import java.util.List;
import java.util.Optional;

/** What one rank looked like when it was inspected, or why it could not be seen. */
public sealed interface RankInspection {
    RankId id();

    /**
     * The rank was read: its OpenMP picture, its threads' stacks (when unwound) and the hang diagnosis in the job's
     * words ({@link Naming#JOB}: threads by place, locks by the program's names, no LWPs or addresses).
     */
    record Seen(RankId id, OpenMpPicture picture, Optional<ParallelStacks> stacks,
                List<Diagnosis.Finding> findings) implements RankInspection {
        /** Rank {@code id} as the report's one inspection took it, with its diagnosis in the job's words. */
        public static Seen of(RankId id, TargetSession.Inspection inspection) {
            return new Seen(id, inspection.picture(), inspection.stacks(), inspection.findings(Naming.JOB));
        }
    }

    /** The rank was not read; {@code detail} says exactly why, in words a user can act on. */
    record Missing(RankId id, MissingReason reason, String detail) implements RankInspection {
    }

    /** Why a rank is missing from a job picture. */
    enum MissingReason {
        /** its node did not answer within the timeout */
        NO_ANSWER,
        /** the process exited before or while it was read */
        EXITED,
        /** ptrace refused (another user's process, Yama ptrace_scope) */
        PERMISSION_DENIED,
        /** another tracer (a debugger, a second inspector) holds the process */
        ALREADY_TRACED,
        /** the process sat in uninterruptible sleep and did not stop in time */
        UNINTERRUPTIBLE,
        /** the core file is cut short or damaged */
        DAMAGED_CORE,
        /** no OpenMP runtime in the process, or not initialised yet */
        NOT_OPENMP,
        /** anything else jompd could not read (the detail says what) */
        UNREADABLE
    }
}
