package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;
import dev.jompd.testkit.GdbProbe;
import dev.jompd.testkit.StoppedFixture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The check every layout data file's {@code field.TYPE.MEMBER = OFFSET SIZE} lines share: gdb evaluates
 * offsetof and sizeof of each member through the runtime's own DWARF, together with whatever else the
 * layout's test asks (tags, enum values), in one gdb run.
 */
final class LayoutMembersAgainstDwarf {
    private LayoutMembersAgainstDwarf() {}

    /** Evaluates every member's offset and size and the {@code extra} expressions; checks the members. */
    static Map<String, GdbProbe.Value> check(StoppedFixture fixture, Map<String, Member> members, List<String> extra) {
        List<String> expressions = new ArrayList<>();
        members.keySet().forEach(name -> {
            expressions.add(offset(name));
            expressions.add(size(name));
        });
        expressions.addAll(extra);
        Map<String, GdbProbe.Value> truth = fixture.gdb().evaluate(expressions);
        members.forEach((name, member) -> {
            assertThat(truth.get(offset(name)).asLong()).as(name + " offset").isEqualTo(member.offset());
            assertThat(truth.get(size(name)).asLong()).as(name + " size").isEqualTo(member.size());
        });
        return truth;
    }

    private static String offset(String typeDotField) {
        return "(long)&((" + type(typeDotField) + "*)0)->" + field(typeDotField);
    }

    private static String size(String typeDotField) {
        return "(long)sizeof(((" + type(typeDotField) + "*)0)->" + field(typeDotField) + ")";
    }

    private static String type(String typeDotField) {
        return typeDotField.substring(0, typeDotField.indexOf('.'));
    }

    private static String field(String typeDotField) {
        return typeDotField.substring(typeDotField.indexOf('.') + 1);
    }
}
