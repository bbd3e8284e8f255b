package dev.jompd.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.ParallelRegion;
import dev.jompd.report.OpenMpPicture.Task;
import dev.jompd.report.OpenMpPicture.TaskKind;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.TextReportThreads;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.RecorderLibrary;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The picture of real cores: the JSON validates against the schema file, regions are numbered outer-first,
 * team paths and names agree with what the programs recorded about themselves, grouping never hides a
 * difference, and the text rendering of a fixed state matches its golden file.
 */
class OpenMpPictureIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Stream<FixtureRun> fixtures() {
        return Stream.of(FixtureRun.of(Fixture.NESTED, "2", "3", "4"), FixtureRun.of(Fixture.TASKS, "200"),
                FixtureRun.of(Fixture.SERIALIZED, "3", "3"), FixtureRun.of(Fixture.WAITS),
                FixtureRun.of(Fixture.OMPT_TOOL, "3"), FixtureRun.of(Fixture.NESTED_FORTRAN),
                FixtureRun.of(Fixture.PARALLEL, "2").withEnvironment("OMP_DEBUG", "disabled"),
                FixtureRun.of(Fixture.TEAMS, "2", "2"));
    }

    static <T> T withPicture(StoppedFixture fixture, Function<OpenMpPicture, T> use) {
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core());
             Symbolizer symbols = new Symbolizer(core)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            TargetDescription target = new TargetDescription("core", fixture.core().toString(), core.name(),
                    process.layout().runtimeModule());
            return use.apply(OpenMpPicture.take(process, target, new CodeNames(symbols)));
        }
    }

    static JsonSchema schema() throws IOException {
        try (InputStream in = JsonReport.class.getResourceAsStream(JsonReport.SCHEMA_RESOURCE)) {
            assertThat(in).as("schema resource").isNotNull();
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in);
        }
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void jsonValidatesAgainstTheSchemaFile(FixtureRun run) throws IOException {
        String json = withPicture(Fixtures.core(run), JsonReport::render);
        Set<ValidationMessage> errors = schema().validate(JSON.readTree(json));
        assertThat(errors).as("%s", json.length() > 4000 ? json.substring(0, 4000) : json).isEmpty();
    }

    @Test
    void theSchemaRefusesAFieldItDoesNotDescribe() throws IOException {
        String json = withPicture(Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2")), JsonReport::render);
        JsonNode document = JSON.readTree(json);
        ((ObjectNode) document.get("threads").get(0)).put("undocumented", 1);
        assertThat(schema().validate(document)).isNotEmpty();
    }

    @Test
    void regionsAreNumberedOuterFirstAndTeamPathsAreTheRecordedAncestors() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3", "4"));
        withPicture(fixture, picture -> {
            List<ParallelRegion> regions = picture.regions();
            assertThat(regions).as("every region of the program is active").noneMatch(ParallelRegion::ended);
            assertThat(regions.getFirst().id()).isEqualTo("r0");
            assertThat(regions.getFirst().level()).isZero();
            for (ParallelRegion region : regions) {
                region.enclosing().ifPresent(parent -> assertThat(Integer.parseInt(parent.substring(1)))
                        .as("%s encloses %s", parent, region.id()).isLessThan(Integer.parseInt(region.id().substring(1))));
            }
            for (Facts.ThreadFacts thread : fixture.facts().threads()) {
                OpenMpThread seen = picture.threadByLwp(thread.lwp()).orElseThrow();
                List<Long> expected = thread.ancestors().subList(0, Math.max(0, thread.level() - 1)).stream()
                        .map(Integer::longValue).toList();
                assertThat(seen.teamPath()).as("%s", thread).isEqualTo(expected);
                assertThat(seen.name()).as("%s", thread).startsWith("omp "
                        + (expected.isEmpty() ? "" : seen.path() + " · ") + thread.threadNum() + "/" + thread.teamSize()
                        + " · level " + thread.level() + " · ");
            }
            // every thread of the 2x3x4 program has a name of its own
            assertThat(picture.threads().stream().map(OpenMpThread::name).distinct().count())
                    .isEqualTo(picture.threads().stream().filter(t -> t.region().isPresent()).count());
            return null;
        });
    }

    /**
     * A teams construct ({@code teams 3 2}: a league of 3 teams, a parallel region of 2 threads in each): each
     * team's parallel region is nested in that team's implicit parallel region (OpenMP 6.0's teams scope), which
     * carries the team's number and the league's size the program's threads recorded (omp_get_team_num,
     * omp_get_num_teams), in the picture, the text and the JSON. Before, the parallel regions were nested in
     * libomp's league team, a level 0 region of 3 threads with nothing said about teams.
     */
    @Test
    void eachTeamOfATeamsConstructIsARegionWithItsNumberAndTheLeaguesSize() throws IOException {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TEAMS, "3", "2"));
        Facts facts = fixture.facts();
        withPicture(fixture, picture -> {
            String text = TextReport.render(picture, TextReport.Options.commandLine(false, false));
            java.util.Map<Long, String> teamRegions = new java.util.HashMap<>();
            for (Facts.ThreadFacts thread : facts.threads()) {
                OpenMpThread seen = picture.threadByLwp(thread.lwp()).orElseThrow();
                ParallelRegion inner = picture.region(seen.region().orElseThrow()).orElseThrow();
                assertThat(inner.level()).as(text).isEqualTo(thread.level()).isEqualTo(1);
                assertThat(inner.teams()).isEmpty();
                ParallelRegion team = picture.region(inner.enclosing().orElseThrow()).orElseThrow();
                assertThat(team.teams()).as(text).isPresent();
                assertThat(team.teams().get().teamNumber()).as(thread + "\n" + text).isEqualTo(thread.number("team_num"));
                assertThat(team.teams().get().leagueSize()).isEqualTo(thread.number("num_teams")).isEqualTo(3);
                assertThat(team.level()).isZero();
                assertThat(team.teamSize()).as("omp_get_team_size(0)").isEqualTo(1);
                assertThat(teamRegions.putIfAbsent(thread.number("team_num"), team.id()))
                        .as("one region per team").isIn(null, team.id());
                assertThat(text).contains(team.id() + " level 0 (implicit parallel region of team "
                        + thread.number("team_num") + " of a league of 3: teams construct)");
            }
            assertThat(teamRegions).hasSize(3);
            // threads of different teams never share a name: the team's number comes first
            for (Facts.ThreadFacts thread : facts.threads()) {
                assertThat(picture.threadByLwp(thread.lwp()).orElseThrow().name()).startsWith("omp team "
                        + thread.number("team_num") + " · " + thread.threadNum() + "/" + thread.teamSize() + " · level 1");
            }
            assertThat(picture.threads().stream().filter(t -> t.region().isPresent()).map(OpenMpThread::name).distinct()
                    .count()).isEqualTo(picture.threads().stream().filter(t -> t.region().isPresent()).count());
            assertThat(java.util.Set.copyOf(teamRegions.values())).hasSize(3);
            try {
                JsonNode document = JSON.readTree(JsonReport.render(picture));
                assertThat(schema().validate(document)).isEmpty();
                int withTeams = 0;
                for (JsonNode region : document.get("regions")) {
                    if (region.has("teams")) {
                        withTeams++;
                        assertThat(teamRegions).containsEntry(region.get("teams").get("teamNumber").asLong(),
                                region.get("id").asText());
                        assertThat(region.get("teams").get("leagueSize").asLong()).isEqualTo(3);
                    }
                }
                assertThat(withTeams).isEqualTo(3);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return null;
        });
    }

    /**
     * The task chain OpenMP defines for a thread in a parallel region nested in a teams construct ({@code teams
     * 3 2}): its implicit task of that region (executing), its team's initial task (in the team's implicit
     * parallel region, suspended at the parallel construct, one task for both threads of the team), the
     * program's initial task (suspended at the teams construct, one for every thread) — exactly one task
     * executing. Before, each chain held two initial tasks of its team's region, both executing: libomp's
     * record of the teams region's code, read with the nested region's implicit task's flags, and the
     * league's implicit task.
     */
    @Test
    void aThreadInATeamsParallelRegionHasTheTaskChainOpenMpDefines() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TEAMS, "3", "2"));
        Facts facts = fixture.facts();
        withPicture(fixture, picture -> {
            String text = TextReport.render(picture, TextReport.Options.commandLine(false, false));
            java.util.Map<Long, String> initialTaskOfTeam = new java.util.HashMap<>();
            Set<String> programsInitialTask = new java.util.HashSet<>();
            for (Facts.ThreadFacts thread : facts.threads()) {
                OpenMpThread seen = picture.threadByLwp(thread.lwp()).orElseThrow();
                List<Task> chain = picture.chain(seen);
                List<String> described = chain.stream().map(task -> task.kind().words() + ", " + task.status().words()
                        + ", in " + task.region().flatMap(picture::region).map(region -> region.teams()
                        .map(teams -> "the implicit parallel region of team " + teams.teamNumber())
                        .orElse(region.enclosing().isEmpty() ? "the program's implicit parallel region"
                                : "a level " + region.level() + " region of " + region.teamSize() + " threads"))
                        .orElse("no region")).toList();
                assertThat(described).as("thread %d of team %d in\n%s", thread.threadNum(), thread.number("team_num"), text)
                        .containsExactly(
                                "implicit task, executing, in a level " + thread.level() + " region of "
                                        + thread.teamSize() + " threads",
                                "initial task, suspended, in the implicit parallel region of team " + thread.number("team_num"),
                                "initial task, suspended, in the program's implicit parallel region");
                assertThat(chain.getFirst().region()).isEqualTo(seen.region());
                assertThat(initialTaskOfTeam.putIfAbsent(thread.number("team_num"), chain.get(1).id()))
                        .as("one initial task per team: %s", text).isIn(null, chain.get(1).id());
                programsInitialTask.add(chain.get(2).id());
            }
            assertThat(Set.copyOf(initialTaskOfTeam.values())).as(text).hasSize(3);
            assertThat(programsInitialTask).as(text).hasSize(1);
            return null;
        });
    }

    /**
     * A program back in serial code after a parallel region ({@code serial 3 after}: the program says it is at
     * level 0, in no parallel region). libomp keeps the region's team with its workers, which still show the
     * region (and, with OMP_DEBUG, its implicit barrier's state): the picture says the region has ended, every
     * door shows it, and the diagnosis finds no thread waiting at a barrier.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"enabled", "disabled"})
    void aRegionTheProgramHasLeftIsEndedAndNoBarrierWaitsForIt(String ompDebug) throws IOException {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.SERIAL, "3", "after")
                .withEnvironment("OMP_DEBUG", ompDebug));
        Facts facts = fixture.facts();
        assertThat(facts.thread(0).level()).as("the program's own level at the marker").isZero();
        List<Diagnosis.Finding> findings = DiagnosisIT.diagnose(fixture);
        withPicture(fixture, picture -> {
            String text = TextReport.render(picture, TextReport.Options.commandLine(false, false));
            assertThat(picture.threadByLwp(facts.thread(0).lwp()).orElseThrow().level()).as(text).isZero();
            List<ParallelRegion> kept = picture.regions().stream().filter(r -> r.level() > 0).toList();
            // libomp keeps the team (without it there is nothing to prove here)
            assertThat(kept).as(text).hasSize(1);
            ParallelRegion region = kept.getFirst();
            assertThat(region.teamSize()).isEqualTo(facts.number("ended_region.team_size"));
            // (its code is not named: libomp clears the team's microtask when the region ends)
            assertThat(picture.members(java.util.Optional.of(region.id()))).as(text).hasSize((int) region.teamSize() - 1);
            assertThat(region.ended()).as(text).isTrue();
            assertThat(text).contains(region.id() + " level 1 region, team of 3, ended")
                    .contains("(ended: thread 0 of r0, which encountered it, is back in r0;");
            try {
                JsonNode regions = JSON.readTree(JsonReport.render(picture)).get("regions");
                assertThat(regions.get(1).get("ended").asBoolean()).isTrue();
                assertThat(regions.get(0).get("ended").asBoolean()).isFalse();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return null;
        });
        assertThat(findings).as(TextReport.diagnosis(findings))
                .noneMatch(f -> f.kind() == Diagnosis.FindingKind.BARRIER);
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void groupsNeverHideADifference(FixtureRun run) {
        withPicture(Fixtures.core(run), picture -> {
            for (ParallelRegion region : picture.regions()) {
                for (List<OpenMpThread> group : picture.groups(picture.members(java.util.Optional.of(region.id())), false)) {
                    OpenMpThread first = group.getFirst();
                    for (OpenMpThread other : group) {
                        assertThat(other.state()).isEqualTo(first.state());
                        assertThat(other.waitId()).isEqualTo(first.waitId());
                        List<Task> a = picture.chain(first);
                        List<Task> b = picture.chain(other);
                        assertThat(b).hasSameSizeAs(a);
                        for (int i = 0; i < a.size(); i++) {
                            if (a.get(i).kind() == TaskKind.EXPLICIT) {
                                assertThat(b.get(i).id()).as("explicit task %d of grouped threads", i).isEqualTo(a.get(i).id());
                            }
                            assertThat(b.get(i).function()).isEqualTo(a.get(i).function());
                        }
                    }
                }
            }
            return null;
        });
    }

    @Test
    void threadsRunningDifferentExplicitTasksAreNeverOneGroup() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.TASKS, "200"));
        String text = withPicture(fixture, picture -> TextReport.render(picture, TextReport.Options.commandLine(false, false)));
        long explicitRunners = withPicture(fixture, picture -> picture.threads().stream()
                .filter(t -> !t.taskIds().isEmpty() && picture.tasks().get(t.taskIds().getFirst()).kind() == TaskKind.EXPLICIT)
                .count());
        assertThat(explicitRunners).as("threads running explicit tasks at the marker").isGreaterThan(1);
        assertThat(text).as(text).doesNotContainPattern("threads [0-9,-]+ \\(\\d+ alike\\)[^\\n]*\\n\\s+explicit task");
    }

    /**
     * A lock-order deadlock in a program running with the jompd-recorder: the picture names both threads in
     * the cycle, each mutex's holder and waiter, as the program recorded them (which lock each thread holds
     * and waits for), and the JSON with the recorder's section validates against the schema.
     */
    @Test
    void recorderHistoryNamesTheDeadlockAndItsHolders() throws IOException {
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_DEADLOCK)));
        Facts facts = fixture.facts();
        String json = withPicture(fixture, JsonReport::render);
        assertThat(schema().validate(JSON.readTree(json))).as(json).isEmpty();
        JsonNode recorder = JSON.readTree(json).get("recorder");
        assertThat(recorder).as(json).isNotNull();
        long lockA = Long.decode(facts.get("lock_a"));
        long lockB = Long.decode(facts.get("lock_b"));
        assertThat(recorder.get("deadlocks")).hasSize(1);
        List<Long> cycle = JSON.convertValue(recorder.get("deadlocks").get(0), new com.fasterxml.jackson.core.type.TypeReference<List<Long>>() {});
        List<Facts.ThreadFacts> locking = facts.threads().stream().filter(t -> t.find("holds").isPresent()).toList();
        assertThat(locking).hasSize(2);
        assertThat(cycle).containsExactlyInAnyOrder(locking.get(0).lwp(), locking.get(1).lwp());
        String text = withPicture(fixture, picture -> TextReport.render(picture, TextReport.Options.commandLine(false, false)));
        assertThat(text).contains("Recorded history").contains("deadlock: LWP ");
        for (Facts.ThreadFacts thread : locking) {
            long holds = thread.find("holds").orElseThrow().equals("A") ? lockA : lockB;
            long waitsFor = thread.find("waits_for").orElseThrow().equals("A") ? lockA : lockB;
            assertThat(text).contains(Text.hex(holds) + ": held by LWP " + thread.lwp());
            assertThat(text).containsPattern(java.util.regex.Pattern.quote(Text.hex(waitsFor) + ": held by LWP ")
                    + "\\d+, waited for by LWP " + thread.lwp());
        }
    }

    /**
     * A program offloading to the host devices of Debian's LLVM 19, with the jompd-recorder: each device with
     * its target regions (the program sends region i to device i % num_devices) and tracing unavailable, and
     * the JSON with them validates against the schema; the deadlocked threads' whyHere validates above.
     */
    @Test
    void recorderDevicesCountTheTargetRegionsTheProgramSentThemAndValidate() throws IOException {
        dev.jompd.testkit.Offload.unavailableReason().ifPresent(reason -> {
            System.out.println("[jompd] offload test skipped: " + reason);
            org.junit.jupiter.api.Assumptions.abort(reason);
        });
        StoppedFixture fixture = Fixtures.core(RecorderLibrary.with(FixtureRun.of(Fixture.RECORDER_OFFLOAD, "6"))
                .withEnvironment("LD_LIBRARY_PATH", dev.jompd.testkit.Offload.RUNTIME_DIRECTORY.toString()));
        Facts facts = fixture.facts();
        String json = withPicture(fixture, JsonReport::render);
        assertThat(schema().validate(JSON.readTree(json))).as(json).isEmpty();
        JsonNode devices = JSON.readTree(json).get("recorder").get("devices");
        assertThat(devices).hasSize((int) facts.number("devices_used"));
        long total = 0;
        for (JsonNode device : devices) {
            int number = device.get("device").asInt();
            long expected = java.util.stream.LongStream.range(0, facts.number("target_regions"))
                    .filter(i -> i % facts.number("num_devices") == number).count();
            assertThat(device.get("targetRegions").asLong()).as(device.toString()).isEqualTo(expected);
            assertThat(device.get("tracing").asText()).isEqualTo("unavailable");
            total += device.get("targetRegions").asLong();
        }
        assertThat(total).isEqualTo(facts.number("target_regions"));
    }

    /**
     * The text report of the 2x3x4 program, its varying parts (addresses, LWPs, gtids, task ids, the core's
     * path) replaced, equals the golden file: any change of what users read shows up here as a diff.
     * {@code -Djompd.golden.update=true} writes the file anew; without it a missing file fails the test.
     */
    @Test
    void textReportMatchesItsGoldenFile() throws IOException {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3", "4"));
        String text = normalized(withPicture(fixture, picture ->
                TextReport.render(picture, TextReport.Options.commandLine(false, false))), fixture.core());
        Path golden = Path.of("src/test/resources/golden/nested-2-3-4.txt");
        if (Boolean.getBoolean("jompd.golden.update")) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, text, StandardCharsets.UTF_8);
        }
        // a missing golden file is a failure, not a new golden file: only -Djompd.golden.update writes one
        assertThat(golden).as("golden file (write it with -Djompd.golden.update=true)").exists();
        assertThat(text).isEqualTo(Files.readString(golden, StandardCharsets.UTF_8));
    }

    /**
     * The golden file hides LWPs; here each thread's own line (threads not grouped) carries the LWP the program
     * recorded for that thread number in that team: a report that swaps two threads' LWPs, or puts a thread in
     * another team, fails, though its normalised text would equal the golden file.
     */
    @Test
    void everyThreadLineCarriesTheLwpTheProgramRecordedForItsTeamAndNumber() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.NESTED, "2", "3", "4"));
        String text = withPicture(fixture, picture -> TextReport.render(picture, TextReport.Options.commandLine(true, false)));
        Map<String, Long> shown = TextReportThreads.lwpByTeamAndNumber(text);
        Map<String, Long> recorded = fixture.facts().lwpByTeamAndNumber();
        assertThat(recorded).hasSize(24);
        assertThat(shown).as(text).isEqualTo(recorded);
    }

    static String normalized(String text, Path core) {
        return text.replace(core.toString(), "CORE")
                .replaceAll("0x[0-9a-f]+", "0xADDR")
                .replaceAll("LWPs? [0-9,\\-…() ]+?(?=  |\\n)", "LWP N")
                .replaceAll("gtids? [0-9,\\-…() ]+?(?=  |\\n)", "gtid N")
                .replaceAll("\\bt\\d+\\b", "tN")
                .replaceAll("(tasks?) tN(,tN)*", "$1 tN")
                .replaceAll("OMP_STACKSIZE .*", "OMP_STACKSIZE ...")
                .replaceAll("num-procs-var +\\d+", "num-procs-var N")
                .replaceAll("nthreads-var=\\d+", "nthreads-var=N")
                // the machine's processors: the one place of a program without OMP_PLACES holds them all
                .replaceAll("place-partition-var=\\{[0-9,]+\\}", "place-partition-var={PROCESSORS}");
    }
}
