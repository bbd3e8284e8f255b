package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where libomp keeps a teams construct's state in each league thread's {@code kmp_base_info_t} (kmp.h:
 * {@code th_teams_microtask}, {@code th_teams_level}, {@code th_teams_size.{nteams,nth}}). No OMPD breadcrumb
 * describes them and {@code th_teams_size} moves between versions, so they are data — the resource
 * {@code libomp-teams.layout}, one group per layout, each checked against the DWARF of the versions it names by
 * TeamsLayoutIT — and a group is chosen by the breadcrumbs a runtime publishes about itself ({@link #groupFor}),
 * never by a version guessed from a file name. Values read through it are checked by their content
 * ({@link TeamsRegions}).
 *
 * @param groups         every layout group, in file order
 * @param teamsSize      {@code kmp_teams_size_t}'s members ({@code nteams}, {@code nth}), the same in every version
 * @param leagueFunction the function libomp forks a league with ({@code __kmp_teams_master})
 */
public record TeamsLayout(List<Group> groups, Map<String, Member> teamsSize, String leagueFunction) {
    private static final String RESOURCE = "libomp-teams.layout";
    private static final String GROUP = "group.";

    /**
     * One layout of the teams members.
     *
     * @param name     the group's name in the file
     * @param versions the upstream versions it was checked against
     * @param where    breadcrumbed members ({@code TYPE.MEMBER}) and the offsets that select this group
     * @param members  the teams members ({@code TYPE.MEMBER}), offset and size
     */
    public record Group(String name, List<String> versions, Map<String, Long> where, Map<String, Member> members) {
        /** A member, by {@code type.field} as kmp.h names it. */
        public Member member(String type, String field) {
            Member member = members.get(type + "." + field);
            if (member == null) {
                throw new IllegalArgumentException("teams layout group " + name + " has no " + type + "." + field);
            }
            return member;
        }
    }

    /** The layout shipped in this jar. */
    public static TeamsLayout shipped() {
        return Shipped.LAYOUT;
    }

    private static final class Shipped {
        static final TeamsLayout LAYOUT = parse(LayoutData.shipped(RESOURCE));
    }

    /** Parses the layout file's text (java.util.Properties). */
    public static TeamsLayout parse(String text) {
        LayoutData data = LayoutData.parse(text);
        List<String> names = new ArrayList<>();
        for (String key : data.keys()) {
            if (key.startsWith(GROUP) && key.endsWith(".versions")) {
                names.add(key.substring(GROUP.length(), key.length() - ".versions".length()));
            }
        }
        List<Group> groups = new ArrayList<>();
        for (String name : names) {
            String prefix = GROUP + name + ".";
            Map<String, Long> where = new LinkedHashMap<>();
            for (String condition : data.value(prefix + "where").split("\\s+")) {
                int equals = condition.indexOf('=');
                if (equals < 0) {
                    throw new IllegalArgumentException("teams layout group " + name + ": where condition \""
                            + condition + "\" is not TYPE.MEMBER=OFFSET");
                }
                where.put(condition.substring(0, equals), Long.parseLong(condition.substring(equals + 1)));
            }
            Map<String, Member> members = new LinkedHashMap<>();
            for (String key : data.keys()) {
                if (key.startsWith(prefix + "field.")) {
                    String[] parts = data.value(key).split("\\s+");
                    members.put(key.substring((prefix + "field.").length()),
                            new Member(Long.parseLong(parts[0]), Integer.parseInt(parts[1])));
                }
            }
            if (where.isEmpty() || members.isEmpty()) {
                throw new IllegalArgumentException("teams layout group " + name + " without where or fields");
            }
            groups.add(new Group(name, List.of(data.value(prefix + "versions").split("\\s+")), Map.copyOf(where),
                    Map.copyOf(members)));
        }
        if (groups.isEmpty()) {
            throw new IllegalArgumentException("teams layout without groups");
        }
        return new TeamsLayout(List.copyOf(groups), data.members(), data.value("function.league"));
    }

    /** A member of {@code kmp_teams_size_t}. */
    public Member teamsSizeMember(String field) {
        Member member = teamsSize.get("kmp_teams_size_t." + field);
        if (member == null) {
            throw new IllegalArgumentException("teams layout has no kmp_teams_size_t." + field);
        }
        return member;
    }

    /**
     * The group whose breadcrumbed members sit where this runtime's breadcrumbs place them.
     *
     * @throws OmpdException {@code unsupported} when no group fits (a libomp whose layout no group was checked
     *                       against): its teams state is then not read at all
     */
    public Group groupFor(RuntimeLayout layout) {
        List<String> misses = new ArrayList<>();
        for (Group group : groups) {
            String miss = null;
            for (Map.Entry<String, Long> condition : group.where().entrySet()) {
                String typeDotField = condition.getKey();
                int dot = typeDotField.indexOf('.');
                String type = typeDotField.substring(0, dot);
                String field = typeDotField.substring(dot + 1);
                if (!layout.hasField(type, field)) {
                    miss = typeDotField + " has no breadcrumb";
                    break;
                }
                long offset = layout.offset(type, field);
                if (offset != condition.getValue()) {
                    miss = typeDotField + " at " + offset + ", not " + condition.getValue();
                    break;
                }
            }
            if (miss == null) {
                return group;
            }
            misses.add(group.name() + " (" + String.join(" ", group.versions()) + "): " + miss);
        }
        throw new OmpdException(OmpdRc.UNSUPPORTED, "this libomp's kmp_base_info_t is laid out as no checked version's: "
                + "its teams state (th_teams_microtask, th_teams_level, th_teams_size) is not read; "
                + String.join("; ", misses));
    }
}
