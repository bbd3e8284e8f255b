package dev.jompd.gdb;

import dev.jompd.testkit.FixtureBuilder;
import dev.jompd.testkit.StepIntoCase;
import dev.jompd.testkit.StepOverCase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ompd next} in real gdb from the last statement of a parallel region's code: the testkit's
 * {@link StepOverCase}s, which the DAP's next runs too ({@code StepOverLeavesRegionIT}). Where the thread
 * stopped is what gdb's own {@code frame} says; the runtime's caller of the code is gdb's {@code bt} at the
 * breakpoint.
 */
class OmpdNextIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    /** A frame line of gdb's bt or frame: its function, and its source file's name and line when it has them. */
    private static final Pattern FRAME = Pattern.compile(
            "(?m)^#\\d+\\s+(?:0x\\p{XDigit}+ in )?(\\S+) \\(.*\\)(?: at (?:\\S+/)?([^/\\s]+):(\\d+))?.*$");

    private static List<StepIntoCase.Where> frames(String text) {
        List<StepIntoCase.Where> frames = new ArrayList<>();
        Matcher m = FRAME.matcher(text);
        while (m.find()) {
            frames.add(StepOverCase.SOURCE.equals(m.group(2))
                    ? new StepIntoCase.Where(m.group(1), m.group(2), Integer.parseInt(m.group(3)))
                    : new StepIntoCase.Where(m.group(1), "", 0));
        }
        return frames;
    }

    @ParameterizedTest
    @EnumSource(StepOverCase.class)
    void ompdNextFromTheRegionsLastStatementLeavesTheRegion(StepOverCase step, @TempDir Path directory) {
        Path program = FixtureBuilder.executable(step.fixture());
        // thread 1 is the program's first thread: the primary of its only region
        List<String> setup = List.of("-ex", "break " + StepOverCase.SOURCE + ":" + step.breakLine()
                        + " if $_thread " + (step.primary() ? "==" : "!=") + " 1",
                "-ex", (step.needsJompdRuntime() ? "ompd run " : "run ") + String.join(" ", step.arguments()),
                "-ex", "delete");
        List<String> commands = new ArrayList<>(List.of("bt"));
        int nexts = step.landings("").size();
        for (int i = 0; i < nexts; i++) {
            commands.add("ompd next");
        }
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(setup), commands, List.of(program.toString()),
                Map.of(), directory, TIMEOUT);
        assertThat(output.exitCode()).as("%s", output.text()).isZero();
        List<StepIntoCase.Where> stack = frames(output.section("bt"));
        assertThat(stack.getFirst()).as(output.text())
                .isEqualTo(new StepIntoCase.Where(step.outlinedFunction(), StepOverCase.SOURCE, step.breakLine()));
        String caller = stack.stream().dropWhile(where -> where.file().equals(StepOverCase.SOURCE))
                .findFirst().orElseThrow().function();
        List<StepIntoCase.Where> landed = new ArrayList<>();
        for (int i = 0; i < nexts; i++) {
            List<StepIntoCase.Where> frame = frames(output.section(i == 0 ? "ompd next" : "ompd next#" + (i + 1)));
            assertThat(frame).as(output.text()).isNotEmpty();
            landed.add(frame.getFirst());
        }
        assertThat(landed).as("the ompd nexts' ends (the region's pragma is line %d):\n%s", step.pragmaLine(),
                output.text()).isEqualTo(step.landings(caller));
    }

    @Test
    void aProgramNotStartedCannotStepOver(@TempDir Path directory) {
        Path program = FixtureBuilder.executable(StepOverCase.CLANG_PRIMARY.fixture());
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of("ompd next"),
                List.of(program.toString()), Map.of(), directory, TIMEOUT);
        assertThat(output.section("ompd next").strip()).isEqualTo("ompd next: the program is not running");
    }
}
