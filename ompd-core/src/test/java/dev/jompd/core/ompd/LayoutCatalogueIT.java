package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LayoutCatalogue.Field;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every (type, field) jompd reads is checked against the runtime's DWARF: the breadcrumb offsets and
 * sizes jompd reads from memory equal what gdb computes from debug info, on every runtime version.
 */
class LayoutCatalogueIT {

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void everyCataloguedFieldMatchesTheRuntimesDebugInfo(int version) {
        StoppedFixture fixture = Fixtures.core(FixtureRun.of(Fixture.PARALLEL, "2").onRuntime(version));
        AddressSpaceHandle process = Targets.process(fixture);
        RuntimeLayout layout = process.layout();

        List<String> expressions = new ArrayList<>();
        List<Field> present = new ArrayList<>();
        for (Field field : LayoutCatalogue.FIELDS) {
            if (!layout.hasField(field.type(), field.field())) {
                continue; // older runtimes lack some: asked, not version-checked
            }
            present.add(field);
            expressions.add("(long)&((%s*)0)->%s".formatted(cType(field.type()), field.field()));
            expressions.add("(long)sizeof(((%s*)0)->%s)".formatted(cType(field.type()), field.field()));
        }
        for (String type : LayoutCatalogue.TYPE_SIZES) {
            expressions.add("(long)sizeof(%s)".formatted(cType(type)));
        }
        Map<String, GdbProbe.Value> truth = fixture.gdb().evaluate(expressions);

        assertThat(present).as("fields libomp %d describes", version).hasSizeGreaterThan(40);
        for (Field field : present) {
            String type = cType(field.type());
            assertThat(layout.offset(field.type(), field.field())).as("offset of " + field)
                    .isEqualTo(truth.get("(long)&((%s*)0)->%s".formatted(type, field.field())).asLong());
            assertThat(layout.fieldSize(field.type(), field.field())).as("size of " + field)
                    .isEqualTo(truth.get("(long)sizeof(((%s*)0)->%s)".formatted(type, field.field())).asLong());
        }
        for (String type : LayoutCatalogue.TYPE_SIZES) {
            GdbProbe.Value size = truth.get("(long)sizeof(%s)".formatted(cType(type)));
            if (size.text().isPresent()) {
                assertThat(layout.typeSize(type)).as("sizeof " + type).isEqualTo(size.asLong());
            }
        }
    }

    /** gdb knows kmp_team_p as the union kmp_team. */
    private static String cType(String type) {
        return switch (type) {
            case "kmp_team_p" -> "union kmp_team";
            default -> type;
        };
    }
}
