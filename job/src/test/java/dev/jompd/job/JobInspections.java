package dev.jompd.job;

import dev.jompd.core.target.AddressSpace;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.report.TargetSession;

/**
 * One rank's inspection by the report's one inspection, {@link TargetSession}, as the job's {@link RankInspector}
 * takes it (for tests and benchmarks that hold an opened space; the session closes it, which the holder may again).
 */
public final class JobInspections {
    private JobInspections() {}

    public static RankInspection.Seen inspect(AddressSpace space, RankId id, String kind, String name) {
        try (TargetSession session = new TargetSession(space, kind, name)) {
            return RankInspection.Seen.of(id, session.inspect(true));
        }
    }
}
