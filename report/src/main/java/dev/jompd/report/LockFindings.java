package dev.jompd.report;

import dev.jompd.core.ompd.LockNames;
import dev.jompd.core.ompd.RuntimeLocks.Holder;
import dev.jompd.core.ompd.RuntimeLocks.Lock;
import dev.jompd.core.recorder.RecordedThread;
import dev.jompd.core.unwind.NativeFrame;
import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.Diagnosis.Involved;
import dev.jompd.report.Diagnosis.Role;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The lock and critical-section part of the diagnosis: who waits for which of libomp's locks (OMPD wait id,
 * or the lock's own wait queue), who holds it (the lock's memory, else the jompd-recorder, never a guess),
 * where the holder is and what it waits for itself; then the wait-for graph (thread → lock → holder, and
 * thread at a barrier → team member that has not reached it), whose cycles are deadlocks.
 */
final class LockFindings {
    /**
     * An edge of the wait-for graph: thread {@code from} cannot go on until thread {@code to} does, in words; for a
     * lock, libomp's lock object ({@code lock}; 0 for an edge that is no lock's), which tells two locks apart where
     * the words (a job's, without addresses) may not.
     */
    record Edge(long from, long to, String words, long lock) {
        Edge(long from, long to, String words) {
            this(from, to, words, 0);
        }
    }

    private final OpenMpPicture picture;
    private final Map<Long, ThreadWait> waitByGtid;
    private final Map<Long, OpenMpThread> threadByGtid = new LinkedHashMap<>();
    private final List<Edge> edges = new ArrayList<>();
    /** Steps the cycle search may take: enumerating simple cycles can be exponential in a dense graph. */
    private static final int CYCLE_SEARCH_STEPS = 200_000;
    /** The threads of each deadlock the wait-for graph showed, to leave the recorder's same cycles out. */
    private final List<Set<Long>> cycleThreads = new ArrayList<>();

    private final Map<Long, ParallelStacks.ThreadStack> stackByGtid;
    private final Naming naming;

    private LockFindings(OpenMpPicture picture, List<ThreadWait> seen, Map<Long, ParallelStacks.ThreadStack> stacks,
                         Naming naming) {
        this.picture = picture;
        this.naming = naming;
        this.stackByGtid = stacks;
        this.waitByGtid = new LinkedHashMap<>();
        seen.forEach(s -> waitByGtid.put(s.thread().gtid(), s));
        picture.threads().forEach(t -> threadByGtid.put(t.gtid(), t));
    }

    /** The findings about locks, critical sections and wait cycles, given what each thread waits for. */
    static List<Finding> of(OpenMpPicture picture, List<ThreadWait> seen, Map<Long, ParallelStacks.ThreadStack> stacks,
                            Naming naming) {
        return new LockFindings(picture, seen, stacks, naming).findings();
    }

    private List<Finding> findings() {
        List<Finding> findings = new ArrayList<>();
        Set<Long> attributed = new HashSet<>();
        for (Lock lock : picture.locks().locks()) {
            Map<Long, String> waiters = new LinkedHashMap<>();
            for (ThreadWait s : waitByGtid.values()) {
                if (s.thread().waitId().orElse(0) == lock.object() && lock.object() != 0) {
                    waiters.put(s.thread().gtid(), "OMPD wait id " + Text.hex(lock.object()));
                }
            }
            for (long gtid : lock.waiters()) {
                waiters.merge(gtid, "in the lock's wait queue", (a, b) -> a + ", in the lock's wait queue");
            }
            waiters.keySet().removeIf(gtid -> !threadByGtid.containsKey(gtid));
            if (waiters.isEmpty()) {
                continue;
            }
            attributed.addAll(waiters.keySet());
            findings.add(lockFinding(lock, waiters));
        }
        // Lock waiters no lock of the table claims (a direct lock, or the table unreadable): as before, by wait id.
        Map<Long, List<ThreadWait>> unclaimed = new LinkedHashMap<>();
        for (ThreadWait s : waitByGtid.values()) {
            if ((s.kind() == ThreadWait.Kind.LOCK || s.kind() == ThreadWait.Kind.CRITICAL) && !attributed.contains(s.thread().gtid())) {
                // no wait id (not tracked) groups with a wait id of 0: neither says which lock
                unclaimed.computeIfAbsent(s.thread().waitId().orElse(0), k -> new ArrayList<>()).add(s);
            }
        }
        unclaimed.forEach((waitId, waiters) -> {
            List<String> evidence = new ArrayList<>();
            waiters.forEach(s -> evidence.add(naming.thread(s.thread()) + ": " + s.where() + " (" + s.evidence() + ")"));
            Optional<LockNames.Name> named = waiters.getFirst().kind() == ThreadWait.Kind.CRITICAL ? Optional.empty()
                    : picture.lockNames().ofObject(waitId);
            named.ifPresent(n -> evidence.add("lock name: " + n.evidence()));
            String what = waiters.getFirst().kind() == ThreadWait.Kind.CRITICAL ? "a critical section"
                    : named.map(n -> "lock `" + n.variable() + "`").orElse("a lock");
            String why = picture.locks().unavailable().map(u -> "libomp's lock table could not be read: " + u)
                    .orElse(waitId == 0 ? "which one the runtime's memory does not say (a tas or futex lock keeps no "
                            + "queue, and without OMP_DEBUG there is no wait id)"
                            : "no lock of libomp's table has this wait id");
            String holder = recorderHolder(waitId).map(h -> "held by " + recorderHolderWords(h) + " (jompd-recorder)")
                    .orElse("its holder is not known: " + why);
            findings.add(new Finding(FindingKind.LOCK, waiters.size() + " thread" + (waiters.size() == 1 ? " waits" : "s wait")
                    + " for " + what + (waitId != 0 ? " (wait id " + naming.address(waitId) + ")" : "") + "; " + holder,
                    evidence, waiters.getFirst().at().map(ThreadWait.Place::describe),
                    waiters.stream().map(w -> Involved.of(w, Role.WAITS_FOR_LOCK, what, w.at().or(w::innermost))).toList()));
        });
        barrierEdges();
        findings.addAll(cycles());
        picture.history().ifPresent(history -> {
            for (List<RecordedThread> cycle : history.deadlocks()) {
                // the recorder's cycle may be one the lock memory showed already: one finding per cycle
                Set<Long> gtids = new HashSet<>();
                cycle.forEach(t -> picture.threadByLwp(t.lwp()).ifPresent(thread -> gtids.add(thread.gtid())));
                if (gtids.size() == cycle.size() && cycleThreads.contains(gtids)) {
                    continue;
                }
                findings.add(new Finding(FindingKind.DEADLOCK, "deadlock: " + String.join(" -> ", cycle.stream()
                        .map(this::recordedThreadName).toList()) + " -> " + recordedThreadName(cycle.getFirst())
                        + ", each waiting for a mutex the next holds",
                        List.of("jompd-recorder: mutex acquired/released events of each thread"), Optional.empty(),
                        List.of()));
            }
        });
        return findings;
    }

    /** A recorded thread by its OpenMP thread ({@code omp 1/3 (LWP 9033)}), else by its LWP. */
    private String recordedThreadName(RecordedThread thread) {
        return picture.threadByLwp(thread.lwp()).map(naming::thread).orElse(naming.lwp(thread.lwp()));
    }

    private Finding lockFinding(Lock lock, Map<Long, String> waiters) {
        List<String> evidence = new ArrayList<>();
        waiters.forEach((gtid, how) -> {
            ThreadWait s = waitByGtid.get(gtid);
            evidence.add(naming.thread(threadByGtid.get(gtid)) + ": " + (s == null ? "" : s.where() + " ") + "(" + how
                    + (s == null ? "" : "; " + s.evidence()) + ")");
        });
        if (!lock.evidence().isEmpty()) {
            evidence.add("lock memory: " + lock.evidence());
        }
        String holder;
        Optional<ThreadWait> holding = Optional.empty();
        Optional<RecordedHistory.Holding> recordedHolder = recorderHolder(lock.object());
        Optional<Long> recorded = recordedHolder.map(h -> h.thread().lwp());
        if (lock.holder() instanceof Holder.Owner owner && threadByGtid.containsKey(owner.gtid())) {
            OpenMpThread thread = threadByGtid.get(owner.gtid());
            ThreadWait held = waitByGtid.get(owner.gtid());
            holding = Optional.ofNullable(held);
            holder = "held by " + naming.thread(thread) + (owner.depth().isPresent() ? " (nested " + owner.depth().getAsLong()
                    + " deep)" : "") + (held == null ? "" : ", " + held.where() + whatItWaitsFor(held));
            waiters.keySet().forEach(gtid -> edges.add(new Edge(gtid, owner.gtid(), "waits for " + describe(lock, waiters),
                    lock.object())));
            if (recorded.isPresent() && thread.lwp().isPresent() && recorded.get() != thread.lwp().getAsLong()) {
                holder += "; the jompd-recorder disagrees: it saw " + recorderHolderWords(recordedHolder.get());
            } else if (recorded.isPresent()) {
                evidence.add("jompd-recorder agrees: " + recorderHolderWords(recordedHolder.get()));
            }
        } else if (recorded.isPresent()) {
            holder = "held by " + recorderHolderWords(recordedHolder.get()) + " (jompd-recorder)" + (lock.holder() instanceof Holder.Unknown u
                    ? "; the lock's memory does not say: " + u.why() : "");
            picture.threads().stream().filter(t -> t.lwp().isPresent() && t.lwp().getAsLong() == recorded.get())
                    .findFirst().ifPresent(t -> waiters.keySet().forEach(gtid ->
                            edges.add(new Edge(gtid, t.gtid(), "waits for " + describe(lock, waiters), lock.object()))));
        } else {
            holder = switch (lock.holder()) {
                case Holder.Unknown unknown -> "its holder is not known: " + unknown.why();
                case Holder.Free free -> "the lock is free now: its first waiter is about to take it";
                case Holder.Owner owner -> "the lock names gtid " + owner.gtid() + ", which is no OpenMP thread here";
            };
        }
        String what = describe(lock, waiters);
        if (lock.critical()) {
            picture.lockNames().critical(lock).ifPresent(n -> evidence.add("critical name: " + n.evidence()));
        } else {
            name(lock, waiters).ifPresent(n -> evidence.add("lock name: " + n.evidence()));
        }
        List<ThreadWait> waiting = waiters.keySet().stream().map(waitByGtid::get).filter(w -> w != null).toList();
        List<Involved> involved = new ArrayList<>(waiting.stream()
                .map(w -> Involved.of(w, Role.WAITS_FOR_LOCK, what, w.at().or(w::innermost))).toList());
        holding.ifPresent(h -> involved.add(Involved.of(h, Role.HOLDS_LOCK, what, h.innermost())));
        return new Finding(FindingKind.LOCK, waiters.size() + " thread" + (waiters.size() == 1 ? " waits" : "s wait")
                + (lock.critical() ? " to enter " : " for ") + what + "; " + holder, evidence, waiting.stream().flatMap(w -> w.at().stream())
                .map(ThreadWait.Place::describe).findFirst(), involved);
    }

    /**
     * A lock by the program's name, the runtime's object after it: {@code lock `locks[1]` (queuing lock #1 at
     * 0x…)}; with no variable to name it, the line of the {@code omp_set_lock} call its waiters are at, said
     * as such: {@code queuing lock #1 at 0x… (the omp_set_lock call at solver.c:42; no static variable of the program
     * holds it)}. A job's words leave the runtime's object out where the program names the lock, and its address
     * always ({@link Naming}).
     */
    private String describe(Lock lock, Map<Long, String> waiters) {
        if (lock.critical()) {
            return critical(lock);
        }
        Optional<LockNames.Name> name = name(lock, waiters);
        if (name.isPresent()) {
            return naming.named("lock `" + name.get().variable() + "`", lock);
        }
        Optional<String> line = waiters.keySet().stream().map(waitByGtid::get).filter(w -> w != null)
                .flatMap(w -> w.at().stream()).flatMap(p -> p.source().stream()).findFirst();
        return naming.lock(lock) + line.map(l -> " (the omp_set_lock call at " + l + "; no static variable of the program holds it)").orElse("");
    }

    /**
     * A critical section by the construct the program wrote, where the runtime made it, then the runtime's
     * object: {@code critical(big) at solver.c:40 (queuing lock #0 at 0x…)}, {@code the unnamed critical at …};
     * {@code a critical section at solver.c:40 (…)} when its name's variable is not found.
     */
    private String critical(Lock lock) {
        String at = lock.location().map(l -> " at " + l).orElse("");
        return picture.lockNames().critical(lock)
                .map(n -> naming.named((n.variable().startsWith("critical(") ? "" : "the ") + n.variable() + at, lock))
                .orElse(at.isEmpty() ? "a " + naming.lock(lock) : naming.named("a critical section" + at, lock));
    }

    /** The program's name of a lock: by its variable's content, else by what its waiters' calls pass. */
    private Optional<LockNames.Name> name(Lock lock, Map<Long, String> waiters) {
        Optional<LockNames.Name> byContent = picture.lockNames().of(lock);
        if (byContent.isPresent()) {
            return byContent;
        }
        for (long gtid : waiters.keySet()) {
            ParallelStacks.ThreadStack stack = stackByGtid.get(gtid);
            if (stack == null) {
                continue;
            }
            for (NativeFrame frame : stack.stack().frames()) {
                if (frame.module().isPresent() && picture.lockNames().inExecutable(frame.module().get())) {
                    Optional<LockNames.Name> called = picture.lockNames().atCall(lock, frame.pc());
                    if (called.isPresent()) {
                        return called;
                    }
                    break; // the innermost frame of the program's code is the one that called libomp
                }
            }
        }
        return Optional.empty();
    }

    private static String whatItWaitsFor(ThreadWait wait) {
        return wait.kind() == ThreadWait.Kind.NONE && wait.under().isEmpty() ? ""
                : ", itself " + wait.describe() + " (" + wait.evidence() + ")";
    }

    /**
     * The recorder's holder of a lock object (libomp's, as OMPD's wait ids name it: the recorder's locks are
     * tied to theirs by {@link RecordedHistory#lockObjects()}), when the recorder runs and saw one take it.
     */
    private Optional<RecordedHistory.Holding> recorderHolder(long waitId) {
        if (picture.history().isEmpty() || waitId == 0) {
            return Optional.empty();
        }
        return picture.history().get().holderOfLockObject(waitId);
    }

    /** {@code omp 1/3 (LWP 9033), which took it at deadlock.c:58}: the recorder's holder by its OpenMP thread. */
    private String recorderHolderWords(RecordedHistory.Holding holding) {
        return picture.history().orElseThrow().holderWords(picture, holding, naming);
    }

    /** A thread at its team's barrier waits for every member of the team that is not there. */
    private void barrierEdges() {
        for (ParallelRegion region : picture.regions()) {
            List<ThreadWait> members = picture.members(Optional.of(region.id())).stream().map(t -> waitByGtid.get(t.gtid()))
                    .filter(s -> s != null).toList();
            for (ThreadWait at : members) {
                if (!at.kind().atBarrier()) {
                    continue;
                }
                for (ThreadWait other : members) {
                    if (!other.kind().atBarrier()) {
                        edges.add(new Edge(at.thread().gtid(), other.thread().gtid(), "waits at a barrier of team "
                                + region.id() + " that it has not reached"));
                    }
                }
            }
        }
    }

    /** Deadlocks: the wait-for graph's cycles through a lock, one finding each, and whether the search was cut. */
    private List<Finding> cycles() {
        CycleSearch search = cycles(edges, threadByGtid.size());
        List<Finding> findings = new ArrayList<>();
        for (List<Edge> cycle : search.cycles()) {
            findings.add(deadlock(cycle));
            Set<Long> threads = new HashSet<>();
            cycle.forEach(e -> threads.add(e.from()));
            cycleThreads.add(threads);
        }
        if (search.cut()) {
            findings.add(new Finding(FindingKind.OTHER, "the search for wait cycles stopped after " + CYCLE_SEARCH_STEPS
                    + " steps: deadlocks beyond those named may exist", List.of("wait-for graph of " + edges.size()
                    + " edges"), Optional.empty(), List.of()));
        }
        return findings;
    }

    /** The simple cycles a search found (at most 17), and whether it stopped at its step bound. */
    record CycleSearch(List<List<Edge>> cycles, boolean cut) {}

    /**
     * Simple cycles of a wait-for graph that include a lock ("waits for …" edge), each once, from its smallest
     * gtid; one per set of locks and barriers (the same cycle through another waiter of them is no news).
     * Bounded: paths no longer than {@code threads}, at most {@value #CYCLE_SEARCH_STEPS} steps.
     */
    static CycleSearch cycles(List<Edge> edges, int threads) {
        Map<Long, List<Edge>> out = new LinkedHashMap<>();
        edges.forEach(e -> out.computeIfAbsent(e.from(), k -> new ArrayList<>()).add(e));
        Set<String> reported = new LinkedHashSet<>();
        List<List<Edge>> cycles = new ArrayList<>();
        int[] steps = {0};
        for (long start : out.keySet()) {
            walk(start, start, new ArrayList<>(), new HashSet<>(), out, reported, cycles, threads, steps);
        }
        return new CycleSearch(List.copyOf(cycles), steps[0] > CYCLE_SEARCH_STEPS);
    }

    private static void walk(long start, long at, List<Edge> path, Set<Long> visited, Map<Long, List<Edge>> out,
                             Set<String> reported, List<List<Edge>> cycles, int threads, int[] steps) {
        if (path.size() > threads || cycles.size() > 16 || ++steps[0] > CYCLE_SEARCH_STEPS) {
            return; // bounded: no simple cycle is longer than the thread count
        }
        for (Edge edge : out.getOrDefault(at, List.of())) {
            if (edge.to() == start) {
                List<Edge> cycle = new ArrayList<>(path);
                cycle.add(edge);
                boolean smallestFirst = cycle.stream().allMatch(e -> Long.compareUnsigned(start, e.from()) <= 0);
                boolean holdsALock = cycle.stream().anyMatch(e -> e.words().startsWith("waits for"));
                // the key only for cycles that count: building it for every closing edge is what costs
                if (smallestFirst && holdsALock
                        && reported.add(cycle.stream().map(e -> e.words() + " " + e.lock()).sorted().toList().toString())) {
                    cycles.add(List.copyOf(cycle));
                }
            } else if (!visited.contains(edge.to())) {
                visited.add(edge.to());
                path.add(edge);
                walk(start, edge.to(), path, visited, out, reported, cycles, threads, steps);
                path.removeLast();
                visited.remove(edge.to());
            }
        }
    }

    private Finding deadlock(List<Edge> cycle) {
        StringBuilder summary = new StringBuilder("deadlock: ");
        List<String> evidence = new ArrayList<>();
        for (int i = 0; i < cycle.size(); i++) {
            Edge edge = cycle.get(i);
            String from = naming.thread(threadByGtid.get(edge.from()));
            String to = naming.thread(threadByGtid.get(edge.to()));
            if (edge.words().startsWith("waits for")) {
                summary.append(i == 0 ? from + " " : ", which ").append(edge.words()).append(" held by ").append(to);
            } else {
                summary.append(i == 0 ? from + " " : ", which ").append(edge.words().replace(" it ", " " + to + " "));
            }
            ThreadWait seen = waitByGtid.get(edge.from());
            if (seen != null) {
                evidence.add(from + ": " + seen.where() + " (" + seen.evidence() + ")");
            }
        }
        List<Involved> involved = cycle.stream().map(e -> waitByGtid.get(e.from())).filter(w -> w != null)
                .map(w -> Involved.of(w, Role.IN_CYCLE, w.kind().words(), w.at().or(w::innermost))).toList();
        return new Finding(FindingKind.DEADLOCK, summary.toString(), evidence, Optional.empty(), involved);
    }
}
