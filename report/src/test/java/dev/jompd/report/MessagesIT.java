package dev.jompd.report;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.jompd.report.OpenMpPictureIT.withPicture;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The picture's words as a user reads them, on real cores: {@code ompd parallel} names every thread of each
 * enclosing team (the level-0 region's one too), place-partition-var is what the program got, what cannot be read
 * says why in words in every view (no OMPD return code as a value), the environment the program runs with and
 * libomp's start-up record are each called what they are, and a missing OMP_DEBUG is said once.
 */
class MessagesIT {

    private static final ConsoleReport.Options OPTIONS = new ConsoleReport.Options("gdb", t -> OptionalInt.empty(), t -> false);

    @Test
    void parallelNamesEveryThreadOfEachEnclosingTeamAndMarksTheAncestors() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3"));
        Facts facts = fixture.facts();
        withPicture(fixture, picture -> {
            for (Facts.ThreadFacts thread : facts.threads()) {
                OpenMpThread subject = picture.threadByLwp(thread.lwp()).orElseThrow();
                String text = ConsoleReport.parallel(picture, subject, OPTIONS);
                // per level (innermost first): the team's thread numbers, and which one is marked
                List<List<Long>> numbers = new ArrayList<>();
                List<Long> marked = new ArrayList<>();
                for (String line : text.lines().skip(1).toList()) {
                    if (line.startsWith("level ")) {
                        numbers.add(new ArrayList<>());
                        marked.add(-1L);
                        continue;
                    }
                    Matcher member = Pattern.compile("^    thread (\\d+)  gdb \\?  LWP \\d+  gtid \\d+  .*").matcher(line);
                    assertThat(member.matches()).as("a thread read, in\n" + text).isTrue();
                    numbers.getLast().add(Long.parseLong(member.group(1)));
                    if (line.endsWith("<- this thread") || line.endsWith("<- this thread's ancestor")) {
                        marked.set(marked.size() - 1, Long.parseLong(member.group(1)));
                    }
                }
                assertThat(numbers).as(text).hasSize(thread.level() + 1);
                List<Long> expectedMarks = new ArrayList<>();
                expectedMarks.add((long) thread.threadNum());
                for (int level = thread.level() - 1; level >= 1; level--) {
                    expectedMarks.add((long) thread.ancestors().get(level - 1));
                }
                expectedMarks.add(0L); // the initial thread, level 0's only one
                assertThat(marked).as(text).isEqualTo(expectedMarks);
                for (int index = 0; index <= thread.level(); index++) {
                    int level = thread.level() - index;
                    long size = level == 0 ? 1 : thread.teamSizes().get(level - 1);
                    List<Long> all = new ArrayList<>();
                    for (long n = 0; n < size; n++) {
                        all.add(n);
                    }
                    assertThat(numbers.get(index)).as(text).isEqualTo(all);
                }
            }
            return null;
        });
    }

    /**
     * In a region the program has left (libomp keeps its team for the next region), ompd parallel names the team's
     * thread 0 — the thread that encountered the region, back in level 0 — and says so, where it had said "thread 0
     * (not among the threads read)" for the thread it lists at the next level.
     */
    @Test
    void parallelNamesAnEndedRegionsPrimaryThreadBackInTheEnclosingRegion() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.SERIAL, "3", "after"));
        Facts facts = fixture.facts();
        long mainLwp = facts.thread(0).lwp();
        withPicture(fixture, picture -> {
            OpenMpThread main = picture.threadByLwp(mainLwp).orElseThrow();
            List<OpenMpThread> workers = picture.threads().stream().filter(t -> t.level() == 1)
                    .sorted(java.util.Comparator.comparingLong(OpenMpThread::threadNum)).toList();
            assertThat(workers).as("the ended region's workers").hasSize(2);
            for (OpenMpThread worker : workers) {
                String text = ConsoleReport.parallel(picture, worker, OPTIONS);
                List<String> expected = new ArrayList<>();
                expected.add("Thread ? (LWP " + worker.lwp().getAsLong() + "), OpenMP thread " + worker.threadNum()
                        + " (gtid " + worker.gtid() + "): parallel regions, innermost first");
                expected.add("level 1 region, team of 3, ended  (active level 1)");
                expected.add("    thread 0  gdb ?  LWP " + mainLwp + "  gtid " + main.gtid() + "  "
                        + ConsoleReport.state(main) + "  (back in level 0: this region has ended)");
                for (OpenMpThread member : workers) {
                    expected.add("    thread " + member.threadNum() + "  gdb ?  LWP " + member.lwp().getAsLong() + "  gtid "
                            + member.gtid() + "  " + ConsoleReport.state(member)
                            + (member.equals(worker) ? "   <- this thread" : ""));
                }
                expected.add("level 0 (implicit parallel region of the initial task)  (active level 0)");
                expected.add("    thread 0  gdb ?  LWP " + mainLwp + "  gtid " + main.gtid() + "  " + ConsoleReport.state(main));
                assertThat(text.lines().toList()).isEqualTo(expected);
            }
            return null;
        });
    }

    /**
     * place-partition-var is read where libomp keeps it: every thread's value in every view is the partition the
     * program got (its places' processors, then their numbers: omp_get_partition_place_nums, omp_get_place_proc_ids,
     * omp_get_num_places), not the {@code <ompd_rc_unavailable>} it had been.
     */
    @Test
    void placePartitionVarIsThePartitionTheProgramGotInEveryView() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").withEnvironment("OMP_PLACES", "cores"));
        Facts facts = fixture.facts();
        withPicture(fixture, picture -> {
            JsonObject json = JsonParser.parseString(JsonReport.render(picture)).getAsJsonObject();
            for (Facts.ThreadFacts recorded : facts.threads()) {
                String numbers = recorded.get("partition_places");
                String expected = recorded.get("partition_procs") + " (place" + (numbers.contains(",") ? "s " : " ")
                        + numbers + " of " + facts.get("icv.num_places") + ")";
                OpenMpThread thread = picture.threadByLwp(recorded.lwp()).orElseThrow();
                String console = ConsoleReport.icvs(picture, ConsoleReport.IcvSelection.of("place-partition-var"),
                        Optional.of(thread), OPTIONS);
                assertThat(console.lines().toList().getLast()).isEqualTo("  place-partition-var  " + expected);
                JsonObject inJson = json.getAsJsonArray("threads").asList().stream().map(JsonElement::getAsJsonObject)
                        .filter(t -> t.get("lwp").getAsLong() == recorded.lwp()).findFirst().orElseThrow();
                assertThat(inJson.getAsJsonObject("icvs").get("place-partition-var").getAsString()).isEqualTo(expected);
            }
            return null;
        });
    }

    /**
     * On Debian's stripped libomp (read through its runtime profile, which does not place the place masks' vtable) and
     * without OMP_DEBUG, what cannot be read says why in words in every view: no OMPD return code anywhere a user
     * reads, as a value or in a sentence.
     */
    @Test
    void whatCannotBeReadSaysWhyInWordsInEveryView() {
        StoppedFixture fixture = Fixtures.core(dev.jompd.testkit.StockRuntimes.onDebian(FixtureRun.of(Fixture.NESTED, "2", "2")
                .withEnvironment("OMP_DEBUG", "disabled"), 19));
        withPicture(fixture, picture -> {
            OpenMpThread thread = picture.threads().getFirst();
            String console = ConsoleReport.icvs(picture, ConsoleReport.IcvSelection.of("place-partition-var"),
                    Optional.of(thread), OPTIONS);
            assertThat(picture.runtimeReading()).isEqualTo("profile libomp " + dev.jompd.testkit.SupportedRuntimes.upstream(19));
            // its profile places the place list, but not the masks' vtable (our build's distance from the breadcrumbs,
            // which Debian's build does not keep): without it no mask is believed
            String why = "libomp's place masks cannot be checked: this runtime (read by " + picture.runtimeReading()
                    + ") does not give the vtable of their class, KMPNativeAffinity::Mask";
            assertThat(console.lines().toList().getLast()).isEqualTo("  place-partition-var  (not read: " + why + ")");
            JsonObject json = JsonParser.parseString(JsonReport.render(picture)).getAsJsonObject();
            for (JsonElement t : json.getAsJsonArray("threads")) {
                assertThat(t.getAsJsonObject().getAsJsonObject("icvs").get("place-partition-var").getAsString())
                        .isEqualTo("<not read: " + why + ">");
            }
            StringBuilder everything = new StringBuilder(JsonReport.render(picture));
            everything.append(TextReport.render(picture, TextReport.Options.commandLine(true, false)));
            everything.append(ConsoleReport.threads(picture, OPTIONS, List.of()));
            for (OpenMpThread each : picture.threads()) {
                everything.append(ConsoleReport.icvs(picture, ConsoleReport.IcvSelection.of(""), Optional.of(each), OPTIONS))
                        .append(ConsoleReport.parallel(picture, each, OPTIONS));
            }
            assertThat(everything.toString()).doesNotContain("ompd_rc");
            return null;
        });
    }

    @Test
    void libompsStartUpRecordIsCalledWhatItIs() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2"));
        String text = withPicture(fixture, picture -> TextReport.render(picture, TextReport.Options.commandLine(false, false)));
        List<String> headings = text.lines().filter(l -> l.startsWith("libomp's defaults")).toList();
        assertThat(headings).containsExactly("libomp's defaults: recorded when libomp started, before it read OMP_* and "
                + "KMP_* from the environment (OMPD's display control variables): not what the program runs with, "
                + "which the ICVs above show");
    }

    /**
     * What the program runs with: the OMP_* and KMP_* variables of its own environment, exactly as the program's
     * getenv saw them (recorded by the fixture), in the picture, the text's section and the JSON (the section had
     * shown libomp's start-up record alone: OMP_NUM_THREADS undefined and OMP_STACKSIZE 4M for 4,3 and 2M).
     */
    @Test
    void theOpenMpEnvironmentIsWhatTheProgramRunsWith() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2")
                .withEnvironment("OMP_NUM_THREADS", "4,3").withEnvironment("OMP_STACKSIZE", "2M"));
        java.util.Properties facts = fixture.facts().asProperties();
        java.util.Map<String, String> recorded = new java.util.TreeMap<>();
        for (String key : facts.stringPropertyNames()) {
            if (key.startsWith("env.OMP_") || key.startsWith("env.KMP_")) {
                recorded.put(key.substring("env.".length()), facts.getProperty(key));
            }
        }
        assertThat(recorded).containsEntry("OMP_NUM_THREADS", "4,3").containsEntry("OMP_STACKSIZE", "2M");
        withPicture(fixture, picture -> {
            assertThat(new java.util.TreeMap<>(picture.startup().environment())).isEqualTo(recorded);
            String text = TextReport.render(picture, TextReport.Options.commandLine(false, false));
            List<String> lines = text.lines().toList();
            int heading = lines.indexOf("OpenMP environment: the OMP_* and KMP_* variables of the program's environment "
                    + "(what its getenv reads, as libomp did at start-up; omp_set_* calls since change the ICVs, not these)");
            assertThat(heading).as(text).isNotNegative();
            java.util.Map<String, String> shown = new java.util.TreeMap<>();
            for (String line : lines.subList(heading + 1, lines.size())) {
                if (!line.startsWith("  ")) {
                    break;
                }
                String[] parts = line.strip().split("\\s+", 2);
                shown.put(parts[0], parts[1]);
            }
            assertThat(shown).as(text).isEqualTo(recorded);
            JsonObject json = JsonParser.parseString(JsonReport.render(picture)).getAsJsonObject();
            java.util.Map<String, String> inJson = new java.util.TreeMap<>();
            json.getAsJsonObject("environment").entrySet().forEach(e -> inJson.put(e.getKey(), e.getValue().getAsString()));
            assertThat(inJson).isEqualTo(recorded);
            return null;
        });
    }

    /** Without OMP_DEBUG, ompd threads and ompd parallel say so once, with what to set, not on every thread's row. */
    @Test
    void aMissingOmpDebugIsSaidOnceWithWhatToSet() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").withEnvironment("OMP_DEBUG", "disabled"));
        Facts facts = fixture.facts();
        withPicture(fixture, picture -> {
            assertThat(picture.notices()).containsExactly("thread states, wait ids, task frames and task functions are "
                    + "not tracked: start the program with OMP_DEBUG=enabled (exactly that value) in its environment to "
                    + "see them, as libomp (every version with OMPD, LLVM 14 on) tracks them only then; everything else "
                    + "is complete.");
            String note = "note: " + picture.notices().getFirst();
            String threads = ConsoleReport.threads(picture, OPTIONS, List.of());
            String parallel = ConsoleReport.parallel(picture, picture.threadByLwp(facts.thread(1).lwp()).orElseThrow(), OPTIONS);
            for (String answer : List.of(threads, parallel)) {
                assertThat(answer.lines().filter(l -> l.contains("OMP_DEBUG")).toList()).as(answer).containsExactly(note);
            }
            // each thread's row says only that its state is not tracked
            List<String> rows = threads.lines().filter(l -> l.matches("^\\s+\\? .*")).toList();
            assertThat(rows).as(threads).hasSize(facts.threadCount());
            for (String row : rows) {
                assertThat(row).as(threads).endsWith("  (not tracked)");
            }
            // the JSON: the hint once among the notices, each thread's state "not tracked"
            JsonObject json = JsonParser.parseString(JsonReport.render(picture)).getAsJsonObject();
            assertThat(json.getAsJsonArray("notices").asList().stream().map(JsonElement::getAsString).toList())
                    .containsExactlyElementsOf(picture.notices());
            assertThat(json.getAsJsonArray("threads").asList().stream()
                    .map(t -> t.getAsJsonObject().get("state").getAsString()).distinct().toList()).containsExactly("not tracked");
            // the command line's text: the hint once, in the header; the environment's own value in its section
            String text = TextReport.render(picture, TextReport.Options.commandLine(false, false));
            assertThat(text.lines().filter(l -> l.contains("OMP_DEBUG")).toList()).containsExactly("  " + note,
                    "  OMP_DEBUG               disabled");
            return null;
        });
    }
}
