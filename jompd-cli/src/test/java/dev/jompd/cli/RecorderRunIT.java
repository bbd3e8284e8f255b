package dev.jompd.cli;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.Offload;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jompd-recorder through the command line: {@code jompd run --recorder} loads it into a program (the
 * ring size passing through), and {@code jompd inspect} shows each thread's events, why it is where it is
 * and, for a program that offloads, the devices. Truth: what the programs recorded about themselves (locks,
 * LWPs, target regions and devices) and their source text.
 */
class RecorderRunIT {
    private static Path launcher;

    @BeforeAll
    static void distribution() {
        launcher = Path.of("target/jompd/bin/jompd").toAbsolutePath();
        assertThat(launcher).as("the distribution (mvn package)").isExecutable();
    }

    @Test
    void jompdRunRecorderLoadsTheRecorderAndInspectSaysWhyEachDeadlockedThreadWaits() {
        FixtureRun run = FixtureRun.of(Fixture.RECORDER_DEADLOCK).withEnvironment("JOMPD_RECORDER_EVENTS", "256");
        try (LiveFixture live = Fixtures.live(run, List.of(launcher.toString(), "run", "--recorder", "--"))) {
            InspectCommandIT.Result result = InspectCommandIT.jompd("inspect", "--pid", Long.toString(live.pid()), "--json");
            assertThat(result.exitCode()).as(result.err()).isZero();
            JsonObject report = JsonParser.parseString(result.out()).getAsJsonObject();
            assertThat(report.getAsJsonObject("recorder").get("ringCapacity").getAsLong()).as("JOMPD_RECORDER_EVENTS passed through")
                    .isEqualTo(256);
            Map<Long, JsonObject> threads = new HashMap<>();
            report.getAsJsonArray("threads").forEach(t -> threads.put(t.getAsJsonObject().get("lwp").getAsLong(), t.getAsJsonObject()));
            Facts facts = live.facts();
            for (int k = 1; k <= 2; k++) {
                JsonObject thread = threads.get(facts.thread(k).lwp());
                // the ring read whole (sequence 1, 2, … with none lost), its text tail the last 8 of them, and the
                // thread's story: it acquired the lock it holds, and its last event is its wait for the other one
                List<JsonObject> events = new ArrayList<>();
                thread.getAsJsonArray("events").forEach(e -> events.add(e.getAsJsonObject()));
                assertThat(thread.get("eventsLost").getAsString()).as("events lost by thread " + k).isEqualTo("0");
                for (int i = 0; i < events.size(); i++) {
                    assertThat(events.get(i).get("sequence").getAsLong()).as("events of thread " + k).isEqualTo(i + 1);
                }
                List<JsonObject> recent = new ArrayList<>();
                thread.getAsJsonArray("recentEvents").forEach(e -> recent.add(e.getAsJsonObject()));
                List<JsonObject> tail = events.subList(Math.max(0, events.size() - 8), events.size());
                assertThat(recent.stream().map(e -> e.get("event")).toList()).as("recent events of thread " + k)
                        .isEqualTo(tail.stream().map(e -> e.get("event")).toList());
                List<String> texts = events.stream().map(e -> e.get("event").getAsString()).toList();
                String holds = "0x" + Long.toHexString(facts.number("lock_" + facts.thread(k).get("holds").toLowerCase(java.util.Locale.ROOT)));
                String waitsFor = "0x" + Long.toHexString(facts.number("lock_" + facts.thread(k).get("waits_for").toLowerCase(java.util.Locale.ROOT)));
                assertThat(texts.getLast()).as("thread %d's last event: %s", k, texts).startsWith("mutex_acquire lock ")
                        .endsWith(" wait_id " + waitsFor);
                assertThat(texts.stream().filter(t -> t.startsWith("mutex_acquired lock ") && t.endsWith(" wait_id " + holds)))
                        .as("thread %d's events: %s", k, texts).hasSize(1);
                String why = String.join("\n", strings(thread, "whyHere"));
                for (String fragment : RecorderLibrary.deadlockWhyHere(facts, k)) {
                    assertThat(why).as("why thread %d is here", k).contains(fragment);
                }
            }
            InspectCommandIT.Result text = InspectCommandIT.jompd("inspect", "--pid", Long.toString(live.pid()));
            assertThat(text.out()).contains("Recorded history").contains(": why here")
                    .contains(RecorderLibrary.deadlockWhyHere(facts, 1).getFirst());
            assertThat(live.release()).contains("JOMPD_RESULT ok");
        }
    }

    /**
     * A history longer than the text's tail, read from a core: the JSON carries every event the ring keeps
     * (the program's whole action log can be rebuilt from it), the text shows the last 8 unless asked for N
     * or all. Truth: each thread's log of what it did (recorder_events.c) and its lock's address.
     */
    @Test
    void theJsonCarriesTheWholeRecordedHistoryAndTheTextShowsAsMuchAsAskedFor() {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_EVENTS, "2", "20"))
                .withEnvironment("JOMPD_RECORDER_EVENTS", "1024"));
        Facts facts = fixture.facts();
        String core = fixture.core().toString();
        String exe = fixture.executable().toString();
        InspectCommandIT.Result result = InspectCommandIT.jompd("inspect", "--core", core, "--exe", exe, "--json");
        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonObject report = JsonParser.parseString(result.out()).getAsJsonObject();
        Map<Long, JsonObject> threads = new HashMap<>();
        report.getAsJsonArray("threads").forEach(t -> threads.put(t.getAsJsonObject().get("lwp").getAsLong(), t.getAsJsonObject()));
        Map<Long, Integer> eventCounts = new HashMap<>();
        for (Facts.ThreadFacts fact : facts.threads()) {
            JsonObject thread = threads.get(fact.lwp());
            List<JsonObject> events = new ArrayList<>();
            thread.getAsJsonArray("events").forEach(e -> events.add(e.getAsJsonObject()));
            assertThat(events).as("events of %s", fact).hasSizeGreaterThan(8 * 4);
            assertThat(thread.get("eventsLost").getAsString()).isEqualTo("0");
            assertThat(thread.get("eventsWritten").getAsLong()).isEqualTo(events.size());
            // every event, in order: sequence 1, 2, ... (none left out), and the program's own log rebuilt from them
            for (int i = 0; i < events.size(); i++) {
                assertThat(events.get(i).get("sequence").getAsLong()).isEqualTo(i + 1);
            }
            List<String> actions = new ArrayList<>();
            for (JsonObject event : events) {
                String text = event.get("event").getAsString();
                if (text.startsWith("sync_region begin barrier_explicit")) {
                    actions.add("barrier");
                } else if (text.startsWith("mutex_acquired lock ")) {
                    actions.add("lock");
                    assertThat(text).endsWith(" wait_id 0x" + Long.toHexString(facts.number("lock_address")));
                } else if (text.startsWith("mutex_acquired critical ")) {
                    actions.add("critical");
                } else if (text.startsWith("task_create") && text.contains("explicit")) {
                    actions.add("task");
                }
            }
            assertThat(String.join(",", actions)).as("actions of %s", fact).isEqualTo(fact.get("actions"));
            // the older readers' tail: the last 8 of them
            List<JsonObject> recent = new ArrayList<>();
            thread.getAsJsonArray("recentEvents").forEach(e -> recent.add(e.getAsJsonObject()));
            assertThat(recent).hasSize(8);
            for (int i = 0; i < 8; i++) {
                assertThat(recent.get(i).get("timeNanos")).isEqualTo(events.get(events.size() - 8 + i).get("timeNanos"));
                assertThat(recent.get(i).get("event")).isEqualTo(events.get(events.size() - 8 + i).get("event"));
            }
            eventCounts.put(fact.lwp(), events.size());
        }
        // the text: the last 8 by default, N or every one when asked
        for (Facts.ThreadFacts fact : facts.threads()) {
            int kept = eventCounts.get(fact.lwp());
            String name = threads.get(fact.lwp()).get("name").getAsString();
            assertThat(historyLines(InspectCommandIT.jompd("inspect", "--core", core, "--exe", exe), name,
                    "last 8 of " + kept + " events kept")).hasSize(8);
            assertThat(historyLines(InspectCommandIT.jompd("inspect", "--core", core, "--exe", exe, "--history", "20"),
                    name, "last 20 of " + kept + " events kept")).hasSize(20);
            List<String> all = historyLines(InspectCommandIT.jompd("inspect", "--core", core, "--exe", exe,
                    "--history=all"), name, "all " + kept + " events kept");
            assertThat(all).hasSize(kept);
            List<String> json = new ArrayList<>();
            threads.get(fact.lwp()).getAsJsonArray("events").forEach(e -> json.add(e.getAsJsonObject().get("event").getAsString()));
            assertThat(all).allSatisfy(line -> assertThat(line).contains("  "));
            assertThat(all.stream().map(line -> line.substring(line.indexOf("  ") + 2)).toList()).isEqualTo(json);
        }
        InspectCommandIT.Result bad = InspectCommandIT.jompd("inspect", "--core", core, "--exe", exe, "--history", "lots");
        // an invalid command line: exit 2, the option named
        assertThat(bad.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(bad.err()).startsWith("Invalid value for option '--history': expected a number of events (0 or more) "
                + "or 'all', got 'lots'\n");
    }

    /** The event lines the text report shows under {@code "NAME, HEADER:"}. */
    private static List<String> historyLines(InspectCommandIT.Result result, String name, String header) {
        assertThat(result.exitCode()).as(result.err()).isZero();
        List<String> lines = List.of(result.out().split("\n"));
        int start = lines.indexOf("  " + name + ", " + header + ":");
        assertThat(start).as("%s in:%n%s", header, result.out()).isNotNegative();
        List<String> events = new ArrayList<>();
        for (int i = start + 1; i < lines.size() && lines.get(i).startsWith("    "); i++) {
            events.add(lines.get(i).substring(4));
        }
        return events;
    }

    @Test
    void devicesOfAnOffloadingProgramAreShownWithTheirTargetRegionsAndTracingUnavailable() {
        Offload.unavailableReason().ifPresent(reason -> {
            System.out.println("[jompd] offload test skipped: " + reason);
            Assumptions.abort(reason);
        });
        // libomptarget connects its OMPT interface to libomp by dlopen("libomp.so"): only on the library path.
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_OFFLOAD, "5"))
                .withEnvironment("LD_LIBRARY_PATH", Offload.RUNTIME_DIRECTORY.toString()));
        Facts facts = fixture.facts();
        InspectCommandIT.Result result = InspectCommandIT.jompd("inspect", "--core", fixture.core().toString(),
                "--exe", fixture.executable().toString(), "--json");
        assertThat(result.exitCode()).as(result.err()).isZero();
        JsonObject recorder = JsonParser.parseString(result.out()).getAsJsonObject().getAsJsonObject("recorder");
        long regions = facts.number("target_regions");
        long devices = facts.number("num_devices");
        assertThat(recorder.getAsJsonArray("devices")).hasSize((int) facts.number("devices_used"));
        for (JsonElement element : recorder.getAsJsonArray("devices")) {
            JsonObject device = element.getAsJsonObject();
            int number = device.get("device").getAsInt();
            // The program sends region i to device i % num_devices.
            long expected = java.util.stream.LongStream.range(0, regions).filter(i -> i % devices == number).count();
            assertThat(device.get("targetRegions").getAsLong()).as("target regions on device " + number).isEqualTo(expected);
            assertThat(device.get("tracing").getAsString()).isEqualTo("unavailable");
            assertThat(device.getAsJsonObject("lastTarget").get("lwp").getAsLong()).isEqualTo(facts.thread(0).lwp());
            assertThat(device.get("summary").getAsString()).startsWith("device " + number + " (" + device.get("type").getAsString() + "): initialised")
                    .contains(expected + (expected == 1 ? " target region" : " target regions"))
                    .contains("last: target at recorder_offload.c:").contains("tracing unavailable");
        }
        InspectCommandIT.Result text = InspectCommandIT.jompd("inspect", "--core", fixture.core().toString(),
                "--exe", fixture.executable().toString());
        assertThat(text.out()).contains("device 0 (").contains("tracing unavailable");
    }

    private static List<String> strings(JsonObject object, String member) {
        List<String> list = new ArrayList<>();
        if (object.has(member)) {
            object.getAsJsonArray(member).forEach(e -> list.add(e.getAsString()));
        }
        return list;
    }
}
