package dev.jompd.dap.session;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/** The session's phases move only as DAP orders requests: a compatibility pin, as RunStateTest is for the program. */
class PhaseTest {
    @Test
    void initializeComesFirstThenLaunchOrAttachAndEveryPhaseCanEnd() {
        assertThat(DapSession.Phase.NEW.next()).isEqualTo(EnumSet.of(DapSession.Phase.INITIALIZED, DapSession.Phase.ENDED));
        assertThat(DapSession.Phase.INITIALIZED.next()).isEqualTo(EnumSet.of(DapSession.Phase.STARTED, DapSession.Phase.ENDED));
        assertThat(DapSession.Phase.STARTED.next()).isEqualTo(EnumSet.of(DapSession.Phase.ENDED));
        assertThat(DapSession.Phase.ENDED.next()).isEqualTo(EnumSet.of(DapSession.Phase.ENDED));
    }
}
