package dev.jompd.dap.session;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The run-state machine: the transitions a session makes are allowed, everything else is an error. */
class RunStateTest {
    private static RunControl at(RunState... path) {
        RunControl control = new RunControl();
        for (RunState state : path) {
            control.moveTo(state);
        }
        return control;
    }

    @Test
    void aLaunchRunsStopsStepsAndExits() {
        RunControl control = at(RunState.RUNNING, RunState.STOPPED, RunState.STEPPING, RunState.STOPPED,
                RunState.RUNNING, RunState.PAUSING, RunState.STOPPED, RunState.RUNNING, RunState.EXITED);
        assertThat(control.state()).isEqualTo(RunState.EXITED);
        assertThat(control.isOver()).isTrue();
        assertThat(control.isRunning()).isFalse();
    }

    @Test
    void anAttachOrACoreStopsFirstThenDisconnects() {
        assertThat(at(RunState.STOPPED, RunState.DISCONNECTING, RunState.TERMINATED).state()).isEqualTo(RunState.TERMINATED);
    }

    @Test
    void moveToReturnsTheStateLeft() {
        RunControl control = at(RunState.RUNNING);
        assertThat(control.moveTo(RunState.STOPPED)).isEqualTo(RunState.RUNNING);
    }

    @Test
    void aProgramThatExitedCannotStopOrRunAgain() {
        RunControl control = at(RunState.RUNNING, RunState.EXITED);
        for (RunState state : EnumSet.of(RunState.RUNNING, RunState.STEPPING, RunState.PAUSING, RunState.STOPPED,
                RunState.NOT_STARTED, RunState.EXITED)) {
            assertThatThrownBy(() -> control.moveTo(state)).isInstanceOf(RunState.IllegalTransitionException.class)
                    .hasMessageContaining("EXITED").hasMessageContaining(state.name());
        }
        assertThat(control.state()).as("a refused transition changes nothing").isEqualTo(RunState.EXITED);
    }

    @Test
    void pausingIsOnlyForARunningProgram() {
        assertThatThrownBy(() -> at(RunState.STOPPED, RunState.PAUSING))
                .isInstanceOf(RunState.IllegalTransitionException.class);
        assertThatThrownBy(() -> at(RunState.PAUSING)).isInstanceOf(RunState.IllegalTransitionException.class);
        assertThat(at(RunState.RUNNING, RunState.PAUSING).isRunning()).isTrue();
    }

    @Test
    void steppingIsOnlyFromAStop() {
        assertThatThrownBy(() -> at(RunState.RUNNING, RunState.STEPPING))
                .isInstanceOf(RunState.IllegalTransitionException.class);
        assertThatThrownBy(() -> at(RunState.STEPPING)).isInstanceOf(RunState.IllegalTransitionException.class);
    }

    @Test
    void terminatedIsFinal() {
        assertThat(RunState.TERMINATED.next()).isEmpty();
        for (RunState state : RunState.values()) {
            if (state != RunState.TERMINATED) {
                assertThat(state.next()).as(state + " can end").contains(RunState.TERMINATED);
            }
        }
    }

    @Test
    void nothingGoesBackToNotStarted() {
        for (RunState state : RunState.values()) {
            assertThat(state.next()).as(state.name()).doesNotContain(RunState.NOT_STARTED);
        }
    }

    @Test
    void everyStateIsReachableFromNotStarted() {
        Set<RunState> seen = EnumSet.of(RunState.NOT_STARTED);
        ArrayDeque<RunState> todo = new ArrayDeque<>(seen);
        while (!todo.isEmpty()) {
            for (RunState next : todo.pop().next()) {
                if (seen.add(next)) {
                    todo.add(next);
                }
            }
        }
        assertThat(seen).containsExactlyInAnyOrder(RunState.values());
    }

    @ParameterizedTest
    @EnumSource(RunState.class)
    void runningAndOverAreExclusive(RunState state) {
        assertThat(state.isRunning() && state.isOver()).isFalse();
        assertThat(state.isRunning()).isEqualTo(EnumSet.of(RunState.RUNNING, RunState.STEPPING, RunState.PAUSING).contains(state));
    }
}
