package dev.jompd.report;

import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.Diagnosis.Involved;
import dev.jompd.report.Diagnosis.Role;
import dev.jompd.report.ThreadWait.Kind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A possible deadlock where no cycle can be shown: every OpenMP thread of the process waits (for a lock, a critical
 * section, at a barrier, …, or idles in libomp's pool) and at least one waits for a lock or critical section. No
 * OpenMP thread runs code that could release a lock, so nothing will move; which thread holds which lock is not
 * known when libomp records no owners (its default locks keep none), so the cycle the waits close cannot be drawn and
 * the finding says so, with what would show it. A proven cycle ({@link LockFindings}'s deadlock) makes this moot.
 */
final class StallFindings {
    private StallFindings() {}

    static List<Finding> of(OpenMpPicture picture, Map<Long, ThreadWait> waits, List<Finding> found, Naming naming) {
        if (waits.isEmpty() || found.stream().anyMatch(f -> f.kind() == FindingKind.DEADLOCK)) {
            return List.of();
        }
        boolean everyThreadWaits = waits.values().stream().allMatch(w -> w.kind() != Kind.NONE
                && w.kind() != Kind.TASKYIELD);
        List<ThreadWait> forLocks = waits.values().stream()
                .filter(w -> w.kind() == Kind.LOCK || w.kind() == Kind.CRITICAL).toList();
        if (!everyThreadWaits || forLocks.isEmpty()) {
            return List.of();
        }
        List<String> evidence = new ArrayList<>();
        List<Involved> involved = new ArrayList<>();
        for (ThreadWait w : waits.values()) {
            evidence.add(naming.thread(w.thread()) + ": " + w.describe() + " (" + w.evidence() + ")");
            if (w.kind() == Kind.LOCK || w.kind() == Kind.CRITICAL) {
                involved.add(Involved.of(w, Role.IN_CYCLE, w.kind().words(), w.at().or(w::innermost)));
            }
        }
        String summary = "possible deadlock: every OpenMP thread of the process waits (" + forLocks.size() + " of "
                + waits.size() + " for a lock or a critical section) and none runs code that could release one; "
                + "which thread holds which lock libomp does not record here, so the cycle cannot be shown (run the "
                + "program with KMP_CONSISTENCY_CHECK=all, or under the jompd-recorder, to see the holders)";
        return List.of(new Finding(FindingKind.POSSIBLE_DEADLOCK, summary, evidence,
                forLocks.getFirst().at().map(ThreadWait.Place::describe), involved));
    }
}
