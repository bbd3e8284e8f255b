package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
        List<Group> groups = data.groups("teams layout").stream()
                .map(g -> new Group(g.name(), g.versions(), g.where(), g.members())).toList();
        return new TeamsLayout(groups, data.members(), data.value("function.league"));
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
            Optional<String> miss = LayoutData.misfit(group.where(), layout);
            if (miss.isEmpty()) {
                return group;
            }
            misses.add(group.name() + " (" + String.join(" ", group.versions()) + "): " + miss.get());
        }
        throw new OmpdException(OmpdRc.UNSUPPORTED, "this libomp's kmp_base_info_t is laid out as no checked version's: "
                + "its teams state (th_teams_microtask, th_teams_level, th_teams_size) is not read; "
                + String.join("; ", misses));
    }
}
