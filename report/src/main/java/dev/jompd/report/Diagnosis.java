package dev.jompd.report;

import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.ParallelStacks.Step;
import dev.jompd.report.ParallelStacks.ThreadStack;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Why threads wait, in plain words with the evidence used: per team, who reached the barrier and who did
 * not (and where those are); who waits for a lock or critical section, and who holds it as libomp's lock
 * memory says, or where the jompd-recorder saw it taken; wait cycles (deadlocks) — see {@link LockFindings}. What a thread waits for comes from its OMPD state
 * when libomp tracks states ({@code OMP_DEBUG=enabled}), else from where its stack is (a thread inside
 * libomp's barrier code is at its team's barrier); each finding says which.
 */
public final class Diagnosis {
    /** One finding: a sentence, and the evidence behind it. */
    public record Finding(String summary, List<String> evidence) {}

    /** What one thread waits for, and how jompd knows. */
    enum Wait { BARRIER, LOCK, CRITICAL, TASKWAIT, NONE }

    record Seen(OpenMpThread thread, Wait waitsFor, String evidence, String where) {}

    private Diagnosis() {}

    public static List<Finding> of(OpenMpPicture picture, Optional<ParallelStacks> stacks) {
        Map<Long, ThreadStack> stackByGtid = new LinkedHashMap<>();
        stacks.ifPresent(s -> s.stacks().forEach(stack -> stackByGtid.put(stack.thread().gtid(), stack)));
        List<Finding> findings = new ArrayList<>();
        List<Seen> everyone = new ArrayList<>();
        for (ParallelRegion region : picture.regions()) {
            List<OpenMpThread> members = picture.members(Optional.of(region.id()));
            if (members.isEmpty()) {
                continue;
            }
            List<Seen> seen = members.stream().map(t -> seen(t, Optional.ofNullable(stackByGtid.get(t.gtid())))).toList();
            List<Seen> atBarrier = seen.stream().filter(s -> s.waitsFor() == Wait.BARRIER).toList();
            List<Seen> elsewhere = seen.stream().filter(s -> s.waitsFor() != Wait.BARRIER).toList();
            if (!atBarrier.isEmpty() && !elsewhere.isEmpty()) {
                List<String> evidence = new ArrayList<>();
                atBarrier.forEach(s -> evidence.add(s.thread().name() + ": at the barrier (" + s.evidence() + ")"));
                elsewhere.forEach(s -> evidence.add(s.thread().name() + ": not there, " + s.where() + " (" + s.evidence() + ")"));
                findings.add(new Finding("team " + region.id() + " (" + region.describe() + "): " + atBarrier.size()
                        + " of " + members.size() + " threads wait at a barrier; thread"
                        + (elsewhere.size() == 1 ? " " : "s ") + String.join(", ", elsewhere.stream()
                                .map(s -> Long.toString(s.thread().threadNum())).toList())
                        + (elsewhere.size() == 1 ? " has" : " have") + " not reached it", evidence));
            } else if (!atBarrier.isEmpty()) {
                findings.add(new Finding("team " + region.id() + " (" + region.describe() + "): all " + members.size()
                        + " threads of the team there wait at a barrier", List.of(atBarrier.getFirst().evidence())));
            }
            everyone.addAll(seen);
        }
        // Locks, critical sections, their holders and wait cycles: LockFindings.
        findings.addAll(LockFindings.of(picture, everyone));
        if (findings.isEmpty()) {
            findings.add(new Finding("no thread waits at a barrier, for a lock or a critical section",
                    List.of(stacks.isPresent() ? "states and stacks of " + picture.threads().size() + " threads"
                            : "states of " + picture.threads().size() + " threads")));
        }
        return findings;
    }

    private static Seen seen(OpenMpThread thread, Optional<ThreadStack> stack) {
        String where = stack.flatMap(Diagnosis::innermostUserStep).map(Step::describe).map(s -> "in " + s)
                .orElse("(no stack)");
        if (thread.stateKnown()) {
            String state = Text.shortState(thread.state());
            Wait wait = state.startsWith("wait_barrier") ? Wait.BARRIER : state.equals("wait_critical") ? Wait.CRITICAL
                    : state.equals("wait_lock") || state.equals("wait_nest_lock") ? Wait.LOCK
                    : state.startsWith("wait_taskwait") ? Wait.TASKWAIT : Wait.NONE;
            // libomp reports a critical section's waiters as wait_lock: the stack tells them apart
            if (wait == Wait.LOCK && stack.map(Diagnosis::runtimeSteps).orElse("").contains("critical section")) {
                wait = Wait.CRITICAL;
            }
            if (wait != Wait.NONE || stack.isEmpty()) {
                return new Seen(thread, wait, "OMPD state " + state, where);
            }
        }
        if (stack.isEmpty()) {
            return new Seen(thread, Wait.NONE, "state unknown and no stack", where);
        }
        String runtime = runtimeSteps(stack.get());
        Wait wait = runtime.contains("barrier") ? Wait.BARRIER : runtime.contains("critical section") ? Wait.CRITICAL
                : runtime.contains("waiting for a lock") ? Wait.LOCK : runtime.contains("taskwait") ? Wait.TASKWAIT
                : Wait.NONE;
        return new Seen(thread, wait, "stack: " + (runtime.isEmpty() ? "no libomp frames" : lastRuntime(stack.get())), where);
    }

    private static String runtimeSteps(ThreadStack stack) {
        return String.join(" | ", stack.steps().stream().filter(Step::runtime).map(Step::function).toList());
    }

    private static String lastRuntime(ThreadStack stack) {
        return stack.steps().stream().filter(Step::runtime).reduce((a, b) -> b).map(Step::function).orElse("");
    }

    static Optional<Step> innermostUserStep(ThreadStack stack) {
        Optional<Step> last = Optional.empty();
        for (Step step : stack.steps()) {
            // the program's own code: not the C library's wait functions below it
            boolean system = step.module().map(m -> m.startsWith("libc.") || m.startsWith("ld-linux")
                    || m.startsWith("libpthread")).orElse(false);
            if (!step.runtime() && step.source().isPresent() && !system) {
                last = Optional.of(step);
            }
        }
        return last;
    }

    /** The findings as text. */
    public static String text(List<Finding> findings) {
        StringBuilder out = new StringBuilder("Diagnosis\n");
        for (Finding finding : findings) {
            out.append("  - ").append(finding.summary()).append('\n');
            finding.evidence().forEach(e -> out.append("      ").append(e).append('\n'));
        }
        return out.toString();
    }
}
