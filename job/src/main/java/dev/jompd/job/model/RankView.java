package dev.jompd.job.model;

import dev.jompd.core.ompd.ThreadState;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.Diagnosis;
import dev.jompd.report.Naming;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ThreadPlace;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.ParallelStacks;
import dev.jompd.report.Text;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * One rank's picture in the terms that mean the same in every rank of the job, whatever the address-space
 * randomisation and the OS gave it: threads by their place in the teams ({@link ThreadPlace}, the report's own),
 * their OMPD state, regions and tasks by source construct, stacks as the report's steps (function, source line,
 * module, libomp's run or not; never addresses), the findings by kind with their sentences in the job's words (the
 * report's {@link Naming#JOB}: threads by place, locks by the program's names, no LWPs and no addresses), and the MPI
 * call the rank waits in. The record is the class key: two ranks are in one class exactly
 * when their views are equal. JSON is only the wire ({@link JobWire}).
 *
 * @param threads  each thread, in {@link ThreadPlace#ORDER}
 * @param findings the rank's hang diagnosis
 * @param mpi      where the rank waits in MPI, when a thread's stack is inside an MPI call
 * @param notices  what the reader should know (no OMP_DEBUG, unreadable parts)
 */
public record RankView(List<ThreadView> threads, List<Finding> findings, Optional<MpiWait> mpi, List<String> notices) {

    /**
     * One thread: its place, its OMPT state code as libomp keeps it (empty: libomp does not track states), the
     * construct of its region, its task chain (innermost first), its stack (outermost first, libomp's runs folded as
     * the parallel stacks fold them) and its part in the diagnosis ({@code waits for lock `guard`}).
     */
    public record ThreadView(ThreadPlace place, OptionalLong stateCode, Optional<String> region, List<String> tasks,
                             List<Step> stack, List<String> roles) {
        /** {@code omp team 1 · 2/4 · level 2}. */
        public String thread() {
            return place.words();
        }

        /** The state, when it is one OMPT defines. */
        public Optional<ThreadState> state() {
            return stateCode.isPresent() ? ThreadState.of(stateCode.getAsLong()) : Optional.empty();
        }

        /** {@code wait_barrier_explicit}; {@code not tracked} and {@code unknown state 0x…} as every door says them. */
        public String stateWords() {
            return Text.shortStateName(stateCode);
        }

        /** The steps as the merged stacks show them; a thread without a stack as a note of that. */
        public List<Step> path() {
            return stack.isEmpty() ? List.of(Step.note("(no stack: " + thread() + ", " + stateWords() + ")")) : stack;
        }
    }

    /**
     * A step of a thread's stack ({@link ParallelStacks.Step} without what differs between ranks: task ids and
     * frame numbers): the function (an unnamed frame's address left out), its source line and module, whether it
     * is a folded run of libomp's frames, and the step as the parallel stacks say it.
     */
    public record Step(String function, Optional<String> source, Optional<String> module, boolean runtime, String words) {
        static Step of(ParallelStacks.Step step) {
            String function = UNNAMED.matcher(step.function()).matches() ? UNNAMED_WORDS : step.function();
            ParallelStacks.Step named = new ParallelStacks.Step(function, step.source(), step.module(), step.runtime(),
                    Optional.empty(), step.construct(), Optional.empty());
            return new Step(function, step.source(), step.module(), step.runtime(), named.describe());
        }

        /** A step that is a note, not a frame (a thread without a stack). */
        static Step note(String words) {
            return new Step(words, Optional.empty(), Optional.empty(), false, words);
        }
    }

    /** A finding of the rank's diagnosis: its kind and its sentence. */
    public record Finding(FindingKind kind, String summary) {
        /** {@code barrier: team r1 …}, {@code deadlock: omp 1/3 waits for …}: the kind, then the sentence. */
        public String words() {
            // a deadlock's sentence says its kind first already ("deadlock: omp 0/2 waits for …")
            String kindFirst = kind.words().replace('_', ' ') + ": ";
            return summary.startsWith(kindFirst) ? summary : kind.words() + ": " + summary;
        }
    }

    /** The MPI call a thread waits in ({@code MPI_Allreduce}) and the program's line that called it. */
    public record MpiWait(String call, Optional<String> from, ThreadPlace thread) {
        public String describe() {
            return call + from.map(f -> " (from " + f + ")").orElse("");
        }
    }

    private static final Pattern MPI_CALL = Pattern.compile("^P?(MPI_[A-Z][A-Za-z_]*)");
    /** A frame no symbol names: the parallel stacks name it by its address, another in every run. */
    private static final Pattern UNNAMED = Pattern.compile("0x[0-9a-f]+");
    private static final String UNNAMED_WORDS = "0x…";

    /** The view of a rank that was read (its diagnosis in the job's words, {@link RankInspection.Seen}). */
    public static RankView of(RankInspection.Seen seen) {
        OpenMpPicture picture = seen.picture();
        Map<Long, ParallelStacks.ThreadStack> stackByGtid = new LinkedHashMap<>();
        seen.stacks().ifPresent(s -> s.stacks().forEach(stack -> stackByGtid.put(stack.thread().gtid(), stack)));
        Map<Long, List<String>> roles = new LinkedHashMap<>();
        for (Diagnosis.Finding finding : seen.findings()) {
            for (Diagnosis.Involved involved : finding.threads()) {
                // a role that names its place already (a critical section by its line) is not given it twice
                String words = involved.roleWords();
                roles.computeIfAbsent(involved.thread().gtid(), g -> new ArrayList<>()).add(words
                        + involved.source().filter(s -> !words.contains(s)).map(s -> " at " + s).orElse(""));
            }
        }
        List<OpenMpThread> ordered = new ArrayList<>(picture.threads());
        ordered.sort((a, b) -> ThreadPlace.ORDER.compare(a.place(), b.place()));
        List<ThreadView> threads = new ArrayList<>();
        Optional<MpiWait> mpi = Optional.empty();
        for (OpenMpThread thread : ordered) {
            List<Step> stack = new ArrayList<>();
            ParallelStacks.ThreadStack unwound = stackByGtid.get(thread.gtid());
            if (unwound != null) {
                List<ParallelStacks.Step> steps = unwound.steps();
                for (int i = 0; i < steps.size(); i++) {
                    stack.add(Step.of(steps.get(i)));
                    var call = MPI_CALL.matcher(steps.get(i).function());
                    if (mpi.isEmpty() && !steps.get(i).runtime() && call.find()) {
                        Optional<String> from = i > 0 ? steps.get(i - 1).source() : Optional.empty();
                        mpi = Optional.of(new MpiWait(call.group(1), from, thread.place()));
                    }
                }
            }
            List<String> tasks = picture.chain(thread).stream().map(task -> task.kind().words()
                    + task.function().map(f -> " " + f.describe()).orElse("")
                    + (task.status() == OpenMpPicture.TaskStatus.UNKNOWN ? "" : ", "
                    + picture.statusWords(task, Optional.of(thread), Naming.JOB))).toList();
            Optional<String> region = thread.region().flatMap(picture::region)
                    .flatMap(r -> r.function().map(f -> "parallel region " + f.describe() + (r.ended() ? ", ended" : "")));
            threads.add(new ThreadView(thread.place(), thread.stateCode(), region, tasks, List.copyOf(stack),
                    List.copyOf(roles.getOrDefault(thread.gtid(), List.of()))));
        }
        List<Finding> findings = seen.findings().stream().map(f -> new Finding(f.kind(), f.summary())).toList();
        return new RankView(List.copyOf(threads), findings, mpi, picture.notices());
    }
}
