package dev.jompd.report;

import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.Diagnosis.Involved;
import dev.jompd.report.Diagnosis.Role;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.ThreadWait.Kind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Per team, who reached its barrier and who did not: the barrier's place (the user's line the waiting threads
 * entered it from, or for the implicit barrier the region's code), and for each thread number of the team
 * that is not there, where that thread is. A thread number the team has but no thread shows in this team is
 * looked for in the team tree: the primary thread of a nested team that has not ended cannot be at the
 * enclosing team's barrier, and the finding says so (the nested team's own finding says why it has not ended).
 */
final class BarrierFindings {
    private BarrierFindings() {}

    static List<Finding> of(OpenMpPicture picture, Map<Long, ThreadWait> waits) {
        List<Finding> findings = new ArrayList<>();
        for (ParallelRegion region : picture.regions()) {
            if (region.level() == 0 || region.teamSize() <= 1 || region.ended()) {
                continue; // the initial task's level, a serialized region, a region over: nobody to wait for
            }
            List<ThreadWait> members = picture.members(Optional.of(region.id())).stream()
                    .map(t -> waits.get(t.gtid())).toList();
            // libomp's workers pass the implicit barrier at the end of a region with its arrival only and then
            // wait in the fork barrier for the next region: such a thread of a team whose primary thread is still
            // in the region has arrived at the implicit barrier (with OMP_DEBUG its state says so too)
            boolean primaryInRegion = members.stream().anyMatch(w -> w.thread().threadNum() == 0
                    && w.kind() != Kind.IDLE);
            java.util.function.Predicate<ThreadWait> hasArrived = w -> w.kind().atBarrier()
                    || (w.kind() == Kind.IDLE && primaryInRegion);
            List<ThreadWait> arrived = members.stream().filter(hasArrived).toList();
            if (arrived.isEmpty()) {
                continue;
            }
            String barrier = barrierPlace(region, arrived);
            List<Involved> involved = new ArrayList<>();
            List<String> evidence = new ArrayList<>();
            for (ThreadWait w : arrived) {
                String what = w.kind() == Kind.TASK_AT_BARRIER ? "has reached the barrier and runs a task from it, "
                        + w.where() : w.kind() == Kind.IDLE ? "at the barrier: done with the region's code, it "
                        + "waits in libomp's fork barrier (a worker passes the implicit barrier with its arrival)"
                        : "at the barrier";
                evidence.add(Diagnosis.who(w.thread()) + ": " + what + " (" + w.evidence() + ")");
                involved.add(Involved.of(w, w.kind() == Kind.TASK_AT_BARRIER ? Role.RUNS_TASK_AT_BARRIER
                        : Role.AT_BARRIER, w.innermost()));
            }
            // every thread number of the team: a member here, the primary thread of a nested team, or unseen
            Map<Long, ThreadWait> byNumber = members.stream().collect(Collectors.toMap(w -> w.thread().threadNum(),
                    Function.identity(), (a, b) -> a, LinkedHashMap::new));
            List<String> missing = new ArrayList<>();
            for (long number = 0; number < region.teamSize(); number++) {
                ThreadWait member = byNumber.get(number);
                if (member != null && hasArrived.test(member)) {
                    continue;
                }
                if (member != null) {
                    String where = notThere(member);
                    missing.add("thread " + number + " has not reached it: " + where);
                    evidence.add(Diagnosis.who(member.thread()) + ": not there, " + where + " (" + member.evidence() + ")");
                    involved.add(Involved.of(member, Role.NOT_AT_BARRIER, member.kind() == Kind.NONE
                            ? member.innermost() : member.at().or(member::innermost)));
                    continue;
                }
                Optional<ParallelRegion> nested = nestedTeamOf(picture, region, number);
                if (nested.isPresent()) {
                    String where = "is the primary thread of nested team " + nested.get().id() + " ("
                            + nested.get().describe() + ", team path " + nested.get().path() + "), which has not ended"
                            + stuckBecause(picture, nested.get(), waits);
                    missing.add("thread " + number + " " + where);
                    evidence.add("thread " + number + ": not there, " + where + " (team tree: " + nested.get().id()
                            + " was started by thread " + number + " of " + region.id() + ")");
                    primaryOf(picture, nested.get()).map(waits::get).ifPresent(w -> involved.add(Involved.of(w,
                            Role.PRIMARY_OF_NESTED_TEAM, nested.get().id(), w.at().or(w::innermost))));
                } else {
                    missing.add("thread " + number + " is not among the threads read");
                    evidence.add("thread " + number + ": no thread of the process has this number in " + region.id());
                }
            }
            String team = "team " + region.id() + " (" + region.describe()
                    + (region.teamPath().isEmpty() ? "" : ", team path " + region.path()) + ")";
            String summary = missing.isEmpty()
                    ? team + ": all " + region.teamSize() + " threads wait at a barrier (" + barrier + ")"
                    : team + ": " + arrived.size() + " of " + region.teamSize() + " threads wait at a barrier ("
                      + barrier + "); " + String.join("; ", missing);
            findings.add(new Finding(FindingKind.BARRIER, summary, evidence, placeInCode(region, arrived), involved));
        }
        return findings;
    }

    /** Where a thread that has not reached the barrier is: what it waits for instead, or its user code. */
    private static String notThere(ThreadWait w) {
        if (w.kind() == Kind.NONE) {
            return w.where();
        }
        return w.kind().words() + w.at().map(p -> " (" + p.describe() + ")")
                .orElse(w.innermost().map(p -> ", " + w.where()).orElse(""));
    }

    /** The barrier as people find it in their code: the line the waiting threads entered it from. */
    private static String barrierPlace(ParallelRegion region, List<ThreadWait> arrived) {
        boolean implicit = arrived.stream().anyMatch(w -> w.kind() == Kind.IMPLICIT_BARRIER || w.kind() == Kind.IDLE);
        Optional<String> line = commonCaller(arrived);
        if (implicit) {
            return "the implicit barrier at the end of region " + region.id()
                    + region.function().map(f -> ", " + f.describe()).or(() -> line.map(l -> ", entered from " + l))
                    .orElse("");
        }
        return line.map(l -> "explicit, in " + l).orElse("its place is not known: no waiting thread's stack shows "
                + "user code");
    }

    /** The user code most of the waiting threads entered the barrier from. */
    private static Optional<String> commonCaller(List<ThreadWait> arrived) {
        return arrived.stream().map(ThreadWait::at).flatMap(Optional::stream)
                .collect(Collectors.groupingBy(ThreadWait.Place::describe, LinkedHashMap::new, Collectors.counting()))
                .entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
    }

    /** The barrier's place as {@code function (file:line)}: the waiters' common caller, else the region's code. */
    private static Optional<String> placeInCode(ParallelRegion region, List<ThreadWait> arrived) {
        Optional<String> line = commonCaller(arrived);
        boolean implicit = arrived.stream().anyMatch(w -> w.kind() == Kind.IMPLICIT_BARRIER || w.kind() == Kind.IDLE);
        return implicit ? region.function().map(CodeLocation::describe).or(() -> line) : line;
    }

    /** The nested team that thread {@code number} of {@code region} started (its team path ends with it). */
    private static Optional<ParallelRegion> nestedTeamOf(OpenMpPicture picture, ParallelRegion region, long number) {
        return picture.children(region).stream().filter(child -> !child.teamPath().isEmpty()
                && child.teamPath().getLast() == number).findFirst();
    }

    /** The thread that is thread 0 of {@code region}, however deep it went on into nested teams of its own. */
    private static Optional<Long> primaryOf(OpenMpPicture picture, ParallelRegion region) {
        ParallelRegion current = region;
        for (int depth = 0; depth < picture.regions().size(); depth++) {
            Optional<OpenMpThread> primary = picture.members(Optional.of(current.id())).stream()
                    .filter(t -> t.threadNum() == 0).findFirst();
            if (primary.isPresent()) {
                return Optional.of(primary.get().gtid());
            }
            Optional<ParallelRegion> deeper = nestedTeamOf(picture, current, 0);
            if (deeper.isEmpty()) {
                return Optional.empty();
            }
            current = deeper.get();
        }
        return Optional.empty();
    }

    /** Why a nested team has not ended, in a few words: its threads at a barrier, waiting for whom. */
    private static String stuckBecause(OpenMpPicture picture, ParallelRegion nested, Map<Long, ThreadWait> waits) {
        List<ThreadWait> members = picture.members(Optional.of(nested.id())).stream().map(t -> waits.get(t.gtid()))
                .sorted((a, b) -> Long.compare(a.thread().threadNum(), b.thread().threadNum())).toList(); // cold start
        long atBarrier = members.stream().filter(w -> w.kind().atBarrier()).count();
        if (atBarrier == 0) {
            return "";
        }
        List<String> others = members.stream().filter(w -> !w.kind().atBarrier())
                .map(w -> Long.toString(w.thread().threadNum())).toList();
        return ": " + atBarrier + " of its " + nested.teamSize() + " threads wait at its barrier"
                + (others.isEmpty() ? "" : " for thread" + (others.size() == 1 ? " " : "s ") + String.join(", ", others))
                + " (see team " + nested.id() + ")";
    }
}
