package dev.jompd.job.model;

import com.google.gson.JsonParser;
import dev.jompd.core.ompd.ThreadState;
import dev.jompd.job.rendering.JobHtml;
import dev.jompd.job.rendering.JobPicture;
import dev.jompd.job.wire.JobWire;
import dev.jompd.report.Diagnosis.FindingKind;
import dev.jompd.report.OpenMpPicture.ThreadPlace;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The merge's algebra on node summaries as a table: associative, commutative in its output, the empty
 * summary its identity, and the wire format a fixed point. Views here are written as the wire carries them
 * (the real ones, from inspected processes, are in JobMergeIT).
 */
class JobSummaryAlgebraTest {

    private static ThreadPlace place(long threadNum, long teamSize, long level) {
        return new ThreadPlace(OptionalLong.empty(), List.of(), threadNum, teamSize, level, OptionalLong.empty());
    }

    private static RankView.Step frame(String function, String source) {
        return new RankView.Step(function, Optional.of(source), Optional.of("a.out"), false, function + " (" + source + ")");
    }

    private static final RankView.Step BARRIER_RUN = new RankView.Step("libomp: waiting at a barrier (4 frames)",
            Optional.empty(), Optional.of("libomp.so"), true, "[libomp: waiting at a barrier (4 frames)]");

    /** A view as the wire carries it (the typed view written by JobWire). */
    private static String view(ThreadState state, FindingKind kind, String finding) {
        return wire(new RankView(List.of(new RankView.ThreadView(place(0, 2, 1), OptionalLong.of(state.code()), Optional.empty(),
                List.of(), List.of(frame("main", "a.c:3"), BARRIER_RUN), List.of())),
                List.of(new RankView.Finding(kind, finding)), Optional.empty(), List.of()));
    }

    private static String wire(RankView view) {
        return JobWire.toJson(view).toString();
    }

    private static final String BARRIER = view(ThreadState.WAIT_BARRIER_EXPLICIT, FindingKind.BARRIER,
            "1 of 2 threads wait at a barrier");
    private static final String LOCK = view(ThreadState.WAIT_LOCK, FindingKind.LOCK, "1 thread waits for lock `guard`");

    /** A node's summary: {@code classes} as (ranks, view), {@code missing} as (ranks, reason, detail). */
    private static JobSummary node(String host, List<String[]> classes, List<String[]> missing) {
        StringBuilder json = new StringBuilder("{\"schema\":\"jompd-job-summary/1\",\"classes\":[");
        for (int i = 0; i < classes.size(); i++) {
            String ranks = classes.get(i)[0];
            json.append(i > 0 ? "," : "").append("{\"ranks\":\"").append(ranks).append("\",\"unnumbered\":[],")
                    .append("\"representative\":{\"rank\":").append(RankSet.parse(ranks).first())
                    .append(",\"host\":\"").append(host).append("\",\"pid\":").append(100 + RankSet.parse(ranks).first())
                    .append(",\"source\":\"pid\"},\"view\":").append(classes.get(i)[1]).append('}');
        }
        json.append("],\"missing\":[");
        for (int i = 0; i < missing.size(); i++) {
            json.append(i > 0 ? "," : "").append("{\"reason\":\"").append(missing.get(i)[1]).append("\",\"detail\":\"")
                    .append(missing.get(i)[2]).append("\",\"ranks\":\"").append(missing.get(i)[0]).append("\",\"unnumbered\":[]}");
        }
        json.append("],\"duplicates\":\"\"}");
        return JobWire.summary(JsonParser.parseString(json.toString()).getAsJsonObject());
    }

    private static final List<JobSummary> NODES = List.of(
            node("n1", List.<String[]>of(new String[]{"0-2", BARRIER}, new String[]{"3", LOCK}), List.of()),
            node("n2", List.<String[]>of(new String[]{"4-7", BARRIER}), List.of()),
            node("n3", List.<String[]>of(new String[]{"8-9,11", BARRIER}), List.<String[]>of(new String[]{"10", "EXITED", "exited midway"})),
            node("n4", List.of(), List.<String[]>of(new String[]{"12-15", "NO_ANSWER", "node n4 did not answer within 30 s"})),
            node("n5", List.<String[]>of(new String[]{"16-30", BARRIER}, new String[]{"31", LOCK}), List.of()));

    private static String merged(List<JobSummary> summaries) {
        JobSummary all = JobSummary.empty();
        for (JobSummary s : summaries) {
            all = all.merge(s);
        }
        return JobWire.toJson(all).toString();
    }

    @Test
    void mergeOrderDoesNotChangeTheOutput() {
        String expected = merged(NODES);
        Random random = new Random(42);
        for (int round = 0; round < 50; round++) {
            List<JobSummary> shuffled = new ArrayList<>(NODES);
            Collections.shuffle(shuffled, random);
            assertThat(merged(shuffled)).isEqualTo(expected);
        }
    }

    @Test
    void mergeIsAssociativeInEveryTreeShape() {
        JobSummary a = NODES.get(0), b = NODES.get(1), c = NODES.get(2), d = NODES.get(3), e = NODES.get(4);
        String left = JobWire.toJson(a.merge(b).merge(c).merge(d).merge(e)).toString();
        assertThat(JobWire.toJson(a.merge(b.merge(c.merge(d.merge(e))))).toString()).isEqualTo(left);
        assertThat(JobWire.toJson(a.merge(b).merge(c.merge(d).merge(e))).toString()).isEqualTo(left);
        assertThat(JobWire.toJson(e.merge(a.merge(c)).merge(d.merge(b))).toString()).isEqualTo(left);
    }

    @Test
    void theEmptySummaryIsTheIdentityAndTheWireFormatAFixedPoint() {
        JobSummary all = NODES.stream().reduce(JobSummary.empty(), JobSummary::merge);
        assertThat(JobWire.toJson(JobSummary.empty().merge(all))).isEqualTo(JobWire.toJson(all));
        assertThat(JobWire.toJson(all.merge(JobSummary.empty()))).isEqualTo(JobWire.toJson(all));
        assertThat(JobWire.toJson(JobWire.summary(JobWire.toJson(all)))).isEqualTo(JobWire.toJson(all));
    }

    @Test
    void classesAreOutliersFirstWithRanksAsRangesAndMissingRanksExactly() {
        JobSummary all = NODES.stream().reduce(JobSummary.empty(), JobSummary::merge);
        assertThat(all.rankCount()).isEqualTo(32);
        assertThat(all.seenCount()).isEqualTo(27);
        assertThat(all.classes()).extracting(c -> c.ranks().toString()).containsExactly("3,31", "0-2,4-9,11,16-30");
        assertThat(all.classes().getFirst().representative().rank()).isEqualTo(OptionalInt.of(3));
        assertThat(all.missing()).extracting(m -> m.reason() + " " + m.ranks()).containsExactly("NO_ANSWER 12-15", "EXITED 10");
        assertThat(all.duplicates().isEmpty()).isTrue();
        String text = JobPicture.of(all).text();
        assertThat(text).contains("ranks 12-15: no answer: node n4 did not answer within 30 s")
                .contains("rank 10: exited: exited midway")
                .contains("class 1: ranks 3,31 (2 ranks");
    }

    @Test
    void mpiWaitsExplainTheJobAcrossRanks() {
        String inAllreduce = wire(new RankView(List.of(new RankView.ThreadView(place(0, 1, 0),
                OptionalLong.of(ThreadState.WORK_SERIAL.code()), Optional.empty(), List.of(),
                List.of(frame("main", "solver.c:30"), frame("MPI_Allreduce", "coll.c:9")), List.of())),
                List.of(new RankView.Finding(FindingKind.NONE,
                        "no thread waits at a barrier, a taskwait, for a lock or a critical section")),
                Optional.of(new RankView.MpiWait("MPI_Allreduce", Optional.of("solver.c:120"), place(0, 1, 0))), List.of()));
        String deadlocked = view(ThreadState.WAIT_LOCK, FindingKind.DEADLOCK, "omp 1/4 waits for lock `guard` held by omp 2/4,"
                + " which waits at a barrier of team r1 that omp 1/4 has not reached");
        JobSummary job = node("n1", List.<String[]>of(new String[]{"0-2", inAllreduce}, new String[]{"3", deadlocked}), List.of())
                .merge(node("n2", List.<String[]>of(new String[]{"4-31", inAllreduce}), List.of()));
        assertThat(JobPicture.of(job).diagnosis().getFirst()).isEqualTo("ranks 0-2,4-31 wait in MPI_Allreduce (from solver.c:120);"
                + " rank 3 never arrives: omp 1/4 waits for lock `guard` held by omp 2/4, which waits at a barrier of team r1"
                + " that omp 1/4 has not reached");
        // without MPI in any stack: one sentence per class, no claim across ranks
        assertThat(JobPicture.of(NODES.get(0)).diagnosis()).noneMatch(d -> d.contains("MPI"));
    }

    /** A thread stopped in a caller of another thread's frame ends at an inner step: it is counted there, not lost. */
    @Test
    void aThreadStoppedInACallerEndsAtAnInnerStep() {
        String inCaller = wire(new RankView(List.of(new RankView.ThreadView(place(0, 2, 1),
                OptionalLong.of(ThreadState.WORK_PARALLEL.code()), Optional.empty(), List.of(), List.of(frame("main", "a.c:3")),
                List.of())), List.of(new RankView.Finding(FindingKind.NONE, "none")), Optional.empty(), List.of()));
        JobSummary job = node("n1", List.<String[]>of(new String[]{"0-2", BARRIER}, new String[]{"3", inCaller}), List.of());
        JobPicture picture = JobPicture.of(job);
        JobPicture.StackNode main = picture.stacks().getFirst();
        assertThat(picture.stacks()).hasSize(1);
        assertThat(main.step()).isEqualTo(frame("main", "a.c:3"));
        assertThat(main.threads()).isEqualTo(4);
        assertThat(main.stopped()).isEqualTo(1);
        assertThat(main.children()).singleElement().satisfies(leaf -> {
            assertThat(leaf.threads()).isEqualTo(3);
            assertThat(leaf.stopped()).isEqualTo(3);
        });
        assertThat(picture.text()).contains("4× main (a.c:3)   [ranks 0-3]   (1 stopped here)");
        assertThat(picture.toJson().getAsJsonArray("stacks").get(0).getAsJsonObject().get("stopped").getAsLong()).isEqualTo(1);
        assertThat(JobHtml.render(picture, "job")).contains("4 threads (1 stopped here)");
    }

    @Test
    void aRankReportedTwiceIsNamed() {
        JobSummary twice = NODES.get(1).merge(node("n9", List.<String[]>of(new String[]{"7-8", LOCK}), List.of()));
        assertThat(twice.duplicates().toString()).isEqualTo("7");
        assertThat(JobPicture.of(twice).text()).contains("rank 7 came more than once");
    }

    @Test
    void aDocumentOfAnotherKindIsAClearError() {
        assertThatThrownBy(() -> JobWire.summary(JsonParser.parseString("{\"schema\":\"jompd-inspect/1\"}").getAsJsonObject()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jompd-job-summary/1");
        assertThatThrownBy(() -> JobWire.summary(JsonParser.parseString(
                "{\"schema\":\"jompd-job-summary/1\",\"classes\":[{\"ranks\":\"x\"}]}").getAsJsonObject()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
