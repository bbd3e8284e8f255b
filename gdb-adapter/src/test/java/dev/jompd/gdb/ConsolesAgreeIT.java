package dev.jompd.gdb;

import dev.jompd.core.ompd.AddressSpaceHandle;
import dev.jompd.core.ompd.Ompd;
import dev.jompd.core.target.Symbolizer;
import dev.jompd.core.target.core.CoreFileAddressSpace;
import dev.jompd.report.CodeNames;
import dev.jompd.report.ConsoleReport;
import dev.jompd.report.JsonReport;
import dev.jompd.report.OpenMpPicture;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.TargetDescription;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The three doors' consoles say the same about the same stop: gdb's {@code ompd threads|parallel|icvs|tasks} on a
 * core of a fixture with serialized nested regions are the rendering ({@link ConsoleReport}) of the picture
 * the command line takes of that core (dap-server's CoreIT holds the DAP console to the same rendering), and
 * each agrees with what the program recorded about itself and with the command line's JSON.
 */
class ConsolesAgreeIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @Test
    void gdbsConsoleIsTheCommandLinesPictureOnASerializedNest(@TempDir Path directory) throws Exception {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.SERIALIZED, "3", "3"));
        OpenMpPicture commandLines;
        try (CoreFileAddressSpace core = CoreFileAddressSpace.open(fixture.core()); Symbolizer symbols = new Symbolizer(core)) {
            AddressSpaceHandle process = Ompd.processInitialize(core);
            commandLines = OpenMpPicture.take(process, new TargetDescription("core", fixture.core().toString(),
                    core.name(), process.layout().runtimeModule()), new CodeNames(symbols));
        }
        GdbDriver.Output output = GdbDriver.run(GdbDriver.withBridge(List.of()), List.of(
                        GdbBridgeIT.SCENARIO.getFirst(), "thread 3", "ompd threads", "ompd parallel", "ompd icvs",
                        "ompd tasks"),
                List.of(fixture.executable().toString(), fixture.core().toString()), Map.of(), directory, TIMEOUT);
        assertThat(output.exitCode()).as(output.text()).isZero();
        Map<Long, Integer> numbers = GdbBridgeIT.gdbNumbers(output.section(GdbBridgeIT.SCENARIO.getFirst()));
        long selectedLwp = numbers.entrySet().stream().filter(e -> e.getValue() == 3).mapToLong(Map.Entry::getKey)
                .findFirst().orElseThrow();
        ConsoleReport.Options options = new ConsoleReport.Options("gdb", t -> t.lwp().isPresent()
                && numbers.containsKey(t.lwp().getAsLong()) ? OptionalInt.of(numbers.get(t.lwp().getAsLong()))
                : OptionalInt.empty(), t -> t.lwp().isPresent() && t.lwp().getAsLong() == selectedLwp);
        OpenMpThread selected = commandLines.threadByLwp(selectedLwp).orElseThrow();

        List<ConsoleReport.DebuggerThread> all = numbers.entrySet().stream()
                .map(e -> new ConsoleReport.DebuggerThread(e.getValue(), OptionalLong.of(e.getKey()))).toList();
        assertThat(normalised(output.section("ompd threads")))
                .isEqualTo(normalised(ConsoleReport.threads(commandLines, options, all)));
        String parallel = output.section("ompd parallel");
        assertThat(parallel.strip()).isEqualTo(ConsoleReport.parallel(commandLines, selected, options).strip());
        assertThat(output.section("ompd icvs").strip()).isEqualTo(ConsoleReport.icvs(commandLines,
                ConsoleReport.IcvSelection.of(""), Optional.of(selected), options).strip());
        String tasks = output.section("ompd tasks");
        assertThat(tasks.strip()).isEqualTo(ConsoleReport.tasks(commandLines, selected, options).strip());

        // independent of the rendering: the program's own record and the command line's JSON
        Facts facts = fixture.facts();
        GdbBridgeIT.checkIcvs(output.section("ompd icvs"), facts);
        String json = JsonReport.render(commandLines);
        List<String> levels = parallel.lines().filter(line -> line.startsWith("level ")).toList();
        assertThat(levels).as(parallel).hasSize((int) selected.level() + 1);
        // a task per level the thread is in: an implicit task of each region, the initial task at level 0
        List<String> chain = tasks.lines().filter(line -> line.startsWith("#")).toList();
        assertThat(chain).as(tasks).hasSize(levels.size());
        assertThat(chain.getLast()).as(tasks).startsWith("#" + (levels.size() - 1) + "  initial task ");
        long serialized = commandLines.regions().stream().filter(OpenMpPicture.ParallelRegion::serialized).count();
        assertThat(json).contains("\"serialized\": " + (serialized > 0));
        // "serialized" means a team of one inside another region, whatever libomp's lightweight teams say
        for (String level : levels) {
            assertThat(level.contains(", serialized")).as(level).isEqualTo(level.contains("team of 1"));
        }
    }

    /** The backend's name differs between gdb's target and the command line's: "in gdb:core:/x (" → "in … (". */
    private static String normalised(String threads) {
        return threads.strip().replaceFirst(" threads in \\S+ \\(", " threads in … (");
    }
}
