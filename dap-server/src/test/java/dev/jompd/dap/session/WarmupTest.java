package dev.jompd.dap.session;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The warm-up swallows its failures at run time; here they show: a broken rehearsal warms nothing. */
class WarmupTest {
    @Test
    void rehearsedStopsAnswerEveryRequest() throws InterruptedException {
        assertThat(Warmup.warmStops(() -> false)).isEqualTo(10);
    }

    @Test
    void aRealStopEndsTheRehearsal() throws InterruptedException {
        assertThat(Warmup.warmStops(() -> true)).isZero();
    }
}
