package dev.jompd.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jompd.report.Diagnosis.Finding;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the jompd-recorder kept, as the report renders it, against what the programs recorded about
 * themselves: one time base for every time shown (the newest event of the process: an event's offset is the
 * same in its thread's list and in the "why here" sentences), the lock holder the recorder saw named by the
 * diagnosis by OpenMP thread and line, the messages of the program's marks, and the task a thread runs in
 * its taskwait.
 */
class RecordedHistoryIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One rendered event line: its relative time and its words. */
    record EventLine(String offset, String words) {}

    /**
     * Each event of the deadlocked threads is shown at its time relative to the newest event of the whole
     * process (the JSON's raw times), in the thread's list and in the "why here" sentence alike: the lock each
     * one asked for (the program's lock_a / lock_b, at the line it recorded) has one offset in both.
     */
    @Test
    void everyTimeCountsFromTheProcesssNewestEventInTheListsAndTheSentencesAlike() throws IOException {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_DEADLOCK)));
        Facts facts = fixture.facts();
        JsonNode report = json(fixture);
        String text = OpenMpPictureIT.withPicture(fixture, picture -> TextReport.render(picture,
                TextReport.Options.commandLine(false, false).withHistory(TextReport.Options.ALL_HISTORY)));
        long newest = newestEvent(report);
        assertThat(text.lines().filter(l -> l.contains(RecordedHistory.TIME_REFERENCE)).count())
                .as("the time base said once:%n%s", text).isEqualTo(1);
        for (int k = 1; k <= 2; k++) {
            Facts.ThreadFacts thread = facts.thread(k);
            JsonNode json = thread(report, thread.lwp());
            String name = json.get("name").asText();
            JsonNode events = json.get("events");
            List<EventLine> lines = eventLines(text, name);
            assertThat(lines).as("every event of %s", name).hasSize(events.size());
            for (int i = 0; i < events.size(); i++) {
                assertThat(lines.get(i).words()).isEqualTo(events.get(i).get("event").asText());
                assertOffset(lines.get(i).offset(), events.get(i).get("timeNanos").asLong() - newest);
            }
            // the lock it asked for last: its mutex_acquire, the newest such event of the thread
            long waitsFor = facts.number("lock_" + thread.get("waits_for").toLowerCase(Locale.ROOT));
            int acquire = -1;
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i).get("event").asText().equals("mutex_acquire lock wait_id 0x" + Long.toHexString(waitsFor))) {
                    acquire = i;
                }
            }
            assertThat(acquire).as("the mutex_acquire of lock %s in %s", thread.get("waits_for"), events).isNotNegative();
            Pattern asked = Pattern.compile(Pattern.quote("waits for lock 0x" + Long.toHexString(waitsFor)
                    + ", asked for at recorder_deadlock.c:" + thread.get("waits_line") + " (") + "([^)]*)\\), .*");
            List<String> why = new ArrayList<>();
            json.get("whyHere").forEach(s -> why.add(s.asText()));
            Matcher sentence = why.stream().map(asked::matcher).filter(Matcher::matches).findFirst()
                    .orElseThrow(() -> new AssertionError("no sentence " + asked + " in " + why));
            assertThat(sentence.group(1)).as("the acquire's time in the sentence and in the list").isEqualTo(lines.get(acquire).offset());
        }
    }

    /**
     * The diagnosis names the holder of each deadlocked lock as the recorder saw it take it: the other
     * thread, by its OpenMP thread and the line of its first omp_set_lock (the program's own record), though
     * OMPT names the lock by the program's {@code &lock} and libomp's table by its lock object; and the
     * deadlock is the wait-for graph's, through both threads.
     */
    @Test
    void theDiagnosisNamesTheRecordersHolderOfEachLockByOpenMpThreadAndLine() {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_DEADLOCK)));
        Facts facts = fixture.facts();
        List<Finding> findings = DiagnosisIT.diagnose(fixture);
        String text = TextReport.diagnosis(findings);
        for (int k = 1; k <= 2; k++) {
            Facts.ThreadFacts waiter = facts.thread(k);
            Facts.ThreadFacts holder = facts.thread(3 - k);
            Finding lock = findings.stream().filter(f -> f.kind() == Diagnosis.FindingKind.LOCK)
                    .filter(f -> f.threads().stream().anyMatch(t -> t.role() == Diagnosis.Role.WAITS_FOR_LOCK
                            && t.thread().lwp().getAsLong() == waiter.lwp())).findFirst()
                    .orElseThrow(() -> new AssertionError("no lock finding with waiter " + waiter + " in:\n" + text));
            assertThat(holderClause(lock.summary())).as(text).isEqualTo("held by omp " + holder.threadNum() + "/"
                    + holder.teamSize() + " (LWP " + holder.lwp() + "), which took it at recorder_deadlock.c:"
                    + holder.get("holds_line") + " (jompd-recorder)");
        }
        List<Finding> deadlocks = findings.stream().filter(f -> f.kind() == Diagnosis.FindingKind.DEADLOCK).toList();
        assertThat(deadlocks).as(text).hasSize(1);
        Set<Long> inCycle = new HashSet<>();
        deadlocks.getFirst().threads().forEach(t -> inCycle.add(t.thread().lwp().getAsLong()));
        assertThat(inCycle).as(text).isEqualTo(Set.of(facts.thread(1).lwp(), facts.thread(2).lwp()));
    }

    /**
     * The messages the program passed with omp_control_tool(64 / 65, modifier, "text"): each mark and snapshot
     * event of the thread that sent it carries its modifier and message (none for a NULL arg), in the JSON and
     * the text alike, and the recorder's marks are listed with their sender. Truth: each command, its
     * modifier, result and message as the program recorded them.
     */
    @Test
    void theProgramsMarkMessagesAreShownWithTheEventsThatSentThem() throws IOException {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_CONTROL)));
        Facts facts = fixture.facts();
        JsonNode report = json(fixture);
        assertThat(OpenMpPictureIT.schema().validate(report)).isEmpty();
        String text = OpenMpPictureIT.withPicture(fixture, picture -> TextReport.render(picture,
                TextReport.Options.commandLine(false, false).withHistory(TextReport.Options.ALL_HISTORY)));
        long lwp = facts.thread(0).lwp();
        List<String> expected = new ArrayList<>();
        List<String> expectedMarks = new ArrayList<>();
        for (int i = 0; i < facts.number("control.count"); i++) {
            String at = "control." + i + ".";
            if (facts.get(at + "phase").equals("before_init")) {
                continue; // libomp answers these itself: the tool never sees them
            }
            long command = facts.number(at + "command");
            String name = switch ((int) command) {
                case 1 -> "start";
                case 2 -> "pause";
                case 3 -> "flush";
                case 4 -> "end";
                case 64 -> "mark";
                case 65 -> "snapshot";
                default -> "command " + command;
            };
            String event = "control_tool " + name;
            if ((command == 64 || command == 65) && facts.number(at + "result") == 0) {
                String message = facts.get(at + "text");
                String said = " modifier " + facts.get(at + "modifier") + (message.isEmpty() ? ", no message" : " \"" + message + "\"");
                event += said;
                expectedMarks.add(name + " " + (expectedMarks.size() + 1) + said);
            }
            expected.add(event);
        }
        JsonNode thread = thread(report, lwp);
        List<String> json = new ArrayList<>();
        thread.get("events").forEach(e -> json.add(e.get("event").asText()));
        assertThat(json.stream().filter(e -> e.startsWith("control_tool ")).toList()).isEqualTo(expected);
        List<String> shown = eventLines(text, thread.get("name").asText()).stream().map(EventLine::words).toList();
        assertThat(shown.stream().filter(e -> e.startsWith("control_tool ")).toList()).isEqualTo(expected);
        // the recorder's list of marks: number, modifier and message, and who sent them
        List<String> marks = new ArrayList<>();
        for (JsonNode mark : report.get("recorder").get("marks")) {
            assertThat(mark.get("lwp").asLong()).isEqualTo(lwp);
            marks.add(mark.get("command").asText() + " " + mark.get("sequence").asText() + " modifier "
                    + mark.get("modifier").asText() + (mark.get("text").asText().isEmpty() ? ", no message"
                    : " \"" + mark.get("text").asText() + "\""));
        }
        assertThat(marks).isEqualTo(expectedMarks);
        String from = " from LWP " + lwp + " (" + thread.get("name").asText() + ") (";
        List<String> markLines = text.lines().filter(l -> l.startsWith("  mark ") || l.startsWith("  snapshot "))
                .map(l -> l.substring(2, l.indexOf(from) < 0 ? l.length() : l.indexOf(from))).toList();
        assertThat(markLines).as(text).isEqualTo(expectedMarks);
    }

    /**
     * A thread that runs a task inside its own taskwait: its "why here" says which task it runs there, where
     * that task was created and by whom, right after the taskwait it waits in. Truth: the program's lines of
     * the task and the taskwait, and the thread that ran the task (its own omp_get_thread_num and LWP).
     */
    @Test
    void aThreadRunningATaskInItsTaskwaitIsDescribedWithTheTask() throws IOException {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_TASKWAIT)));
        Facts facts = fixture.facts();
        assertThat(facts.number("task_thread")).isZero();
        JsonNode report = json(fixture);
        long newest = newestEvent(report);
        JsonNode thread = thread(report, facts.thread(0).lwp());
        String name = thread.get("name").asText();
        JsonNode events = thread.get("events");
        // the task it created: the one task_create of its events, "task_create explicit... task N"
        Long task = null;
        long createdAt = 0;
        for (JsonNode event : events) {
            Matcher created = Pattern.compile("task_create .* task (\\d+)").matcher(event.get("event").asText());
            if (created.matches()) {
                assertThat(task).as("one task created").isNull();
                task = Long.parseLong(created.group(1));
                createdAt = event.get("timeNanos").asLong();
            }
        }
        assertThat(task).as("task_create in %s", events).isNotNull();
        List<String> why = new ArrayList<>();
        thread.get("whyHere").forEach(s -> why.add(s.asText()));
        String taskwait = "recorder_taskwait.c:" + facts.get("taskwait_line");
        int waits = why.indexOf(why.stream().filter(s -> s.startsWith("began waiting in a taskwait at " + taskwait + " ("))
                .findFirst().orElseThrow(() -> new AssertionError("no taskwait wait in " + why)));
        assertThat(why.get(waits - 1)).startsWith("entered a taskwait at " + taskwait + " (");
        Matcher runs = Pattern.compile(Pattern.quote("runs task " + task + " there, created at recorder_taskwait.c:"
                + facts.get("task_line") + " by LWP " + facts.thread(0).lwp() + " (" + name + ") (") + "([^)]*)\\), since (.*)")
                .matcher(why.get(waits + 1));
        assertThat(runs.matches()).as("the sentence after the taskwait's: %s", why).isTrue();
        assertOffset(runs.group(1), createdAt - newest);
    }

    private static JsonNode json(StoppedFixture fixture) throws IOException {
        String json = OpenMpPictureIT.withPicture(fixture, picture -> JsonReport.render(picture));
        return JSON.readTree(json);
    }

    /** The clause of a lock finding's summary that names the holder: from "held by" to "(jompd-recorder)". */
    private static String holderClause(String summary) {
        int start = summary.indexOf("; held by ");
        int end = summary.indexOf(" (jompd-recorder)", start);
        assertThat(start).as("a holder in: %s", summary).isNotNegative();
        assertThat(end).as("the recorder's holder in: %s", summary).isNotNegative();
        return summary.substring(start + 2, end + " (jompd-recorder)".length());
    }

    /** The newest event of any thread, from the JSON's raw times. */
    private static long newestEvent(JsonNode report) {
        long newest = Long.MIN_VALUE;
        for (JsonNode thread : report.get("threads")) {
            for (JsonNode event : thread.path("events")) {
                newest = Math.max(newest, event.get("timeNanos").asLong());
            }
        }
        return newest;
    }

    private static JsonNode thread(JsonNode report, long lwp) {
        for (JsonNode thread : report.get("threads")) {
            if (thread.get("lwp").asLong() == lwp) {
                return thread;
            }
        }
        throw new AssertionError("no thread with LWP " + lwp);
    }

    /** The event lines the text shows under {@code "  NAME, ... events kept...:"}. */
    private static List<EventLine> eventLines(String text, String name) {
        List<String> lines = text.lines().toList();
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("  " + name + ", ") && lines.get(i).endsWith(":") && lines.get(i).contains("events kept")) {
                start = i;
            }
        }
        assertThat(start).as("the events of %s in:%n%s", name, text).isNotNegative();
        List<EventLine> events = new ArrayList<>();
        for (int i = start + 1; i < lines.size() && lines.get(i).startsWith("    "); i++) {
            String line = lines.get(i).substring(4);
            int gap = line.indexOf("  ");
            events.add(new EventLine(line.substring(0, gap), line.substring(gap + 2)));
        }
        return events;
    }

    /**
     * A relative time as shown ("the newest event", "-36.2 us", "-4.736 ms", "-1.203 s") says {@code nanos}:
     * equal to within the rounding of its unit.
     */
    private static void assertOffset(String shown, long nanos) {
        if (shown.equals("the newest event")) {
            assertThat(nanos).as(shown).isZero();
            return;
        }
        Matcher m = Pattern.compile("([+-]\\d+(?:\\.\\d+)?) (us|ms|s)").matcher(shown);
        assertThat(m.matches()).as("a relative time: '%s'", shown).isTrue();
        double value = Double.parseDouble(m.group(1));
        double unit = switch (m.group(2)) {
            case "us" -> 1e3;
            case "ms" -> 1e6;
            default -> 1e9;
        };
        // us rounded to one decimal, ms and s to three
        double tolerance = m.group(2).equals("us") ? 51 : unit * 0.0005 + 1;
        assertThat(Math.abs(value * unit - nanos)).as("'%s' for %d ns", shown, nanos).isLessThanOrEqualTo(tolerance);
        assertThat(nanos).as("'%s' for %d ns", shown, nanos).isNotZero();
    }
}
