package dev.jompd.report;

import dev.jompd.report.LockFindings.CycleSearch;
import dev.jompd.report.LockFindings.Edge;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The deadlock search over a synthetic wait-for graph (gtids, and what each waits for in words). */
class LockFindingsTest {
    private static Edge lock(long from, long to, String lock) {
        return new Edge(from, to, "waits for " + lock);
    }

    private static Edge barrier(long from, long to) {
        return new Edge(from, to, "waits at a barrier of team r1, which it has not reached");
    }

    private static List<List<Long>> threads(CycleSearch search) {
        return search.cycles().stream().map(cycle -> cycle.stream().map(Edge::from).toList()).toList();
    }

    @Test
    void aTwoLockCycleIsFoundOnceFromItsSmallestGtid() {
        CycleSearch search = LockFindings.cycles(List.of(lock(2, 1, "lock A"), lock(1, 2, "lock B")), 2);
        assertThat(threads(search)).containsExactly(List.of(1L, 2L));
        assertThat(search.cut()).isFalse();
    }

    @Test
    void aCycleOfBarriersAloneIsNoDeadlockOfLocks() {
        assertThat(LockFindings.cycles(List.of(barrier(1, 2), barrier(2, 1)), 2).cycles()).isEmpty();
    }

    @Test
    void aLockHolderWaitingAtABarrierTheWaiterHasNotReachedIsADeadlock() {
        CycleSearch search = LockFindings.cycles(List.of(lock(1, 0, "a critical section"), barrier(0, 1)), 2);
        assertThat(threads(search)).containsExactly(List.of(0L, 1L));
    }

    @Test
    void theSameLocksThroughAnotherWaiterAreNoSecondCycle() {
        // threads 1 and 2 both wait for lock A held by 0, which waits at a barrier neither has reached
        CycleSearch search = LockFindings.cycles(List.of(lock(1, 0, "lock A"), lock(2, 0, "lock A"),
                barrier(0, 1), barrier(0, 2)), 3);
        assertThat(threads(search)).containsExactly(List.of(0L, 1L));
    }

    @Test
    void aChainWithoutCycleAndAnEmptyGraphHaveNone() {
        assertThat(LockFindings.cycles(List.of(lock(1, 2, "lock A"), lock(2, 3, "lock B")), 3).cycles()).isEmpty();
        assertThat(LockFindings.cycles(List.of(), 0).cycles()).isEmpty();
    }

    @Test
    void aDenseGraphIsCutAtTheStepBoundAndSaysSo() {
        List<Edge> edges = new ArrayList<>();
        int threads = 10; // 9! simple paths from each start: far past the step bound
        for (long a = 0; a < threads; a++) {
            for (long b = 0; b < threads; b++) {
                if (a != b) {
                    edges.add(new Edge(a, b, "waits at a barrier of team r1"));
                }
            }
        }
        CycleSearch search = LockFindings.cycles(edges, threads);
        assertThat(search.cut()).isTrue();
        assertThat(search.cycles()).isEmpty();
    }
}
