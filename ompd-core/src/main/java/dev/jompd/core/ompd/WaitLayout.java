package dev.jompd.core.ompd;

import dev.jompd.core.ompd.LockLayout.Member;

import java.util.Map;

/**
 * Where libomp records which construct a thread waits in (kmp.h: {@code kmp_base_info_t.th_ident},
 * {@code ident_t.flags} and {@code psource}, {@code kmp_taskdata_t.td_taskwait_ident}). No OMPD breadcrumb
 * describes them, so they are data — the resource {@code libomp-waits.layout}, the same for every supported
 * libomp, each checked against that version's DWARF by WaitLayoutIT — and every value read through them is
 * checked by its content ({@link RuntimeWaits}).
 *
 * @param threadIdentBefore how many bytes {@code th_ident} lies before {@code th_current_task} (which has a breadcrumb)
 */
public record WaitLayout(Map<String, Member> members, long threadIdentBefore, int threadIdentSize, Flags flags) {
    private static final String RESOURCE = "libomp-waits.layout";

    /** ident_t.flags bits (kmp.h KMP_IDENT_BARRIER_*). */
    public record Flags(int explicit, int implicitMask, int implicitFor, int implicitSections, int implicitSingle,
                        int implicitWorkshare) {}

    /** The layout shipped in this jar. */
    public static WaitLayout shipped() {
        return Shipped.LAYOUT;
    }

    private static final class Shipped {
        static final WaitLayout LAYOUT = parse(LayoutData.shipped(RESOURCE));
    }

    /** Parses the layout file's text (java.util.Properties). */
    public static WaitLayout parse(String text) {
        LayoutData data = LayoutData.parse(text);
        String[] before = data.value("before.kmp_base_info_t.th_ident").split("\\s+");
        if (!before[0].equals("th_current_task")) {
            throw new IllegalArgumentException("wait layout: th_ident is placed against " + before[0]
                    + ", not th_current_task");
        }
        return new WaitLayout(data.members(), Long.parseLong(before[1]), Integer.parseInt(before[2]), new Flags(
                flag(data, "barrier_explicit"), flag(data, "barrier_implicit_mask"), flag(data, "barrier_implicit_for"),
                flag(data, "barrier_implicit_sections"), flag(data, "barrier_implicit_single"),
                flag(data, "barrier_implicit_workshare")));
    }

    private static int flag(LayoutData data, String name) {
        return Integer.decode(data.value("flag." + name));
    }

    /** A member, by {@code type.field} as kmp.h names it. */
    public Member member(String type, String field) {
        Member member = members.get(type + "." + field);
        if (member == null) {
            throw new IllegalArgumentException("wait layout has no " + type + "." + field);
        }
        return member;
    }
}
