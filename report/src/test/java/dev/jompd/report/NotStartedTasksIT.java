package dev.jompd.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jompd.report.OpenMpPicture.NotStarted;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import dev.jompd.testkit.StockRuntimes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every task shown: the tasks deferred_tasks created and that have not started — in two threads' deques, and
 * waiting for their dependences on a task in a deque — are in the picture after the threads' own tasks, each with
 * its construct's line, as the program recorded them; the text lists them per deque and per predecessor with their
 * counts, exactly; the JSON lists each with where it waits and validates against the schema.
 */
class NotStartedTasksIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Our build of libomp (read through its symbols), and Debian's stripped libomp5-19 (read through its profile). */
    static Stream<FixtureRun> runs() {
        return Stream.of(FixtureRun.of(Fixture.DEFERRED_TASKS, "7", "3", "2", "3"),
                StockRuntimes.onDebian(FixtureRun.of(Fixture.DEFERRED_TASKS, "4", "5", "6", "2"), 19));
    }

    @ParameterizedTest
    @MethodSource("runs")
    void everyTaskTheProgramCreatedIsShownOnceWithItsConstructAndWhereItWaits(FixtureRun run) throws IOException {
        StoppedFixture fixture = Fixtures.core(run);
        Facts facts = fixture.facts();
        long n0 = facts.number("deferred.t0.count"), n1 = facts.number("deferred.t1.count"), m = facts.number("deferred.d.count");
        String text = OpenMpPictureIT.withPicture(fixture, picture -> {
            OpenMpThread thread0 = thread(picture, facts, 0);
            OpenMpThread thread1 = thread(picture, facts, 1);
            List<NotStarted> tasks = picture.notStarted();
            assertThat(picture.problems()).isEmpty();
            assertThat((long) tasks.size()).isEqualTo(facts.number("deferred.total"));
            // ids after every task of the threads' chains and stacks, in libomp's order
            int first = picture.tasks().size() - tasks.size();
            assertThat(tasks.stream().map(NotStarted::taskId).toList()).isEqualTo(ids(first, tasks.size()));
            // each task's construct line, where it waits, and who created it
            List<String> expected = new ArrayList<>();
            String implicit0 = thread0.taskIds().getFirst(), implicit1 = thread1.taskIds().getFirst();
            String p = "t" + (first + n0);
            for (int i = 0; i < n0; i++) {
                expected.add(facts.get("deferred.t0.line") + " deque " + thread0.gtid() + " #" + i + " by " + implicit0);
            }
            expected.add(facts.get("deferred.p.line") + " deque " + thread0.gtid() + " #" + n0 + " by " + implicit0);
            for (int i = 0; i < n1; i++) {
                expected.add(facts.get("deferred.t1.line") + " deque " + thread1.gtid() + " #" + i + " by " + implicit1);
            }
            for (int i = 0; i < m; i++) {
                expected.add(facts.get("deferred.d.line") + " after " + p + " (1 unmet) by " + implicit0);
            }
            assertThat(tasks.stream().map(task -> line(picture, task) + (task.queued()
                    ? " deque " + task.queueGtid().getAsLong() + " #" + task.position()
                    : " after " + task.predecessorId().orElseThrow() + " (" + task.unmet() + " unmet)")
                    + " by " + task.creatorId().orElseThrow()).toList()).isEqualTo(expected);
            assertThat(tasks).allSatisfy(task -> assertThat(picture.tasks().get(task.taskId()).status())
                    .isEqualTo(OpenMpPicture.TaskStatus.NOT_STARTED));
            assertThat(picture.queuedByGtid()).containsExactlyInAnyOrderEntriesOf(java.util.Map.of(
                    thread0.gtid(), n0 + 1, thread1.gtid(), n1));

            // the text: one line per construct and creator, with the count
            String file = "deferred_tasks.c:";
            List<String> block = List.of(
                    "  tasks created and not started: " + tasks.size(),
                    "    ready in the deque of thread 0 (gtid " + thread0.gtid() + "): " + (n0 + 1),
                    "      " + n0 + "× explicit task " + range(first, n0) + "  task at " + file + facts.get("deferred.t0.line")
                            + ", created by " + implicit0,
                    "      1× explicit task " + p + "  task at " + file + facts.get("deferred.p.line") + ", created by " + implicit0,
                    "    ready in the deque of thread 1 (gtid " + thread1.gtid() + "): " + n1,
                    "      " + n1 + "× explicit task " + range(first + (int) n0 + 1, n1) + "  task at " + file
                            + facts.get("deferred.t1.line") + ", created by " + implicit1,
                    "    waiting for their dependences on explicit task " + p + ": " + m,
                    "      " + m + "× explicit task " + range(first + (int) (n0 + 1 + n1), m) + "  task at " + file
                            + facts.get("deferred.d.line") + ", created by " + implicit0 + ", 1 dependence unmet");
            String report = TextReport.render(picture, TextReport.Options.commandLine(false, false));
            int at = report.indexOf(block.getFirst());
            assertThat(at).as(report).isPositive();
            assertThat(report.substring(at).lines().limit(block.size()).toList()).as(report).isEqualTo(block);
            // thread 1's own: its deque only (none of its chain's tasks created or is waited for by another)
            assertThat(NotStartedTasks.lines(picture, thread1, "")).isEqualTo(List.of(
                    "tasks created and not started: " + n1, block.get(4).substring(2), block.get(5).substring(2)));
            return JsonReport.render(picture);
        });
        JsonNode json = JSON.readTree(text);
        assertThat(OpenMpPictureIT.schema().validate(json)).isEmpty();
        JsonNode notStarted = json.get("tasksNotStarted");
        assertThat(notStarted.get("tasks").size()).isEqualTo(facts.number("deferred.total"));
        assertThat(notStarted.get("notListed").asLong()).isZero();
        List<String> lines = new ArrayList<>();
        notStarted.get("tasks").forEach(task -> lines.add(task.get("task").get("function").get("displayName").asText()
                + (task.has("queue") ? " queued" : " waits for " + task.get("waitsFor").get("task").asText())));
        List<String> expected = new ArrayList<>();
        int first = json.get("tasksNotStarted").get("tasks").get(0).get("task").get("id").asText().substring(1).chars()
                .reduce(0, (a, c) -> a * 10 + c - '0');
        for (int i = 0; i < n0; i++) expected.add("task at deferred_tasks.c:" + facts.get("deferred.t0.line") + " queued");
        expected.add("task at deferred_tasks.c:" + facts.get("deferred.p.line") + " queued");
        for (int i = 0; i < n1; i++) expected.add("task at deferred_tasks.c:" + facts.get("deferred.t1.line") + " queued");
        for (int i = 0; i < m; i++) expected.add("task at deferred_tasks.c:" + facts.get("deferred.d.line") + " waits for t" + (first + n0));
        assertThat(lines).isEqualTo(expected);
    }

    /** tasks.c's tasks waiting for their dependences on A, more than jompd lists: the first listed, the rest counted. */
    @ParameterizedTest
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void tasksBeyondTheListedOnesAreCounted(int version) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TASKS, "1500").onRuntime(version));
        long outstanding = fixture.facts().number("tasks_outstanding");
        OpenMpPictureIT.withPicture(fixture, picture -> {
            int listed = dev.jompd.core.ompd.RuntimeTaskQueues.MAX_TASKS;
            assertThat(picture.problems()).isEmpty();
            assertThat(picture.notStarted()).hasSize(listed);
            assertThat(picture.notStartedNotListed()).isEqualTo(outstanding - listed);
            String a = picture.notStarted().getFirst().predecessorId().orElseThrow();
            assertThat(picture.notStarted()).allSatisfy(task -> {
                assertThat(task.predecessorId()).hasValue(a);
                assertThat(task.unmet()).isEqualTo(1);
            });
            assertThat(NotStartedTasks.lines(picture, "").getFirst()).isEqualTo("tasks created and not started: " + listed
                    + " listed, " + (outstanding - listed) + " more counted (jompd lists at most " + listed + ")");
            return null;
        });
    }

    private static String line(OpenMpPicture picture, NotStarted task) {
        String source = picture.tasks().get(task.taskId()).function().orElseThrow().source().orElseThrow();
        return source.substring(source.lastIndexOf(':') + 1);
    }

    private static List<String> ids(int first, int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add("t" + (first + i));
        }
        return ids;
    }

    private static String range(long first, long count) {
        return count == 1 ? "t" + first : count == 2 ? "t" + first + ",t" + (first + 1) : "t" + first + "..t" + (first + count - 1);
    }

    private static OpenMpThread thread(OpenMpPicture picture, Facts facts, int k) {
        long lwp = facts.thread(k).lwp();
        return picture.threads().stream().filter(t -> t.lwp().isPresent() && t.lwp().getAsLong() == lwp).findFirst().orElseThrow();
    }
}
