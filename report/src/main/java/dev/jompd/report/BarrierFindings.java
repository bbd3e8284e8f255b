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

    static List<Finding> of(OpenMpPicture picture, Map<Long, ThreadWait> waits, Naming naming) {
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
            Map<ThreadWait, ThreadWait.Scheduling> arrivals = new LinkedHashMap<>();
            for (ThreadWait w : members) {
                arrival(w, primaryInRegion, region).ifPresent(a -> arrivals.put(w, a));
            }
            if (arrivals.isEmpty()) {
                continue;
            }
            List<ThreadWait> arrived = List.copyOf(arrivals.keySet());
            ThreadWait.Scheduling barrierOf = commonBarrier(arrivals.values());
            String barrier = describe(region, barrierOf);
            List<Involved> involved = new ArrayList<>();
            List<String> evidence = new ArrayList<>();
            for (ThreadWait w : arrived) {
                ThreadWait.Scheduling at = arrivals.get(w);
                boolean elsewhere = !sameBarrier(at, barrierOf);
                String what = w.kind() == Kind.IDLE ? "at the barrier: done with the region's code, it waits in "
                        + "libomp's fork barrier (a worker passes the implicit barrier with its arrival)"
                        : w.runsTaskAtBarrier() ? "has arrived " + w.describe()
                        : "at " + (elsewhere ? describe(region, at) : "the barrier");
                evidence.add(naming.thread(w.thread()) + ": " + what + " (" + (w.runsTaskAtBarrier() ? at.evidence()
                        + "; now " + w.evidence() : w.evidence()) + ")");
                involved.add(Involved.of(w, w.runsTaskAtBarrier() ? Role.RUNS_TASK_AT_BARRIER : Role.AT_BARRIER,
                        describe(region, at), w.runsTaskAtBarrier() ? w.at().or(w::innermost) : w.innermost()));
            }
            // threads at different barriers of one team: each barrier waits for the threads at the others
            Map<String, List<ThreadWait>> byBarrier = new LinkedHashMap<>();
            byBarrier.put(barrierKey(barrierOf), new ArrayList<>());
            arrivals.forEach((w, at) -> byBarrier.computeIfAbsent(barrierKey(at), k -> new ArrayList<>()).add(w));
            boolean mismatched = byBarrier.size() > 1;
            java.util.function.Predicate<ThreadWait> hasArrived = arrivals::containsKey;
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
                    String where = member.describe();
                    missing.add("thread " + number + (mismatched ? " is at none of them: " : " has not reached it: ")
                            + where);
                    evidence.add(naming.thread(member.thread()) + ": not there, " + where + " (" + member.evidence() + ")");
                    involved.add(Involved.of(member, Role.NOT_AT_BARRIER, barrier, member.kind() == Kind.NONE
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
            List<String> runningTasks = arrived.stream().filter(ThreadWait::runsTaskAtBarrier)
                    .map(w -> "thread " + w.thread().threadNum() + " has arrived and runs a task there: "
                            + taskPart(w)).toList();
            List<String> notes = new ArrayList<>(runningTasks);
            notes.addAll(missing);
            String summary;
            if (mismatched) {
                summary = team + ": its threads wait at " + byBarrier.size() + " different barriers, and a barrier"
                        + " completes only when every thread of the team reaches it: " + String.join("; ",
                        byBarrier.values().stream().map(waiting -> threadNumbers(waiting) + " at "
                                + describe(region, arrivals.get(waiting.getFirst()))).toList());
            } else if (missing.isEmpty()) {
                summary = team + ": all " + region.teamSize() + " threads wait at " + barrier;
            } else {
                summary = team + ": " + arrived.size() + " of " + region.teamSize() + " threads wait at " + barrier;
            }
            summary += notes.isEmpty() ? "" : "; " + String.join("; ", notes);
            findings.add(new Finding(FindingKind.BARRIER, summary, evidence, placeInCode(region, barrierOf), involved));
        }
        return findings;
    }

    /** {@code thread 2}, {@code threads 0 and 2}, {@code threads 0, 2 and 4}: by thread number, ascending. */
    private static String threadNumbers(List<ThreadWait> waits) {
        List<String> numbers = waits.stream().map(w -> w.thread().threadNum()).sorted()
                .map(String::valueOf).toList();
        if (numbers.size() == 1) {
            return "thread " + numbers.getFirst();
        }
        return "threads " + String.join(", ", numbers.subList(0, numbers.size() - 1)) + " and " + numbers.getLast();
    }

    /** What a thread that runs a task at the barrier does in that task: {@code task at t.c:22 (…), which waits …}. */
    private static String taskPart(ThreadWait w) {
        String all = w.describe();
        ThreadWait.Scheduling layer = w.arrival().orElseThrow();
        String prefix = layer.describe();
        return all.startsWith(prefix + ", ") ? layer.task().map(ThreadWait.Place::inWords).orElse("a task") + ", "
                + all.substring(prefix.length() + 2) : layer.task().map(ThreadWait.Place::inWords).orElse("a task");
    }

    /**
     * Where a thread has arrived at its team's barrier: its outermost barrier wait; for a worker in libomp's fork
     * barrier while its primary thread is still in the region, the region's implicit barrier (libomp's workers pass
     * it with their arrival and then wait in the fork barrier for the next region).
     */
    private static Optional<ThreadWait.Scheduling> arrival(ThreadWait w, boolean primaryInRegion, ParallelRegion region) {
        if (w.kind() == Kind.IDLE && w.under().isEmpty()) {
            return primaryInRegion ? Optional.of(new ThreadWait.Scheduling(Kind.IMPLICIT_BARRIER, Optional.empty(),
                    w.evidence(), Optional.empty(), -1)) : Optional.empty();
        }
        return w.arrival();
    }

    /** The barrier most arrived threads wait at (the construct and its line). */
    private static ThreadWait.Scheduling commonBarrier(java.util.Collection<ThreadWait.Scheduling> arrivals) {
        Map<String, List<ThreadWait.Scheduling>> byBarrier = arrivals.stream().collect(Collectors.groupingBy(
                BarrierFindings::barrierKey, LinkedHashMap::new, Collectors.toList()));
        // the end of the region is where workers that went on to the fork barrier count: not a place of their own
        List<ThreadWait.Scheduling> largest = byBarrier.values().stream()
                .max((a, b) -> Integer.compare(a.size(), b.size())).orElseThrow();
        return largest.stream().filter(a -> a.at().isPresent()).findFirst().orElse(largest.getFirst());
    }

    /** Two arrivals are at one barrier when construct and line agree (a told construct beats an untold one). */
    private static boolean sameBarrier(ThreadWait.Scheduling a, ThreadWait.Scheduling b) {
        return barrierKey(a).equals(barrierKey(b));
    }

    private static String barrierKey(ThreadWait.Scheduling arrival) {
        if (arrival.kind() == Kind.IMPLICIT_BARRIER) {
            return "end";
        }
        return arrival.at().flatMap(ThreadWait.Place::source).orElse("?");
    }

    /**
     * The barrier as people find it in their code: {@code the implicit barrier of the single construct at
     * single.c:7}, {@code the implicit barrier at the end of region r1 (main.omp_outlined at single.c:5)}.
     */
    private static String describe(ParallelRegion region, ThreadWait.Scheduling barrier) {
        if (barrier.kind() == Kind.IMPLICIT_BARRIER) {
            return "the implicit barrier at the end of region " + region.id()
                    + region.function().map(f -> " (" + f.describe() + ")").or(() -> barrier.at()
                    .map(p -> " (entered from " + p.describe() + ")")).orElse("");
        }
        String place = barrier.at().map(p -> p.source().isPresent() ? " at " + p.line() : " " + p.line()).orElse("");
        if (barrier.kind() == Kind.BARRIER_UNTOLD && barrier.at().isEmpty()) {
            return "a barrier whose place is not known: no waiting thread's stack shows user code";
        }
        return barrier.kind().construct() + place;
    }

    /** The barrier's place as {@code function (file:line)}: the waiters' common caller, else the region's code. */
    private static Optional<String> placeInCode(ParallelRegion region, ThreadWait.Scheduling barrier) {
        if (barrier.kind() == Kind.IMPLICIT_BARRIER) {
            return region.function().map(CodeLocation::describe).or(() -> barrier.at().map(ThreadWait.Place::describe));
        }
        return barrier.at().map(ThreadWait.Place::describe);
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
        long atBarrier = members.stream().filter(w -> w.arrival().isPresent()).count();
        if (atBarrier == 0) {
            return "";
        }
        List<String> others = members.stream().filter(w -> w.arrival().isEmpty())
                .map(w -> Long.toString(w.thread().threadNum())).toList();
        return ": " + atBarrier + " of its " + nested.teamSize() + " threads wait at its barrier"
                + (others.isEmpty() ? "" : " for thread" + (others.size() == 1 ? " " : "s ") + String.join(", ", others))
                + " (see team " + nested.id() + ")";
    }
}
