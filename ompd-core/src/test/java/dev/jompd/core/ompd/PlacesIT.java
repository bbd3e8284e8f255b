package dev.jompd.core.ompd;

import dev.jompd.testkit.Commands;
import dev.jompd.testkit.Facts;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.Runtimes;
import dev.jompd.testkit.StoppedFixture;
import dev.jompd.testkit.SupportedRuntimes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * place-partition-var as libomp keeps it: {@link PlacesLayout}'s groups and shared lines against each runtime's
 * DWARF (gdb evaluating offsetof, sizeof and symbol addresses in our build of the runtime, as C++), the group each
 * runtime's own breadcrumbs select, and every thread's value against what the program itself got from
 * omp_get_partition_place_nums(), omp_get_place_proc_ids() and omp_get_num_places() (with OMP_PLACES and
 * OMP_PROC_BIND as users set them, without, and with libomp's affinity off).
 */
class PlacesIT {

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void eachRuntimesBreadcrumbsSelectTheGroupItsDwarfDescribes(int version) throws Exception {
        PlacesLayout layout = PlacesLayout.shipped();
        String upstream = SupportedRuntimes.upstream(version);
        List<PlacesLayout.Group> named = layout.groups().stream().filter(g -> g.versions().contains(upstream)).toList();
        assertThat(named).as("groups naming " + upstream).hasSize(1);
        PlacesLayout.Group group = named.getFirst();
        // what the layout says, and the expression whose value in the runtime's DWARF must be the same
        Map<String, Long> expected = new LinkedHashMap<>();
        group.where().forEach((member, offset) -> expected.put(offset(member), offset));
        expected.put(offset("kmp_base_info_t.th_first_place"), group.firstPlace().offset());
        expected.put(size("kmp_base_info_t.th_first_place"), (long) group.firstPlace().size());
        expected.put(offset("kmp_base_info_t.th_last_place"), group.lastPlace().offset());
        expected.put(size("kmp_base_info_t.th_last_place"), (long) group.lastPlace().size());
        global(expected, group.numMasks(), group.dwarf().get("num_masks"));
        global(expected, group.masks(), group.dwarf().get("masks"));
        global(expected, layout.maskSize(), layout.maskSize().symbol());
        expected.put("(long)sizeof(" + layout.maskType() + ")", layout.maskObject());
        expected.put("(long)&((" + layout.maskType() + "*)0)->mask", layout.maskBits().offset());
        expected.put("(long)sizeof(((" + layout.maskType() + "*)0)->mask)", (long) layout.maskBits().size());
        expected.put("(long)sizeof(*((" + layout.maskType() + "*)0)->mask)", (long) layout.wordSize());
        // a mask's vtable pointer is the vtable symbol plus the layout's offset: gdb names that address so
        expected.put("(long)&'vtable for " + layout.maskType() + "' - (long)&'" + layout.vtableSymbol() + "'", 0L);
        List<String> command = new ArrayList<>(List.of("gdb", "-batch", "-nx", "-ex", "set language c++"));
        for (String expression : expected.keySet()) {
            command.addAll(List.of("-ex", "printf \"%ld\\n\", " + expression));
        }
        command.add(Runtimes.libraryDirectory(version).resolve("libomp.so").toString());
        Commands.Result result = Commands.run(command, Map.of(), null, Duration.ofMinutes(2));
        List<String> values = result.output().lines().filter(l -> l.matches("-?\\d+")).toList();
        assertThat(values).as(result.output()).hasSize(expected.size());
        int i = 0;
        for (Map.Entry<String, Long> entry : expected.entrySet()) {
            assertThat(Long.parseLong(values.get(i++))).as(entry.getKey() + " in libomp " + version + "'s DWARF")
                    .isEqualTo(entry.getValue());
        }
        // the runtime's own breadcrumbs pick this group, and no other group's key fits them
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").onRuntime(version));
        AddressSpaceHandle process = Targets.process(fixture);
        assertThat(layout.groupFor(process.layout())).isEqualTo(group);
        assertThat(layout.groups().stream().filter(g -> g.where().equals(group.where()))).hasSize(1);
    }

    private static void global(Map<String, Long> expected, PlacesLayout.Global global, String expression) {
        expected.put("(long)((char*)&(" + expression + ") - (char*)&" + global.symbol() + ")", global.offset());
        expected.put("(long)sizeof(" + expression + ")", (long) global.size());
    }

    private static String offset(String typeDotField) {
        int dot = typeDotField.indexOf('.');
        return "(long)&((" + typeDotField.substring(0, dot) + "*)0)->" + typeDotField.substring(dot + 1);
    }

    private static String size(String typeDotField) {
        int dot = typeDotField.indexOf('.');
        return "(long)sizeof(((" + typeDotField.substring(0, dot) + "*)0)->" + typeDotField.substring(dot + 1) + ")";
    }

    static Stream<Arguments> settings() {
        int version = SupportedRuntimes.defaultMajor();
        return Stream.of(Arguments.of(version, Map.of()), Arguments.of(version, Map.of("OMP_PLACES", "cores")),
                Arguments.of(version, Map.of("OMP_PLACES", "threads", "OMP_PROC_BIND", "close")),
                Arguments.of(version, Map.of("OMP_PROC_BIND", "spread")),
                Arguments.of(14, Map.of("OMP_PLACES", "cores")), Arguments.of(16, Map.of("OMP_PLACES", "cores")));
    }

    /**
     * Every thread's place-partition-var is what the program got: its partition's places by their processors in the
     * OMP_PLACES form, then their numbers, of all the places ({@code {0} (place 0 of 2)}).
     */
    @ParameterizedTest(name = "libomp {0}, {1}")
    @MethodSource("settings")
    void eachThreadsPartitionIsTheOneTheProgramGot(int version, Map<String, String> environment) {
        FixtureRun run = FixtureRun.of(Fixture.PARALLEL, "2").onRuntime(version);
        for (Map.Entry<String, String> variable : environment.entrySet()) {
            run = run.withEnvironment(variable.getKey(), variable.getValue());
        }
        StoppedFixture fixture = Fixtures.core(run);
        Facts facts = fixture.facts();
        AddressSpaceHandle process = Targets.process(fixture);
        for (Facts.ThreadFacts thread : facts.threads()) {
            String numbers = thread.get("partition_places");
            assertThat(numbers).as("the program's partition of %s", thread).isNotEmpty();
            String expected = thread.get("partition_procs") + " (place" + (numbers.contains(",") ? "s " : " ")
                    + numbers + " of " + facts.get("icv.num_places") + ")";
            ThreadHandle handle = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp());
            assertThat(Icvs.string(handle, Scope.THREAD, Icv.PLACE_PARTITION_VAR)).as("%s", thread).isEqualTo(expected);
        }
    }

    /** With libomp's affinity off the program has no places, and the value says so and why. */
    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void withAffinityOffThereAreNoPlaces(int version) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").onRuntime(version)
                .withEnvironment("KMP_AFFINITY", "disabled").withEnvironment("OMP_PLACES", "cores"));
        Facts facts = fixture.facts();
        assertThat(facts.get("icv.num_places")).isEqualTo("0");
        AddressSpaceHandle process = Targets.process(fixture);
        for (Facts.ThreadFacts thread : facts.threads()) {
            assertThat(thread.get("partition_places")).isEmpty();
            ThreadHandle handle = Ompd.threadHandle(process, ThreadIdKind.LWP, thread.lwp());
            assertThat(Icvs.string(handle, Scope.THREAD, Icv.PLACE_PARTITION_VAR)).isEqualTo(
                    "no places (libomp's affinity is off: KMP_AFFINITY=disabled, or no affinity support here)");
        }
    }
}
