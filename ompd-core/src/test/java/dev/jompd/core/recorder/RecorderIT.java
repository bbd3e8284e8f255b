package dev.jompd.core.recorder;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.ompd.ThreadHandle;
import dev.jompd.core.ompd.ThreadIdKind;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.live.AttachException;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.StoppedFixture;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jompd-recorder inside real programs, read back from their cores and live processes through
 * {@link Recorder}, compared with what each program logged about itself.
 */
class RecorderIT {

    static RecorderSnapshot read(StoppedFixture fixture) {
        try (AddressSpace core = CoreFileAddressSpace.open(fixture.core())) {
            return Recorder.find(core).orElseThrow(() -> new AssertionError("no recorder found in " + fixture.core()));
        }
    }

    static StoppedFixture core(Fixture fixture, String... arguments) {
        return Fixtures.core(RecorderLibrary.with(FixtureRun.of(fixture, arguments)));
    }

    /** The program's own action log, rebuilt from a thread's events (recorder_events.c). */
    static String actions(RecordedThread thread) {
        List<String> actions = new ArrayList<>();
        for (RecordedEvent event : thread.events()) {
            OmptCallback callback = event.callback().orElse(null);
            if (callback == OmptCallback.SYNC_REGION && event.isBegin() && event.kindName().equals("barrier_explicit")) {
                actions.add("barrier");
            } else if (callback == OmptCallback.MUTEX_ACQUIRED && event.kindName().equals("lock")) {
                actions.add("lock");
            } else if (callback == OmptCallback.MUTEX_ACQUIRED && event.kindName().equals("critical")) {
                actions.add("critical");
            } else if (callback == OmptCallback.TASK_CREATE && event.kindName().contains("explicit")) {
                actions.add("task");
            }
        }
        return String.join(",", actions);
    }

    @Test
    void eachThreadsEventsReadFromACoreAreWhatTheProgramLogged() {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_EVENTS, "4", "12"))
                .withEnvironment("JOMPD_RECORDER_EVENTS", "4096"));
        RecorderSnapshot recorder = read(fixture);
        Facts facts = fixture.facts();
        assertThat(recorder.ringCapacity()).isEqualTo(4096);
        assertThat(recorder.monitoring()).isEqualTo(RecorderSnapshot.Monitoring.ON);
        SoftAssertions soft = new SoftAssertions();
        for (Facts.ThreadFacts thread : facts.threads()) {
            RecordedThread recorded = recorder.threadByLwp(thread.lwp()).orElseThrow();
            soft.assertThat(recorded.pthreadId()).as("pthread of " + thread).isEqualTo(thread.pthread());
            soft.assertThat(recorded.eventsLost()).as("events lost by " + thread).isZero();
            soft.assertThat(actions(recorded)).as("actions of " + thread).isEqualTo(thread.get("actions"));
            long locks = recorded.events().stream().filter(e -> e.callback().orElseThrow() == OmptCallback.MUTEX_RELEASED
                    && e.kindName().equals("lock")).count();
            soft.assertThat(locks).as("lock releases of " + thread).isEqualTo(thread.number("locks"));
            // Every lock event names the program's omp_lock_t (libomp passes the user's lock as the wait id).
            recorded.events().stream().filter(e -> e.callback().orElseThrow() == OmptCallback.MUTEX_ACQUIRED
                    && e.kindName().equals("lock")).forEach(e -> soft.assertThat(e.value()).isEqualTo(facts.number("lock_address")));
            soft.assertThat(recorded.held()).as("held by " + thread).isEmpty();
            soft.assertThat(recorded.events()).extracting(RecordedEvent::sequence).isSorted();
            soft.assertThat(recorded.events().getFirst().callback()).contains(OmptCallback.THREAD_BEGIN);
        }
        soft.assertAll();
        // Times, converted from the recorder's clock, fall between what the program itself read from
        // CLOCK_MONOTONIC at its start and just before the marker, and never go back within a thread.
        long start = facts.number("monotonic_ns_start");
        long atMarker = facts.number("monotonic_ns_marker");
        long tolerance = 1_000_000;
        for (RecordedThread thread : recorder.threads()) {
            assertThat(thread.events()).extracting(RecordedEvent::timeNanos).isSorted()
                    .allSatisfy(t -> assertThat(t).isBetween(start - tolerance, atMarker + tolerance));
        }
        // The marker thread is inside its implicit task of the region, which is inside nothing else.
        RecordedThread marker = recorder.threadByLwp(facts.thread(0).lwp()).orElseThrow();
        assertThat(marker.openScopes()).extracting(e -> e.callback().orElseThrow())
                .contains(OmptCallback.PARALLEL_BEGIN, OmptCallback.IMPLICIT_TASK);
    }

    @Test
    void ompdToolDataLeadsToTheRecordersOwnThreadAndRegionRecords() {
        StoppedFixture fixture = core(Fixture.RECORDER_EVENTS, "3", "4");
        try (AddressSpace core = CoreFileAddressSpace.open(fixture.core())) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            RecorderSnapshot recorder = Recorder.find(process).orElseThrow();
            for (Facts.ThreadFacts thread : fixture.facts().threads()) {
                ThreadHandle handle = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp());
                RecordedThread recorded = recorder.threadAt(handle.toolData().pointer()).orElseThrow();
                assertThat(recorded.lwp()).isEqualTo(thread.lwp());
                // The region's tool data is the recorder's region record, whose id the thread's
                // implicit-task begin event names.
                RecordedRegion region = Recorder.regionAt(process, recorder, handle.currentParallel().toolData().pointer());
                assertThat(region.parallelism()).isEqualTo(3);
                assertThat(recorded.events()).anyMatch(e -> e.callback().orElseThrow() == OmptCallback.IMPLICIT_TASK
                        && e.isBegin() && e.parallelId() == region.id());
                RecordedRegion task = Recorder.regionAt(process, recorder, handle.currentTask().toolData().pointer());
                assertThat(recorded.openScopes()).anyMatch(e -> e.callback().orElseThrow() == OmptCallback.IMPLICIT_TASK
                        && e.taskId() == task.id());
            }
        }
    }

    /**
     * Explicit tasks carry their recorder id in their tool data (tagged, no record): along the chain C -> B
     * -> A that OMPD walks at tasks.c's marker (C calls it), each task's id is the one its task_create event
     * names, created by the next task of the chain (the create event's encountering task), and the marker
     * thread's ring shows it switching to A and B.
     */
    @Test
    void explicitTasksToolDataHoldTheIdTheirCreateEventsNameAlongOmpdsTaskChain() {
        StoppedFixture fixture = core(Fixture.TASKS, "50", "3");
        try (AddressSpace core = CoreFileAddressSpace.open(fixture.core())) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            RecorderSnapshot recorder = Recorder.find(process).orElseThrow();
            long lwp = fixture.facts().thread(0).lwp();
            ThreadHandle marker = Ompd.threadHandle(process, ThreadIdKind.LWP, lwp);
            List<RecordedEvent> creates = recorder.threads().stream().flatMap(t -> t.events().stream())
                    .filter(e -> e.callback().orElseThrow() == OmptCallback.TASK_CREATE).toList();
            RecordedThread markerRecord = recorder.threadByLwp(lwp).orElseThrow();
            dev.jompd.core.ompd.TaskHandle task = marker.currentTask();
            List<Long> chain = new ArrayList<>();
            for (int i = 0; i < 3; i++, task = task.generating()) { // C, B, A: explicit
                assertThat(task.flags().explicit()).as("task %d of the chain is explicit", i).isTrue();
                long id = Recorder.explicitTaskId(recorder, task.toolData().value()).orElseThrow(
                        () -> new AssertionError("no tagged id in " + fixture.core()));
                chain.add(id);
            }
            long implicitId = Recorder.regionAt(process, recorder, task.toolData().pointer()).id();
            chain.add(implicitId);
            for (int i = 0; i < 3; i++) {
                long id = chain.get(i);
                long parent = chain.get(i + 1);
                assertThat(creates).as("the create event of task %d (id %d)", i, id)
                        .anySatisfy(e -> {
                            assertThat(e.taskId()).isEqualTo(id);
                            assertThat(e.value()).as("its encountering task").isEqualTo(parent);
                        });
            }
            // A and B were deferred: the marker thread switched to each (C, undeferred, ran at once).
            for (long id : chain.subList(1, 3)) {
                assertThat(markerRecord.events()).anyMatch(e -> e.callback().orElseThrow() == OmptCallback.TASK_SCHEDULE
                        && e.value() == id);
            }
        }
    }

    @Test
    void aSmallRingKeepsTheNewestEventsAndCountsTheLostOnes() {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_EVENTS, "2", "40"))
                .withEnvironment("JOMPD_RECORDER_EVENTS", "20"));
        RecorderSnapshot recorder = read(fixture);
        assertThat(recorder.ringCapacity()).as("rounded up to a power of two").isEqualTo(32);
        RecordedThread marker = recorder.threadByLwp(fixture.facts().thread(0).lwp()).orElseThrow();
        assertThat(marker.eventsWritten()).isGreaterThan(32);
        assertThat(marker.events()).hasSizeBetween(31, 32);
        assertThat(marker.events().getLast().sequence()).isEqualTo(marker.eventsWritten());
        assertThat(marker.eventsLost()).isEqualTo(marker.eventsWritten() - marker.events().size());
    }

    @Test
    void theLockOrderDeadlockNamesEachLocksHolderAndWaiter() {
        StoppedFixture fixture = core(Fixture.RECORDER_DEADLOCK);
        assertDeadlockNamed(read(fixture), fixture.facts());
    }

    static void assertDeadlockNamed(RecorderSnapshot recorder, Facts facts) {
        long lockA = facts.number("lock_a");
        long lockB = facts.number("lock_b");
        Facts.ThreadFacts holdsA = facts.threads().stream().filter(t -> t.find("holds").equals(java.util.Optional.of("A")))
                .findFirst().orElseThrow();
        Facts.ThreadFacts holdsB = facts.threads().stream().filter(t -> t.find("holds").equals(java.util.Optional.of("B")))
                .findFirst().orElseThrow();
        assertThat(recorder.holderOf(lockA).map(RecordedThread::lwp)).contains(holdsA.lwp());
        assertThat(recorder.holderOf(lockB).map(RecordedThread::lwp)).contains(holdsB.lwp());
        assertThat(recorder.lockHolders()).hasSize(2).allSatisfy(holder -> {
            assertThat(holder.kindName()).isEqualTo("lock");
            assertThat(holder.holder()).isPresent();
            assertThat(holder.waiters()).hasSize(1);
        });
        LockHolder onA = recorder.lockHolders().stream().filter(h -> h.waitId() == lockA).findFirst().orElseThrow();
        assertThat(onA.holder().orElseThrow().lwp()).isEqualTo(holdsA.lwp());
        assertThat(onA.waiters().getFirst().lwp()).isEqualTo(holdsB.lwp());
        assertThat(recorder.waitCycles()).singleElement().satisfies(cycle -> assertThat(cycle)
                .extracting(RecordedThread::lwp).containsExactlyInAnyOrder(holdsA.lwp(), holdsB.lwp()));
        // "Why is this thread here": its last event is the acquire it never got past.
        RecordedThread waiter = recorder.threadByLwp(holdsA.lwp()).orElseThrow();
        RecordedEvent last = waiter.events().getLast();
        assertThat(last.callback()).contains(OmptCallback.MUTEX_ACQUIRE);
        assertThat(last.value()).isEqualTo(lockB);
        WhyHere why = recorder.whyHere(waiter, 8);
        assertThat(why.heldBy().map(RecordedThread::lwp)).contains(holdsB.lwp());
        assertThat(why.insideScopes()).extracting(e -> e.callback().orElseThrow()).contains(OmptCallback.IMPLICIT_TASK);
        assertThat(why.leadingEvents().getLast()).isEqualTo(last);
    }

    @Test
    void theLockOrderDeadlockIsNamedInALiveProcess() {
        try (LiveFixture live = Fixtures.live(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_DEADLOCK)))) {
            RecorderSnapshot recorder;
            try (LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(live.pid())) {
                recorder = Recorder.find(space).orElseThrow();
            } catch (AttachException e) {
                Assumptions.assumeTrue(e.reason() != AttachException.Reason.PERMISSION_DENIED, e.getMessage());
                throw e;
            }
            assertDeadlockNamed(recorder, live.facts());
            assertThat(live.release()).contains("JOMPD_RESULT ok");
        }
    }

    @Test
    void everyControlToolCommandFromCIsAnsweredAsTheSpecificationSays() {
        StoppedFixture fixture = core(Fixture.RECORDER_CONTROL);
        Facts facts = fixture.facts();
        RecorderSnapshot recorder = read(fixture);
        assertControlCommands(recorder, facts);
        assertThat(recorder.marks()).extracting(Mark::text).containsExactly("first mark", "", "snap");
        assertThat(recorder.marks()).extracting(Mark::isSnapshot).containsExactly(false, false, true);
        assertThat(facts.number("paused_region_ran")).isEqualTo(1);
        // Monitoring was paused around the second region: the initial thread recorded no parallel
        // region between the pause and the next start.
        RecordedThread initial = recorder.threadByLwp(facts.thread(0).lwp()).orElseThrow();
        List<RecordedEvent> events = initial.events();
        int pause = indexOfCommand(events, 2, 0);
        int restart = indexOfCommand(events, 1, pause + 1);
        assertThat(events.subList(pause, restart)).noneMatch(e -> e.callback().orElseThrow() == OmptCallback.PARALLEL_BEGIN);
        assertThat(events.subList(0, pause)).anyMatch(e -> e.callback().orElseThrow() == OmptCallback.PARALLEL_BEGIN);
    }

    @Test
    void everyControlToolCommandFromFortranIsAnsweredWithANullArgument() {
        StoppedFixture fixture = core(Fixture.RECORDER_CONTROL_FORTRAN);
        RecorderSnapshot recorder = read(fixture);
        assertControlCommands(recorder, fixture.facts());
        assertThat(recorder.marks()).extracting(Mark::text).containsExactly("", "");
        assertThat(recorder.marks()).extracting(Mark::modifier).containsExactly(7L, 8L);
    }

    private static int indexOfCommand(List<RecordedEvent> events, long command, int from) {
        for (int i = from; i < events.size(); i++) {
            if (events.get(i).callback().orElseThrow() == OmptCallback.CONTROL_TOOL && events.get(i).kind() == command) {
                return i;
            }
        }
        throw new AssertionError("no control_tool command " + command + " after event " + from);
    }

    /**
     * OpenMP 5.1 §3.14: start, pause, flush and end answer success while the tool monitors; a tool
     * command it does not know is ignored; after end every command is ignored. libomp answers notool
     * itself before its middle initialisation (ompd-facts.md), so the tool never sees that command.
     */
    static void assertControlCommands(RecorderSnapshot recorder, Facts facts) {
        int count = (int) facts.number("control.count");
        List<Long> expectedResults = new ArrayList<>();
        List<ControlCommand> expectedSeen = new ArrayList<>();
        boolean ended = false;
        for (int index = 0; index < count; index++) {
            int i = index;
            long command = facts.number("control." + i + ".command");
            long modifier = facts.number("control." + i + ".modifier");
            boolean beforeInit = facts.find("control." + i + ".phase").map("before_init"::equals)
                    .orElseGet(() -> facts.number("control." + i + ".phase_code") == 0);
            long expected;
            if (beforeInit) {
                expected = -2; // omp_control_tool_notool
            } else if (ended) {
                expected = 1; // omp_control_tool_ignored
            } else if (command >= 1 && command <= 4 || command == Recorder.COMMAND_MARK || command == Recorder.COMMAND_SNAPSHOT) {
                expected = 0; // omp_control_tool_success
            } else {
                expected = 1;
            }
            ended |= !beforeInit && command == 4;
            expectedResults.add(expected);
            assertThat(facts.number("control." + i + ".result")).as("result of command %d (%d) as the program saw it", i, command)
                    .isEqualTo(expected);
            if (!beforeInit) {
                expectedSeen.add(new ControlCommand(0, 0, 0, command, modifier, expected));
            }
        }
        assertThat(recorder.commands()).extracting(c -> c.command() + "/" + c.modifier() + "=" + c.result())
                .as("commands the recorder received and its answers")
                .containsExactlyElementsOf(expectedSeen.stream().map(c -> c.command() + "/" + c.modifier() + "=" + c.result())
                        .collect(Collectors.toList()));
        assertThat(recorder.monitoring()).isEqualTo(RecorderSnapshot.Monitoring.ENDED);
    }

    @Test
    void aProgramWithoutTheRecorderHasNone() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2"));
        try (AddressSpace core = CoreFileAddressSpace.open(fixture.core())) {
            assertThat(Recorder.find(core)).isEmpty();
        }
    }
}
