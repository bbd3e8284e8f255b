package dev.jompd.gdb;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ompd step's question at each stop from a code's entry ({@code code-move}), answered by ompd-core's
 * rule; the walks are clang's parallel.c as gdb reads it (pragma 25, the region's {@code {} 26, the first
 * statement 27). The whole step runs in OmpdStepIT.
 */
class StepEntriesTest {
    private static final String TO_THE_BRACE = "[\"parallel.c\",25,\"parallel.c\",25],[\"parallel.c\",26,\"parallel.c\",26]";

    @Test
    void theBraceIsStepPastAndTheNextNewLineIsArrivedAt() {
        assertThat(StepEntries.codeMove(null, "[" + TO_THE_BRACE + "]", null)).isEqualTo("step");
        assertThat(StepEntries.codeMove(null, "[" + TO_THE_BRACE + ",[\"parallel.c\",25,\"parallel.c\",26]]", null))
                .isEqualTo("step");
        assertThat(StepEntries.codeMove(null, "[" + TO_THE_BRACE + ",[\"parallel.c\",27,\"parallel.c\",26]]", null))
                .isEqualTo("arrived");
        assertThat(StepEntries.codeMove(null, "[" + TO_THE_BRACE + ",[\"vector.h\",597,\"vector.h\",596]]", null))
                .isEqualTo("finish");
    }

    @Test
    void whatIsNoWalkIsRefusedWithWhatWasSent() {
        for (String bad : new String[] {"[[25]]", "{}", "[[\"parallel.c\",\"x\",\"parallel.c\",25]]", "not json"}) {
            assertThatThrownBy(() -> StepEntries.codeMove(null, bad, null)).isInstanceOf(BridgeException.class)
                    .hasMessage("code-move: not a walk of [file, line, entry file, entry line] stops: " + bad);
        }
    }
}
