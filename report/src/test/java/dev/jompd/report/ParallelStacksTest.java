package dev.jompd.report;

import dev.jompd.core.ompd.ToolData;
import dev.jompd.core.unwind.NativeStack;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.ParallelStacks.Node;
import dev.jompd.report.ParallelStacks.Step;
import dev.jompd.report.ParallelStacks.ThreadStack;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The merge of call paths into one tree, on synthetic paths (outermost step first). */
class ParallelStacksTest {
    private static OpenMpThread thread(long gtid) {
        return new OpenMpThread(gtid, OptionalLong.of(100 + gtid), 0x7000 + gtid, gtid, Optional.empty(),
                OptionalLong.empty(), OptionalLong.empty(), Optional.of("r0"), List.of(), 1, 4, new ToolData(0, 0), Map.of(), List.of(),
                List.of());
    }

    /** "main a.out", "[libomp: idle …]" (a folded runtime run), … */
    private static ThreadStack path(long gtid, String... steps) {
        List<Step> path = Arrays.stream(steps).map(step -> step.startsWith("[")
                ? new Step(step.substring(1, step.length() - 1), Optional.empty(), Optional.of("libomp.so"), true,
                Optional.empty())
                : new Step(step.split(" ")[0], Optional.empty(), Optional.of(step.split(" ")[1]), false, Optional.empty()))
                .toList();
        return new ThreadStack(thread(gtid), new NativeStack(100 + gtid, List.of(), Optional.empty()), List.of(),
                List.of(), path);
    }

    /** The tree as "step[gtids]" lines, indented by depth. */
    private static String shape(List<Node> nodes, String indent) {
        StringBuilder out = new StringBuilder();
        for (Node node : nodes) {
            out.append(indent).append(node.step().function()).append(node.threads().stream().map(OpenMpThread::gtid)
                    .toList()).append('\n').append(shape(node.children(), indent + "  "));
        }
        return out.toString();
    }

    @Test
    void commonPrefixesMergeAndPathsPartWhereTheyDiffer() {
        List<Node> tree = ParallelStacks.merge(List.of(
                path(0, "main a.out", "outlined a.out", "marker a.out"),
                path(1, "start libc.so", "[libomp: idle]"),
                path(2, "main a.out", "outlined a.out", "[libomp: waiting at a barrier]"),
                path(3, "start libc.so", "[libomp: idle]")));
        assertThat(shape(tree, "")).isEqualTo("""
                main[0, 2]
                  outlined[0, 2]
                    marker[0]
                    libomp: waiting at a barrier[2]
                start[1, 3]
                  libomp: idle[1, 3]
                """);
    }

    @Test
    void theSameFunctionInAnotherModuleIsAnotherStep() {
        List<Node> tree = ParallelStacks.merge(List.of(path(0, "main a.out", "f a.out"), path(1, "main a.out", "f b.so")));
        assertThat(shape(tree, "")).isEqualTo("""
                main[0, 1]
                  f[0]
                  f[1]
                """);
    }

    @Test
    void noStacksMakeNoTree() {
        assertThat(ParallelStacks.merge(List.of())).isEmpty();
    }
}
