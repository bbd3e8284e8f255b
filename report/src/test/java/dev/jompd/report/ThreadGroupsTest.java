package dev.jompd.report;

import dev.jompd.core.ompd.IcvReading;
import dev.jompd.core.ompd.OmpdRc;
import dev.jompd.core.ompd.ThreadState;
import dev.jompd.core.ompd.ToolData;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.Task;
import dev.jompd.report.OpenMpPicture.TaskKind;
import dev.jompd.report.OpenMpPicture.TaskStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** Which threads a rendering may show as one group: a table of pairs, each differing in one thing. */
class ThreadGroupsTest {
    private static OpenMpThread thread(long number, Optional<ThreadState> state, long waitId, Map<String, IcvReading> icvs,
                                       List<String> tasks) {
        return new OpenMpThread(10 + number, OptionalLong.of(100 + number), 0x7000 + number, number, state,
                state.map(s -> OptionalLong.of(s.code())).orElse(OptionalLong.empty()),
                state.isPresent() ? OptionalLong.of(waitId) : OptionalLong.empty(), Optional.of("r1"),
                List.of(), 1, 4, new ToolData(0, 0), icvs, tasks, tasks);
    }

    private static OpenMpThread thread(long number, List<String> tasks) {
        return thread(number, Optional.of(ThreadState.WAIT_BARRIER_IMPLICIT), 0, withNumber(number), tasks);
    }

    private static Map<String, IcvReading> withNumber(long number) {
        return Map.of("nthreads-var", new IcvReading.Value("4"), "thread-num-var", new IcvReading.Value(Long.toString(number)));
    }

    private static Task task(String id, TaskKind kind, long function) {
        return new Task(id, 0x1000 + id.hashCode(), 0, kind, TaskStatus.EXECUTING, Optional.empty(),
                function == 0 ? Optional.empty() : Optional.of(new CodeLocation(function, Optional.empty(), "f",
                        Optional.empty(), Optional::empty, Optional.empty(), Optional.empty(), Optional.empty(),
                        Optional.empty(), Optional::empty)),
                Optional.empty(), Optional.empty(), Optional.of("r1"), Map.of());
    }

    private static final Map<String, Task> TASKS = Map.of(
            "i0", task("i0", TaskKind.IMPLICIT, 0x400), "i1", task("i1", TaskKind.IMPLICIT, 0x400),
            "i2", task("i2", TaskKind.IMPLICIT, 0x500), "e0", task("e0", TaskKind.EXPLICIT, 0x600),
            "e1", task("e1", TaskKind.EXPLICIT, 0x600), "init", task("init", TaskKind.INITIAL, 0));

    private static final Function<OpenMpThread, List<Task>> CHAIN = t -> t.taskIds().stream().map(TASKS::get).toList();

    private static boolean alike(OpenMpThread a, OpenMpThread b) {
        return ThreadGroups.alike(CHAIN, a, b);
    }

    @Test
    void implicitTasksOfOneFunctionAndOwnThreadNumbersAreAlike() {
        assertThat(alike(thread(1, List.of("i0", "init")), thread(2, List.of("i1", "init")))).isTrue();
    }

    @Test
    void aDifferenceInAnythingShownKeepsThreadsApart() {
        OpenMpThread base = thread(1, List.of("i0", "init"));
        // implicit tasks running different code
        assertThat(alike(base, thread(2, List.of("i2", "init")))).isFalse();
        // two explicit tasks of one function are two tasks: never one group
        assertThat(alike(thread(1, List.of("e0", "i0", "init")), thread(2, List.of("e1", "i1", "init")))).isFalse();
        // the very same explicit task (an ancestor both chains reach) is alike
        assertThat(alike(thread(1, List.of("e0", "init")), thread(2, List.of("e0", "init")))).isTrue();
        // chains of different length
        assertThat(alike(base, thread(2, List.of("init")))).isFalse();
        // state, wait id, an unknown state code, ICVs, an ICV that could not be read
        assertThat(alike(base, thread(2, Optional.of(ThreadState.WORK_PARALLEL), 0, withNumber(2), List.of("i1", "init"))))
                .isFalse();
        assertThat(alike(base, thread(2, Optional.of(ThreadState.WAIT_BARRIER_IMPLICIT), 0x42, withNumber(2),
                List.of("i1", "init")))).isFalse();
        assertThat(alike(thread(1, Optional.empty(), 0, withNumber(1), List.of("i0", "init")),
                thread(2, Optional.empty(), 0, withNumber(2), List.of("i1", "init")))).isTrue();
        assertThat(alike(base, thread(2, Optional.of(ThreadState.WAIT_BARRIER_IMPLICIT), 0,
                Map.of("nthreads-var", new IcvReading.Value("8"), "thread-num-var", new IcvReading.Value("2")),
                List.of("i1", "init")))).isFalse();
        assertThat(alike(base, thread(2, Optional.of(ThreadState.WAIT_BARRIER_IMPLICIT), 0,
                Map.of("nthreads-var", new IcvReading.Failed(OmpdRc.STALE_HANDLE, "stale"), "thread-num-var",
                        new IcvReading.Value("2")), List.of("i1", "init")))).isFalse();
    }
}
