package dev.jompd.job;

import com.google.gson.JsonParser;
import dev.jompd.core.target.AddressSpace;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.core.target.live.LiveProcessAddressSpace;
import dev.jompd.job.model.JobSummary;
import dev.jompd.job.model.RankId;
import dev.jompd.job.model.RankInspection;
import dev.jompd.job.model.RankView;
import dev.jompd.job.rendering.JobHtml;
import dev.jompd.job.rendering.JobPicture;
import dev.jompd.job.wire.JobWire;
import dev.jompd.report.ParallelStacks;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.LiveFixture;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job made of real per-rank inspections: cores of OpenMP hang fixtures, several processes of one program
 * and one with other arguments, treated as the ranks of a job, merged through the wire format as node
 * agents would send them. Truth: each rank's part of the merged picture is that rank's own picture, the
 * classes are the ones the fixtures' facts say, the threads' frames are gdb's, and the locks carry the
 * program's own variable names (gdb, from the DWARF of the program's variables, at the facts' addresses).
 */
class JobMergeIT {
    /** rank → (fixture core, its own inspection). */
    private static final Map<Integer, StoppedFixture> CORES = new LinkedHashMap<>();
    private static final Map<Integer, RankInspection.Seen> SEEN = new LinkedHashMap<>();

    static RankInspection.Seen inspect(AddressSpace space, RankId id, String kind, String name) {
        return JobInspections.inspect(space, id, kind, name);
    }

    private static RankInspection.Seen inspectCore(int rank, StoppedFixture fixture) {
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core())) {
            return inspect(core, new RankId(OptionalInt.of(rank), "localhost", 0, fixture.core().toString()), "core",
                    fixture.core().toString());
        }
    }

    @BeforeAll
    static void makeTheRanks() {
        Path work = Fixtures.workDirectory("job-merge");
        // ranks 0-2 and 4: one program, one state, four processes; rank 3 deadlocks on locks; rank 5 waits
        // at a taskwait for a blocked child; rank 6 is rank 0's program with another straggler
        FixtureRun straggler = FixtureRun.of(Fixture.BARRIER_STRAGGLER, "4", "2").withEnvironment("KMP_BLOCKTIME", "0");
        for (int rank : new int[]{0, 1, 2, 4}) {
            CORES.put(rank, Fixtures.makeCore(straggler, work.resolve("rank" + rank)));
        }
        CORES.put(3, Fixtures.makeCore(FixtureRun.of(Fixture.LOCK_DEADLOCK, "lock"), work.resolve("rank3")));
        CORES.put(5, Fixtures.makeCore(FixtureRun.of(Fixture.TASKWAIT_BLOCKED).withEnvironment("KMP_BLOCKTIME", "0"),
                work.resolve("rank5")));
        CORES.put(6, Fixtures.makeCore(FixtureRun.of(Fixture.BARRIER_STRAGGLER, "4", "1").withEnvironment("KMP_BLOCKTIME", "0"),
                work.resolve("rank6")));
        CORES.forEach((rank, fixture) -> SEEN.put(rank, inspectCore(rank, fixture)));
    }

    /** Two "nodes" (ranks 0-3 and 4-7, rank 7 lost), each summary sent as one line of JSON and read back. */
    private static JobSummary job() {
        JobSummary node1 = JobSummary.empty();
        JobSummary node2 = JobSummary.empty();
        for (var entry : SEEN.entrySet()) {
            JobSummary rank = JobSummary.of(entry.getValue());
            if (entry.getKey() < 4) {
                node1 = node1.merge(rank);
            } else {
                node2 = node2.merge(rank);
            }
        }
        node2 = node2.merge(JobSummary.of(new RankInspection.Missing(new RankId(OptionalInt.of(7), "localhost", 4242,
                "pid"), RankInspection.MissingReason.EXITED, "the process exited while it was read")));
        JobSummary front = JobSummary.empty();
        for (JobSummary node : List.of(node2, node1)) {
            String line = JobWire.toJson(node).toString();
            assertThat(line).doesNotContain("\n");
            front = front.merge(JobWire.summary(JsonParser.parseString(line).getAsJsonObject()));
        }
        return front;
    }

    @Test
    void theClassesAreTheOnesTheFactsSay() {
        JobSummary job = job();
        String text = JobPicture.of(job).text();
        // outliers first: the one-rank classes by rank, then the four alike processes
        assertThat(job.classes()).as(text).extracting(c -> c.ranks().toString()).containsExactly("3", "5", "6", "0-2,4");
        assertThat(job.rankCount()).isEqualTo(8);
        assertThat(job.missing()).extracting(m -> m.ranks() + " " + m.reason()).containsExactly("7 EXITED");
        assertThat(text).contains("rank 7: exited: the process exited while it was read");
        // the class of the alike processes: the straggler the facts name, the others at the barrier
        Facts facts = CORES.get(0).facts();
        RankView view = job.classOf(0).orElseThrow().view();
        assertThat(view.threads()).hasSize(facts.threadCount());
        for (Facts.ThreadFacts thread : facts.threads()) {
            RankView.ThreadView seen = view.threads().get(thread.threadNum());
            assertThat(seen.thread()).isEqualTo("omp " + thread.threadNum() + "/" + thread.teamSize() + " · level 1");
            // the thread's innermost step in the program's own code is where its facts say it waits: the straggler
            // in the function the facts name, the others at the barrier
            RankView.Step innermost = seen.stack().stream()
                    .filter(step -> step.source().orElse("").startsWith("barrier_straggler.c:")).toList().getLast();
            assertThat(innermost.source()).as(text).hasValue("barrier_straggler.c:" + thread.get("wait_line"));
            if (thread.role().equals("straggler")) {
                assertThat(innermost.function()).isEqualTo(facts.get("hang.straggler.function"));
            }
        }
        assertThat(JobPicture.hangOf(view)).as(text).contains("3 of 4 threads");
    }

    @Test
    void eachRanksPartIsItsOwnPictureAndItsFramesAreGdbs() {
        JobSummary job = job();
        for (var entry : SEEN.entrySet()) {
            int rank = entry.getKey();
            RankInspection.Seen own = entry.getValue();
            RankView part = job.classOf(rank).orElseThrow().view();
            assertThat(part).as("rank %d", rank).isEqualTo(RankView.of(own));
            // the rank's own picture, thread by thread: its threads, and per thread the stack its parallel stacks show
            assertThat(part.threads()).hasSize(own.picture().threads().size());
            Map<Long, List<GdbProbe.Frame>> gdb = GdbProbe.onCore(CORES.get(rank).executable(), CORES.get(rank).core())
                    .backtraces();
            for (ParallelStacks.ThreadStack stack : own.stacks().orElseThrow().stacks()) {
                String place = stack.thread().place().words();
                RankView.ThreadView thread = part.threads().stream().filter(t -> t.thread().equals(place)).findFirst()
                        .orElseThrow(() -> new AssertionError("rank " + rank + ": no " + place));
                // (every frame of the fixtures has a name: no address to leave out)
                assertThat(words(thread.stack())).isEqualTo(stack.steps().stream().map(ParallelStacks.Step::describe).toList());
                // every frame of user code the job shows is a frame gdb shows for that thread
                List<String> gdbFunctions = gdb.get(stack.thread().lwp().getAsLong()).stream()
                        .map(GdbProbe.Frame::function).toList();
                for (ParallelStacks.Step step : stack.steps()) {
                    // (gdb's backtrace stops at main: not the C library's start code before it)
                    boolean beforeMain = step.function().equals("_start") || step.module().orElse("").startsWith("libc.");
                    if (!step.runtime() && !beforeMain) {
                        assertThat(gdbFunctions).as("rank %d %s", rank, place).contains(step.function());
                    }
                }
            }
        }
    }

    @Test
    void locksAreNamedByTheProgramsOwnVariables() {
        JobSummary job = job();
        StoppedFixture deadlock = CORES.get(3);
        Facts facts = deadlock.facts();
        RankView view = job.classOf(3).orElseThrow().view();
        String all = String.join("\n", view.findings().stream().map(RankView.Finding::words).toList());
        for (String lock : List.of("A", "B", "C")) {
            long address = Long.decode(facts.get("hang.lock." + lock + ".address"));
            int element = -1;
            for (int k = 0; k < 3; k++) {
                if (deadlock.gdb().evaluate("(long)&main::locks[" + k + "]").asLong() == address) {
                    element = k;
                }
            }
            assertThat(element).as("gdb finds lock %s in main's locks", lock).isNotNegative();
            String name = "locks[" + element + "]";
            Facts.ThreadFacts waiter = facts.threads().stream().filter(t -> t.find("waits_for").orElse("").equals(lock))
                    .findFirst().orElseThrow();
            assertThat(all).contains("1 thread waits for lock `" + name + "`;");
            RankView.ThreadView thread = view.threads().get(waiter.threadNum());
            assertThat(thread.roles()).anyMatch(r -> r.equals("waits for lock `" + name + "` at lock_deadlock.c:"
                    + waiter.get("wait_line")));
        }
        // no address of this run is in the job's words
        assertThat(JobWire.toJson(view).toString()).doesNotContainPattern("0x[0-9a-f]{6,}").doesNotContain("LWP");
    }

    @Test
    void theJobJsonValidatesAgainstItsSchemaAndTheHtmlIsOnePage() throws Exception {
        JobPicture job = JobPicture.of(job());
        com.fasterxml.jackson.databind.JsonNode document = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(job.toJson().toString());
        com.networknt.schema.JsonSchema schema;
        try (var in = JobPicture.class.getResourceAsStream(JobPicture.SCHEMA_RESOURCE)) {
            schema = com.networknt.schema.JsonSchemaFactory.getInstance(com.networknt.schema.SpecVersion.VersionFlag.V202012)
                    .getSchema(in);
        }
        assertThat(schema.validate(document)).as(job.toJson().toString()).isEmpty();
        // a document that breaks the schema is caught (the validation can fail)
        com.google.gson.JsonObject broken = job.toJson();
        broken.getAsJsonArray("classes").get(0).getAsJsonObject().addProperty("ranks", "3-");
        assertThat(schema.validate(new com.fasterxml.jackson.databind.ObjectMapper().readTree(broken.toString()))).isNotEmpty();
        // the merged stacks: every thread of every seen rank stops at exactly one step (a leaf, or an inner step
        // when it stopped in a caller of another thread's frame), and at a leaf all threads stop
        long threads = SEEN.values().stream().mapToLong(s -> s.picture().threads().size()).sum();
        assertThat(stoppedThreads(job.stacks())).isEqualTo(threads);
        // the page: self-contained (nothing fetched), the tree as SVG, the outlier ranks named
        String html = JobHtml.render(job, "job of 8 ranks");
        assertThat(html).contains("<svg").contains("rank 3").contains("rank 7")
                .doesNotContain("src=", "href=", "url(", "@import", "<script", "<link");
        java.nio.file.Files.writeString(Fixtures.workDirectory("job-merge").resolve("job.html"), html);
        java.nio.file.Files.writeString(Fixtures.workDirectory("job-merge").resolve("job.txt"), job.text());
        java.nio.file.Files.writeString(Fixtures.workDirectory("job-merge").resolve("job-summary.json"),
                JobWire.toJson(job.summary()).toString());
    }

    private static List<String> words(List<RankView.Step> steps) {
        return steps.stream().map(RankView.Step::words).toList();
    }

    private static long stoppedThreads(List<JobPicture.StackNode> nodes) {
        long sum = 0;
        for (JobPicture.StackNode node : nodes) {
            if (node.children().isEmpty()) {
                assertThat(node.stopped()).as(node.step().words()).isEqualTo(node.threads());
            }
            assertThat(node.threads()).as(node.step().words())
                    .isEqualTo(node.stopped() + node.children().stream().mapToLong(JobPicture.StackNode::threads).sum());
            sum += node.stopped() + stoppedThreads(node.children());
        }
        return sum;
    }

    /**
     * A teams construct (a league of 3 teams, 2 threads in each team's parallel region): each thread's place in
     * the job's view is its own, team number first, exactly as the program's threads recorded their team and
     * thread numbers, so threads of different teams never fold into one place.
     */
    @Test
    void threadsOfDifferentTeamsHaveTheirTeamInTheirPlace() {
        StoppedFixture teams = Fixtures.core(FixtureRun.of(Fixture.TEAMS, "3", "2"));
        RankView view;
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(teams.core())) {
            view = RankView.of(inspect(core, new RankId(OptionalInt.of(0), "localhost", 0, teams.core().toString()),
                    "core", teams.core().toString()));
        }
        List<String> expected = teams.facts().threads().stream()
                .sorted(java.util.Comparator.comparingLong((Facts.ThreadFacts t) -> t.number("team_num"))
                        .thenComparingInt(Facts.ThreadFacts::threadNum))
                .map(t -> "omp team " + t.number("team_num") + " · " + t.threadNum() + "/" + t.teamSize() + " · level "
                        + t.level()).toList();
        assertThat(view.threads().stream().map(t -> t.thread()).toList()).isEqualTo(expected);
    }

    /** A core's rank view, as a node agent makes it. */
    private static RankView viewOf(StoppedFixture fixture) {
        return RankView.of(seenOf(fixture));
    }

    private static RankInspection.Seen seenOf(StoppedFixture fixture) {
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core())) {
            return inspect(core, new RankId(OptionalInt.of(0), "localhost", 0, fixture.core().toString()), "core",
                    fixture.core().toString());
        }
    }

    /** Every sentence of a view a reader is given: findings, threads' parts, tasks, notices. */
    private static List<String> sentences(RankView view) {
        List<String> all = new ArrayList<>(view.findings().stream().map(RankView.Finding::words).toList());
        view.threads().forEach(t -> {
            all.addAll(t.roles());
            all.addAll(t.tasks());
        });
        all.addAll(view.notices());
        return all;
    }

    /**
     * The job's words for locks and threads are the program's: a critical section by the construct the program wrote
     * and its line, the threads by their place; never the runtime's lock object, its address or an LWP (each another
     * in every rank). Truth: the facts of critical_names.c (which thread waits for which construct, at which line).
     */
    @Test
    void criticalSectionsAreSaidByTheProgramsConstructAndThreadsByPlace() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.CRITICAL_NAMES));
        Facts facts = fixture.facts();
        RankView view = viewOf(fixture);
        List<String> findings = new ArrayList<>();
        Map<String, List<String>> roles = new LinkedHashMap<>();
        for (Facts.ThreadFacts thread : facts.threads()) {
            roles.put("omp " + thread.threadNum() + "/" + thread.teamSize() + " · level " + thread.level(), new ArrayList<>());
        }
        for (String critical : List.of("big", "unnamed")) {
            String key = "hang.critical." + critical + ".";
            int waiters = Integer.parseInt(facts.get(key + "waiters"));
            String said = (facts.get(key + "name").startsWith("critical(") ? "" : "the ") + facts.get(key + "name")
                    + " at critical_names.c:" + facts.get(key + "line");
            findings.add(waiters + (waiters == 1 ? " thread waits" : " threads wait") + " to enter " + said
                    + "; its holder is not known: " + dev.jompd.core.ompd.RuntimeLocks.NO_OWNER_RECORDED.formatted("queuing"));
            for (Facts.ThreadFacts waiter : facts.threads()) {
                if (waiter.find("waits_for").orElse("").equals(critical)) {
                    String line = "critical_names.c:" + waiter.get("wait_line");
                    roles.get("omp " + waiter.threadNum() + "/" + waiter.teamSize() + " · level " + waiter.level())
                            .add("waits for " + said + (said.endsWith(line) ? "" : " at " + line));
                }
            }
        }
        String text = String.join("\n", sentences(view));
        assertThat(view.findings()).as(text).allMatch(f -> f.kind() == dev.jompd.report.Diagnosis.FindingKind.LOCK);
        assertThat(view.findings().stream().map(RankView.Finding::summary).toList()).as(text)
                .containsExactlyInAnyOrderElementsOf(findings);
        Map<String, List<String>> seen = new LinkedHashMap<>();
        view.threads().forEach(t -> seen.put(t.thread(), t.roles()));
        assertThat(seen).as(text).isEqualTo(roles);
        assertThat(sentences(view)).allSatisfy(s -> assertThat(s).doesNotContain("LWP").doesNotContain("0x"));
    }

    /**
     * A lock-order deadlock in the job's words: the cycle by the threads' places and the locks' variables, exactly as
     * the program's facts say who holds which lock and waits for which; no LWP and no address in any sentence.
     */
    @Test
    void aDeadlockIsSaidByPlacesAndVariables() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest"));
        Facts facts = fixture.facts();
        RankView view = viewOf(fixture);
        Map<String, String> variable = new LinkedHashMap<>();
        for (String lock : List.of("A", "B")) {
            long address = Long.decode(facts.get("hang.lock." + lock + ".address"));
            for (int k = 0; k < 2; k++) {
                if (fixture.gdb().evaluate("(long)&main::nest_locks[" + k + "]").asLong() == address) {
                    variable.put(lock, "nest_locks[" + k + "]");
                }
            }
        }
        assertThat(variable).as("gdb finds each lock in main's nest_locks").hasSize(2);
        // the cycle from its thread of the smallest number, each lock held by the thread the facts name
        Facts.ThreadFacts start = facts.threads().stream().filter(t -> t.role().equals("cycle"))
                .min(java.util.Comparator.comparingInt(Facts.ThreadFacts::threadNum)).orElseThrow();
        StringBuilder expected = new StringBuilder("deadlock: omp " + start.threadNum() + "/" + start.teamSize());
        Facts.ThreadFacts at = start;
        do {
            String lock = at.get("waits_for");
            Facts.ThreadFacts holder = facts.thread((int) facts.number("hang.lock." + lock + ".holder"));
            expected.append(at == start ? " " : ", which ").append("waits for lock `").append(variable.get(lock))
                    .append("` held by omp ").append(holder.threadNum()).append('/').append(holder.teamSize());
            at = holder;
        } while (at.threadNum() != start.threadNum());
        String text = String.join("\n", sentences(view));
        assertThat(view.findings().stream().filter(f -> f.kind() == dev.jompd.report.Diagnosis.FindingKind.DEADLOCK)
                .map(RankView.Finding::summary).toList()).as(text).containsExactly(expected.toString());
        // as jompd-job/1's findings say it: the kind once
        assertThat(view.findings().stream().filter(f -> f.kind() == dev.jompd.report.Diagnosis.FindingKind.DEADLOCK)
                .map(RankView.Finding::words).toList()).as(text).containsExactly(expected.toString());
        assertThat(sentences(view)).allSatisfy(s -> assertThat(s).doesNotContain("LWP").doesNotContain("0x"));
    }

    /**
     * A program started without OMP_DEBUG=enabled: libomp tracks no thread states, and the job says so for each
     * thread as every other door does ("not tracked"), never "unknown".
     */
    @Test
    void statesLibompDoesNotTrackAreSaidSo() {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.BARRIER_STRAGGLER, "4", "2")
                .withEnvironment("KMP_BLOCKTIME", "0").withEnvironment("OMP_DEBUG", "disabled"));
        RankView view = viewOf(fixture);
        List<String> expected = fixture.facts().threads().stream()
                .sorted(java.util.Comparator.comparingInt(Facts.ThreadFacts::threadNum))
                .map(t -> "omp " + t.threadNum() + "/" + t.teamSize() + " · level " + t.level() + " · "
                        + dev.jompd.report.OpenMpPicture.NOT_TRACKED).toList();
        assertThat(view.threads().stream().map(t -> t.thread() + " · " + t.stateWords()).toList()).isEqualTo(expected);
        // the rows of the job's text, as a reader sees them: each thread, its state (what follows is its part)
        String text = JobPicture.of(JobSummary.of(seenOf(fixture))).text();
        assertThat(text.lines().filter(line -> line.startsWith("    omp ")).map(line -> line.split(" — ")[0].strip())
                .toList()).as(text).isEqualTo(expected);
    }

    /** Address-space randomisation: two live runs of one program load at other addresses and are one class. */
    @Test
    void twoRunsOfOneProgramAreOneClassDespiteAddressSpaceRandomisation() {
        FixtureRun run = FixtureRun.of(Fixture.LOCK_DEADLOCK, "nest");
        List<RankInspection.Seen> ranks = new ArrayList<>();
        List<String> lockAddresses = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            try (LiveFixture live = Fixtures.live(run);
                 LiveProcessAddressSpace space = LiveProcessAddressSpace.attach(live.pid())) {
                ranks.add(inspect(space, new RankId(OptionalInt.of(rank), "localhost", live.pid(), "pid"), "pid",
                        Long.toString(live.pid())));
                lockAddresses.add(live.facts().get("hang.lock.A.address"));
            }
        }
        assertThat(lockAddresses.get(0)).as("ASLR: the lock variable moved").isNotEqualTo(lockAddresses.get(1));
        JobSummary job = JobSummary.of(ranks.get(1)).merge(JobSummary.of(ranks.get(0)));
        assertThat(job.classes()).as(JobPicture.of(job).text()).hasSize(1);
        assertThat(job.classes().getFirst().ranks().toString()).isEqualTo("0-1");
        assertThat(String.join("\n", job.classes().getFirst().view().findings().stream().map(RankView.Finding::words).toList()))
                .contains("deadlock: omp 1/3 waits for lock `nest_locks[1]` held by omp 2/3, which waits for lock `nest_locks[0]` held by omp 1/3");
    }
}
