package dev.jompd.core.recorder;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** What the snapshot derives from records: open scopes, lock holders, wait cycles. */
class RecorderSnapshotTest {

    private static RecordedEvent event(long sequence, OmptCallback callback, int endpoint, long kind, long parallelId) {
        return new RecordedEvent(sequence, sequence * 10, callback.id(), endpoint, kind, 0, parallelId, 0, 0, 0);
    }

    private static RecordedThread thread(long serial, List<RecordedEvent> events, List<MutexRecord> held,
                                         Optional<MutexRecord> waiting) {
        return new RecordedThread(0x1000 * (serial + 1), serial, 0x7000 + serial, 100 + serial, 2, false, 0,
                OptionalLong.empty(), 1024, events.size(), events, held, 0, waiting);
    }

    private static RecorderSnapshot snapshot(RecordedThread... threads) {
        return new RecorderSnapshot("libjompd-recorder.so", null, new RecorderClock(1, 0, 0, 0, 0), 1024, RecorderSnapshot.Monitoring.ON, 201611, "test",
                List.of(threads), Map.of(), 0, List.of(), 0, List.of(), List.of());
    }

    private static MutexRecord lock(long waitId) {
        return new MutexRecord(MutexKind.LOCK.id(), waitId, 0x401000, 5);
    }

    @Test
    void openScopesAreTheBeginsWithoutAnEndOutermostFirst() {
        RecordedThread thread = thread(0, List.of(
                event(1, OmptCallback.PARALLEL_BEGIN, 1, 0, 7),
                event(2, OmptCallback.IMPLICIT_TASK, 1, 2, 7),
                event(3, OmptCallback.SYNC_REGION, 1, 3, 7),
                event(4, OmptCallback.SYNC_REGION_WAIT, 1, 3, 7),
                event(5, OmptCallback.SYNC_REGION_WAIT, 2, 3, 7),
                event(6, OmptCallback.SYNC_REGION, 2, 3, 7),
                event(7, OmptCallback.WORK, 1, 1, 7)), List.of(), Optional.empty());
        assertThat(thread.openScopes()).extracting(RecordedEvent::describe).containsExactly(
                "parallel_begin begin parallel 7", "implicit_task begin implicit parallel 7", "work begin loop parallel 7");
    }

    @Test
    void anEndWhoseBeginLeftTheRingClosesNothing() {
        RecordedThread thread = thread(0, List.of(
                event(9, OmptCallback.SYNC_REGION, 2, 3, 1),
                event(10, OmptCallback.SYNC_REGION_WAIT, 1, 5, 1)), List.of(), Optional.empty());
        assertThat(thread.openScopes()).extracting(RecordedEvent::kindName).containsExactly("taskwait");
    }

    @Test
    void twoThreadsWaitingForEachOthersLockFormOneCycle() {
        RecordedThread first = thread(1, List.of(), List.of(lock(0xa)), Optional.of(lock(0xb)));
        RecordedThread second = thread(2, List.of(), List.of(lock(0xb)), Optional.of(lock(0xa)));
        RecordedThread bystander = thread(3, List.of(), List.of(), Optional.of(lock(0xb)));
        RecorderSnapshot snapshot = snapshot(first, second, bystander);
        assertThat(snapshot.waitCycles()).singleElement().satisfies(cycle ->
                assertThat(cycle).extracting(RecordedThread::serial).containsExactly(1L, 2L));
        assertThat(snapshot.lockHolders()).hasSize(2);
        LockHolder onB = snapshot.lockHolders().stream().filter(h -> h.waitId() == 0xb).findFirst().orElseThrow();
        assertThat(onB.holder()).contains(second);
        assertThat(onB.waiters()).containsExactly(first, bystander);
    }

    @Test
    void whyHereGivesTheScopesTheWaitItsHolderAndTheEventsSinceTheInnermostScopeBegan() {
        RecordedEvent acquire = new RecordedEvent(5, 50, OmptCallback.MUTEX_ACQUIRE.id(), 0, MutexKind.LOCK.id(), 0x401000, 0, 0, 0xb, 0);
        RecordedThread waiter = thread(1, List.of(
                event(1, OmptCallback.PARALLEL_BEGIN, 1, 0, 7),
                event(2, OmptCallback.IMPLICIT_TASK, 1, 2, 7),
                event(3, OmptCallback.MUTEX_ACQUIRE, 0, 1, 0),
                event(4, OmptCallback.MUTEX_ACQUIRED, 0, 1, 0),
                acquire), List.of(lock(0xa)), Optional.of(lock(0xb)));
        RecordedThread holder = thread(2, List.of(), List.of(lock(0xb)), Optional.empty());
        WhyHere why = snapshot(waiter, holder).whyHere(waiter, 10);
        assertThat(why.insideScopes()).extracting(e -> e.callback().orElseThrow())
                .containsExactly(OmptCallback.PARALLEL_BEGIN, OmptCallback.IMPLICIT_TASK);
        assertThat(why.waitingFor()).contains(lock(0xb));
        assertThat(why.heldBy()).contains(holder);
        assertThat(why.leadingEvents()).extracting(RecordedEvent::sequence).containsExactly(2L, 3L, 4L, 5L);
        assertThat(snapshot(waiter, holder).whyHere(waiter, 2).leadingEvents()).extracting(RecordedEvent::sequence)
                .containsExactly(4L, 5L);
    }

    @Test
    void aLockNobodyRecordedTakingHasNoHolder() {
        RecordedThread waiter = thread(1, List.of(), List.of(), Optional.of(lock(0xc)));
        RecorderSnapshot snapshot = snapshot(waiter);
        assertThat(snapshot.lockHolders()).singleElement().satisfies(h -> assertThat(h.holder()).isEmpty());
        assertThat(snapshot.waitCycles()).isEmpty();
    }
    private static RecordedEvent control(long sequence, long time, long command, long modifier, long result) {
        return new RecordedEvent(sequence, time, OmptCallback.CONTROL_TOOL.id(), 0, command, 0x401000, 0, 0, modifier, result);
    }

    /**
     * A thread's marks pair with the control_tool events that sent them, newest first: a mark whose event is
     * not written yet (the target stopped between the two) pairs with none, an ignored mark command (after
     * end) has no mark, another thread's marks are not this one's, and older events whose marks the ring
     * overwrote have none.
     */
    @Test
    void marksPairWithTheEventsThatSentThemFromTheNewestBack() {
        RecordedThread thread = thread(0, List.of(
                control(1, 100, Recorder.COMMAND_MARK, 1, 0),    // its mark was overwritten
                control(2, 200, Recorder.COMMAND_MARK, 2, 0),
                control(3, 300, Recorder.COMMAND_SNAPSHOT, 3, 0),
                control(4, 400, 2, 0, 0),                        // pause: no mark
                control(5, 500, Recorder.COMMAND_MARK, 5, 1)),   // ignored (after end): no mark
                List.of(), Optional.empty());
        RecordedThread other = thread(1, List.of(control(1, 250, Recorder.COMMAND_MARK, 9, 0)), List.of(), Optional.empty());
        List<Mark> marks = List.of(
                new Mark(7, 195, 0, Recorder.COMMAND_MARK, 2, "second"),
                new Mark(8, 249, 1, Recorder.COMMAND_MARK, 9, "other thread's"),
                new Mark(9, 299, 0, Recorder.COMMAND_SNAPSHOT, 3, "snap"),
                new Mark(10, 600, 0, Recorder.COMMAND_MARK, 6, "in flight"));
        RecorderSnapshot snapshot = new RecorderSnapshot("libjompd-recorder.so", null, new RecorderClock(1, 0, 0, 0, 0), 1024,
                RecorderSnapshot.Monitoring.ENDED, 201611, "test", List.of(thread, other), Map.of(), 5, List.of(), 10, marks, List.of());
        assertThat(snapshot.marksOf(thread)).isEqualTo(Map.of(2L, marks.get(0), 3L, marks.get(2)));
        assertThat(snapshot.marksOf(other)).isEqualTo(Map.of(1L, marks.get(1)));
    }
}
