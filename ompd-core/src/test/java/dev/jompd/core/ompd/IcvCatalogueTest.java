package dev.jompd.core.ompd;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The ICV table keeps the reference libompd's ids, names and scopes (tools written for it keep working). */
class IcvCatalogueTest {
    /** LLVM 19 libompd's FOREACH_OMPD_ICV, in order: name and scope of ids 1–30. */
    private static final List<String> REFERENCE = List.of(
            "dyn-var THREAD", "run-sched-var TASK", "stacksize-var ADDRESS_SPACE", "cancel-var ADDRESS_SPACE",
            "max-task-priority-var ADDRESS_SPACE", "debug-var ADDRESS_SPACE", "nthreads-var THREAD",
            "display-affinity-var ADDRESS_SPACE", "affinity-format-var ADDRESS_SPACE", "default-device-var THREAD",
            "tool-var ADDRESS_SPACE", "tool-libraries-var ADDRESS_SPACE", "tool-verbose-init-var ADDRESS_SPACE",
            "levels-var PARALLEL", "active-levels-var PARALLEL", "thread-limit-var TASK", "max-active-levels-var TASK",
            "bind-var TASK", "num-procs-var ADDRESS_SPACE", "ompd-num-procs-var ADDRESS_SPACE",
            "thread-num-var THREAD", "ompd-thread-num-var THREAD", "final-task-var TASK", "ompd-final-var TASK",
            "ompd-final-task-var TASK", "implicit-task-var TASK", "ompd-implicit-var TASK",
            "ompd-implicit-task-var TASK", "team-size-var PARALLEL", "ompd-team-size-var PARALLEL");

    @Test
    void idsOneToThirtyAreTheReferences() {
        IntStream.rangeClosed(1, 30).forEach(id -> {
            Icv icv = Icv.byId(id).orElseThrow();
            assertThat(icv.name() + " " + icv.scope()).as("ICV " + id).isEqualTo(REFERENCE.get(id - 1));
            assertThat(icv.inReference()).isTrue();
        });
    }

    @Test
    void theOpenMp51AdditionsFollowWithUniqueNames() {
        assertThat(Icv.ALL).extracting(Icv::id).containsExactlyElementsOf(IntStream.rangeClosed(1, 37).boxed().toList());
        assertThat(Icv.CATALOGUE).extracting(Icv::id).containsExactlyElementsOf(IntStream.rangeClosed(1, 41).boxed().toList());
        assertThat(Icv.CATALOGUE).extracting(Icv::name).doesNotHaveDuplicates();
        assertThat(Icv.ALL).extracting(Icv::name).doesNotHaveDuplicates()
                .contains("def-sched-var", "wait-policy-var", "place-partition-var", "target-offload-var",
                        "def-allocator-var", "nteams-var", "teams-thread-limit-var");
        assertThat(Icv.byName("nteams-var")).map(Icv::inReference).contains(false);
    }

    @Test
    void aRowCanCarryTheNamesLaterVersionsGiveIt() {
        assertThat(Icv.IMPLICIT_TASK_VAR.nameIn(OpenMpVersion.V6_0)).isEqualTo("implicit-task-var");
        Icv renamed = Icv.IMPLICIT_TASK_VAR.renamedIn(OpenMpVersion.V5_2, "renamed-var")
                .renamedIn(OpenMpVersion.V6_0, "renamed-again-var");
        assertThat(renamed.nameIn(OpenMpVersion.V5_1)).isEqualTo("implicit-task-var");
        assertThat(renamed.nameIn(OpenMpVersion.V5_2)).isEqualTo("renamed-var");
        assertThat(renamed.nameIn(OpenMpVersion.V6_0)).isEqualTo("renamed-again-var");
        assertThat(renamed.name()).isEqualTo("implicit-task-var");
        assertThat(renamed.scope()).isEqualTo(Scope.TASK);
    }

    @Test
    void eachVersionsDebuggersAreEnumeratedTheNamesOfThatVersion() {
        // 5.0 (LLVM's gdb plugin): exactly the reference's 30
        assertThat(Icv.enumeratedIn(OpenMpVersion.V5_0)).extracting(Icv::id)
                .containsExactlyElementsOf(IntStream.rangeClosed(1, 30).boxed().toList());
        // 5.1 and 5.2: jompd's 37
        assertThat(Icv.enumeratedIn(OpenMpVersion.V5_1)).isEqualTo(Icv.ALL);
        assertThat(Icv.enumeratedIn(OpenMpVersion.V5_2)).isEqualTo(Icv.ALL);
        // 6.0: no ompd- alias, no implicit-task-var, explicit-task-var instead
        List<String> six = Icv.enumeratedIn(OpenMpVersion.V6_0).stream().map(Icv::name).toList();
        assertThat(six).noneMatch(name -> name.startsWith("ompd-")).doesNotContain("implicit-task-var")
                .contains("explicit-task-var", "num-procs-var", "thread-num-var", "final-task-var", "team-size-var",
                        "team-num-var", "league-size-var", "team-generator-var");
        assertThat(six).hasSize(37 - 7 - 1 + 1 + 3);
        // 6.0's teams scope: read with a parallel handle of a teams construct's team
        assertThat(List.of(Icv.TEAM_NUM_VAR, Icv.LEAGUE_SIZE_VAR, Icv.TEAM_GENERATOR_VAR)).extracting(Icv::scope)
                .containsOnly(Scope.TEAMS);
        assertThat(Icv.enumeratedIn(OpenMpVersion.V5_2)).doesNotContain(Icv.TEAM_NUM_VAR, Icv.LEAGUE_SIZE_VAR);
        assertThat(Icv.EXPLICIT_TASK_VAR.scope()).isEqualTo(Icv.IMPLICIT_TASK_VAR.scope());
        // every row stays readable by id whatever a version enumerates
        assertThat(Icv.byId(38)).contains(Icv.EXPLICIT_TASK_VAR);
        assertThat(Icv.byId(28)).contains(Icv.OMPD_IMPLICIT_TASK_VAR);
    }

    @Test
    void statesAndReturnCodesCarryTheirSpecValues() {
        assertThat(ThreadState.of(0x14)).contains(ThreadState.WAIT_BARRIER_EXPLICIT);
        assertThat(ThreadState.WAIT_BARRIER_EXPLICIT.cName()).isEqualTo("ompt_state_wait_barrier_explicit");
        assertThat(ThreadState.of(0x999)).isEmpty();
        assertThat(OmpdRc.CALLBACK_ERROR.code()).isEqualTo(12);
        assertThat(OmpdRc.INCOMPATIBLE_HANDLE.code()).isEqualTo(13);
        assertThat(OmpdRc.STALE_HANDLE.cName()).isEqualTo("ompd_rc_stale_handle");
        assertThat(Scope.TASK.code()).isEqualTo(6);
        assertThat(Scope.TEAMS.code()).isEqualTo(7);
        assertThat(Scope.TEAMS.cName()).isEqualTo("ompd_scope_teams");
    }
}
