package dev.jompd.report;

import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.ParallelStacks.ThreadStack;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Why threads wait, in plain words with the evidence used: per team, who reached the barrier and who did
 * not and where those are ({@link BarrierFindings}, the team tree included); who waits at a taskwait or
 * taskgroup for which unfinished child tasks ({@link TaskwaitFindings}); who waits for a lock or critical
 * section, and who holds it as libomp's lock memory says, or where the jompd-recorder saw it taken; wait
 * cycles (deadlocks) — see {@link LockFindings}. What a thread waits for comes from its OMPD state
 * when libomp tracks states ({@code OMP_DEBUG=enabled}), else from where its stack is (a thread inside
 * libomp's barrier code is at its team's barrier; {@link ThreadWait}); each finding says which.
 */
public final class Diagnosis {
    /** What a finding is about; {@link #words()} is its name in jompd-diagnose/1. */
    public enum FindingKind {
        BARRIER, TASKWAIT, TASKGROUP, ORDERED, LOCK, DEADLOCK, POSSIBLE_DEADLOCK, NONE, OTHER;

        /** {@code barrier}, {@code deadlock}, …: the kind as jompd-diagnose/1 spells it. */
        public String words() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One finding: a sentence, and the evidence behind it; {@code kind} says what it is about,
     * {@code place} where in the user's code (the barrier's or the taskwait's line), {@code threads} whom it names.
     */
    public record Finding(FindingKind kind, String summary, List<String> evidence, Optional<String> place,
                          List<Involved> threads) {
        public Finding(String summary, List<String> evidence) {
            this(FindingKind.OTHER, summary, evidence, Optional.empty(), List.of());
        }
    }

    /** A thread's part in a finding; some name what they are about (a task, a team, a lock): the subject. */
    public enum Role {
        /** subject: the barrier, as its construct and line ({@code the implicit barrier of the single construct at …}) */
        AT_BARRIER("at"),
        /** subject: the barrier */
        RUNS_TASK_AT_BARRIER("runs a task at"),
        /** subject: the barrier */
        NOT_AT_BARRIER("has not reached"),
        /** subject: the nested team's region id */
        PRIMARY_OF_NESTED_TEAM("primary thread of nested team"),
        WAITS_AT_TASKWAIT("waits at a taskwait"),
        WAITS_AT_TASKGROUP_END("waits at the end of a taskgroup"),
        WAITS_IN_ORDERED("waits to enter the ordered region"),
        /** a thread of the team not waiting in the ordered region: maybe the one whose turn it is */
        NOT_IN_ORDERED("is not waiting in the ordered region"),
        /** subject: the child task's id */
        RUNS_CHILD_TASK("runs child task"),
        /** subject: the lock or critical section */
        WAITS_FOR_LOCK("waits for"),
        /** subject: the lock or critical section */
        HOLDS_LOCK("holds"),
        /** subject: what the thread waits for in the cycle */
        IN_CYCLE("in the cycle:");

        private final String words;

        Role(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    /**
     * A thread a finding names: its part in it ({@link Role}, with what the role is about: {@code subject}),
     * the user code it is at ({@code function}, {@code source} as {@code file:line}), and how jompd knows
     * what it waits for.
     */
    public record Involved(OpenMpThread thread, Role role, Optional<String> subject, Optional<String> function,
                           Optional<String> source, String evidence) {
        static Involved of(ThreadWait wait, Role role, Optional<ThreadWait.Place> at) {
            return of(wait, role, Optional.empty(), at);
        }

        static Involved of(ThreadWait wait, Role role, String subject, Optional<ThreadWait.Place> at) {
            return of(wait, role, Optional.of(subject), at);
        }

        private static Involved of(ThreadWait wait, Role role, Optional<String> subject, Optional<ThreadWait.Place> at) {
            return new Involved(wait.thread(), role, subject, at.map(ThreadWait.Place::function),
                    at.flatMap(ThreadWait.Place::source), wait.evidence());
        }

        /** The part in words: {@code at the barrier}, {@code runs child task t4}, {@code waits for a lock}. */
        public String roleWords() {
            return role.words() + subject.map(s -> " " + s).orElse("");
        }
    }

    private Diagnosis() {}

    /** The findings in one process's words ({@link Naming#PROCESS}). */
    public static List<Finding> of(OpenMpPicture picture, Optional<ParallelStacks> stacks) {
        return of(picture, stacks, Naming.PROCESS);
    }

    /** The findings, their threads and locks named as {@code naming} says (a job's ranks: {@link Naming#JOB}). */
    public static List<Finding> of(OpenMpPicture picture, Optional<ParallelStacks> stacks, Naming naming) {
        Map<Long, ThreadStack> stackByGtid = new LinkedHashMap<>();
        stacks.ifPresent(s -> s.stacks().forEach(stack -> stackByGtid.put(stack.thread().gtid(), stack)));
        Map<Long, ThreadWait> waits = new LinkedHashMap<>();
        for (OpenMpThread thread : picture.threads()) {
            ThreadStack stack = stackByGtid.get(thread.gtid());
            waits.put(thread.gtid(), stack != null ? stack.waiting() : ThreadWait.of(picture, thread, Optional.empty()));
        }
        List<Finding> findings = new ArrayList<>(BarrierFindings.of(picture, waits, naming));
        findings.addAll(TaskwaitFindings.of(picture, waits, naming));
        findings.addAll(OrderedFindings.of(picture, waits, naming));
        // Locks, critical sections, their holders and wait cycles (deadlocks)
        findings.addAll(LockFindings.of(picture, List.copyOf(waits.values()), stackByGtid, naming));
        findings.addAll(StallFindings.of(picture, waits, findings, naming));
        if (findings.isEmpty()) {
            findings.add(new Finding(FindingKind.NONE, "no thread waits at a barrier, a taskwait, the end of a taskgroup, an ordered region, for a lock or a critical section",
                    List.of(stacks.isPresent() ? "states and stacks of " + picture.threads().size() + " threads"
                            : "states of " + picture.threads().size() + " threads"), Optional.empty(), List.of()));
        }
        return findings;
    }
}
