package dev.jompd.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * The cases of the wait-matrix fixture {@code hang_constructs CONSTRUCT WHERE} (FIXTURES.md, "The wait
 * matrix"): every pair the program accepts, for tests that compare a diagnosis thread by thread with the
 * facts (and {@link GdbWaitTruth}).
 */
public final class WaitMatrix {
    /** Every CONSTRUCT, in the program's order. */
    public static final List<String> CONSTRUCTS = List.of("barrier", "for", "sections", "single", "parallel", "taskwait",
            "taskgroup", "ordered", "critical", "critical_named", "lock", "nest_lock");
    /** The constructs a task can wait in. */
    public static final List<String> IN_TASK = List.of("taskwait", "taskgroup", "critical", "critical_named", "lock",
            "nest_lock");
    /** The team-local constructs (under teams, both teams hang alike). */
    public static final List<String> IN_TEAMS = List.of("barrier", "for", "sections", "single", "parallel", "taskwait",
            "taskgroup", "ordered");

    /** One hang: CONSTRUCT and WHERE (construct, task, nested, teams), N = 3 threads per case team. */
    public record Case(String construct, String where) {
        public FixtureRun run() {
            return run(Fixture.HANG_CONSTRUCTS);
        }

        /** The case of a build of hang_constructs ({@link Fixture#HANG_CONSTRUCTS_GCC} runs on libomp only with its libgomp alias). */
        public FixtureRun run(Fixture build) {
            return FixtureRun.of(build, construct, where);
        }

        @Override
        public String toString() {
            return construct + " " + where;
        }
    }

    private WaitMatrix() {}

    /** Every case the program accepts: 12 in the construct, 6 in a task, 12 nested, 8 under teams. */
    public static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        CONSTRUCTS.forEach(c -> cases.add(new Case(c, "construct")));
        IN_TASK.forEach(c -> cases.add(new Case(c, "task")));
        CONSTRUCTS.forEach(c -> cases.add(new Case(c, "nested")));
        IN_TEAMS.forEach(c -> cases.add(new Case(c, "teams")));
        return List.copyOf(cases);
    }
}
