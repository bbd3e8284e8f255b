package dev.jompd.report;

import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.Diagnosis.Involved;
import dev.jompd.report.Diagnosis.Role;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.ThreadWait.Kind;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Per team, the threads waiting to enter an {@code ordered} region and the team's threads that are not: libomp
 * lets the ordered regions of a loop run in iteration order ({@code __kmpc_ordered} spins until the loop's shared
 * ordered iteration reaches the thread's own), so the waiters wait for a thread whose iteration comes first — one
 * of those not waiting there. Which one is not said: its iteration lives in libomp's dispatch buffers, which
 * jompd does not read.
 */
final class OrderedFindings {
    private OrderedFindings() {}

    static List<Finding> of(OpenMpPicture picture, Map<Long, ThreadWait> waits, Naming naming) {
        List<Finding> findings = new ArrayList<>();
        for (ParallelRegion region : picture.regions()) {
            if (region.level() == 0 || region.ended()) {
                continue;
            }
            List<ThreadWait> members = picture.members(Optional.of(region.id())).stream()
                    .map(t -> waits.get(t.gtid())).toList();
            List<ThreadWait> waiting = members.stream().filter(w -> w.kind() == Kind.ORDERED).toList();
            if (waiting.isEmpty()) {
                continue;
            }
            Optional<ThreadWait.Place> place = waiting.stream().map(ThreadWait::at).flatMap(Optional::stream)
                    .collect(Collectors.groupingBy(ThreadWait.Place::describe)).values().stream()
                    .max((a, b) -> Integer.compare(a.size(), b.size())).map(List::getFirst);
            List<String> evidence = new ArrayList<>();
            List<Involved> involved = new ArrayList<>();
            for (ThreadWait w : waiting) {
                evidence.add(naming.thread(w.thread()) + ": waits to enter the ordered region" + w.at()
                        .map(p -> " at " + p.line()).orElse("") + " (" + w.evidence() + ")");
                involved.add(Involved.of(w, Role.WAITS_IN_ORDERED, w.at()));
            }
            List<String> others = new ArrayList<>();
            for (ThreadWait w : members) {
                if (w.kind() == Kind.ORDERED) {
                    continue;
                }
                others.add("thread " + w.thread().threadNum() + " " + w.describe());
                evidence.add(naming.thread(w.thread()) + ": not waiting in the ordered region, " + w.describe()
                        + " (" + w.evidence() + ")");
                involved.add(Involved.of(w, Role.NOT_IN_ORDERED, w.kind() == Kind.NONE ? w.innermost()
                        : w.at().or(w::innermost)));
            }
            String team = "team " + region.id() + " (" + region.describe()
                    + (region.teamPath().isEmpty() ? "" : ", team path " + region.path()) + ")";
            String where = place.map(p -> p.source().isPresent() ? " at " + p.line() : " " + p.line()).orElse("");
            String summary = team + ": " + waiting.size() + " of " + region.teamSize() + " threads wait to enter the "
                    + "ordered region" + where + ", which runs in iteration order"
                    + (others.isEmpty() ? "; every thread of the team waits there"
                    : "; they wait for the thread whose iteration comes next, one of those not waiting there: "
                      + String.join("; ", others));
            findings.add(new Finding(FindingKind.ORDERED, summary, evidence, place.map(ThreadWait.Place::describe),
                    involved));
        }
        return findings;
    }
}
