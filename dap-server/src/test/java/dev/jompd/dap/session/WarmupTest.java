package dev.jompd.dap.session;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;

/** The warm-up swallows its failures at run time; here they show: a broken rehearsal warms nothing. */
class WarmupTest {
    @Test
    void rehearsedStopsAnswerEveryRequest() {
        assertThatCode(Warmup::warmStops).doesNotThrowAnyException();
    }
}
