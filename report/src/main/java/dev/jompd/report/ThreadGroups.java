package dev.jompd.report;

import dev.jompd.core.ompd.IcvReading;
import dev.jompd.report.OpenMpPicture.OpenMpThread;
import dev.jompd.report.OpenMpPicture.Task;
import dev.jompd.report.OpenMpPicture.TaskKind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which threads of a team a rendering may show as one group: only those for which everything shown is
 * equal — state, wait id, tool data, the thread's ICVs but its own number, and the task chain, where an
 * explicit task must be the very same task (two threads running different tasks of one function are not
 * alike) and an implicit task (one per thread by nature) the same function, flags, status and ICVs. A
 * group lists its members; nothing a member shows differently is ever hidden behind another.
 */
public final class ThreadGroups {
    /** ICVs that are the thread's own number: they differ in every team and are listed per member. */
    private static final List<String> OWN_NUMBER = List.of("thread-num-var", "ompd-thread-num-var");

    private ThreadGroups() {}

    static List<List<OpenMpThread>> of(OpenMpPicture picture, List<OpenMpThread> members, boolean all) {
        List<List<OpenMpThread>> groups = new ArrayList<>();
        for (OpenMpThread thread : members) {
            List<OpenMpThread> home = all ? null
                    : groups.stream().filter(g -> alike(picture, g.getFirst(), thread)).findFirst().orElse(null);
            if (home != null) {
                home.add(thread);
            } else {
                groups.add(new ArrayList<>(List.of(thread)));
            }
        }
        return groups.stream().map(List::copyOf).toList();
    }

    /** Whether everything a rendering shows for {@code a} and {@code b} (but their identities) is equal. */
    public static boolean alike(OpenMpPicture picture, OpenMpThread a, OpenMpThread b) {
        return alike(picture::chain, a, b);
    }

    /** {@link #alike(OpenMpPicture, OpenMpThread, OpenMpThread)} with the threads' task chains as given. */
    static boolean alike(java.util.function.Function<OpenMpThread, List<Task>> chainOf, OpenMpThread a, OpenMpThread b) {
        if (!(a.region().equals(b.region()) && a.state().equals(b.state()) && a.stateCode().equals(b.stateCode()) && a.waitId().equals(b.waitId())
                && a.toolData().equals(b.toolData()) && a.taskIds().size() == b.taskIds().size()
                && withoutOwnNumber(a.icvs()).equals(withoutOwnNumber(b.icvs())))) {
            return false;
        }
        List<Task> chainA = chainOf.apply(a);
        List<Task> chainB = chainOf.apply(b);
        for (int i = 0; i < chainA.size(); i++) {
            if (!alike(chainA.get(i), chainB.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean alike(Task a, Task b) {
        if (a.id().equals(b.id())) {
            return true;
        }
        if (a.kind() == TaskKind.EXPLICIT || b.kind() == TaskKind.EXPLICIT || a.kind() != b.kind()) {
            return false;
        }
        return Objects.equals(a.function().map(CodeLocation::address), b.function().map(CodeLocation::address))
                && a.status() == b.status() && a.flags().equals(b.flags()) && a.toolData().equals(b.toolData())
                && a.region().equals(b.region()) && a.icvs().equals(b.icvs());
    }

    private static Map<String, IcvReading> withoutOwnNumber(Map<String, IcvReading> icvs) {
        Map<String, IcvReading> rest = new LinkedHashMap<>(icvs);
        OWN_NUMBER.forEach(rest::remove);
        return rest;
    }
}
