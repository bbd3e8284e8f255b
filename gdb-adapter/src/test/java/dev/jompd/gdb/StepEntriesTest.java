package dev.jompd.gdb;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ompd step's question at each stop from a code's entry ({@code code-move}), answered by ompd-core's
 * rule; the walks are clang's parallel.c as gdb reads it (pragma 25, the region's {@code {} 26, the first
 * statement 27). The whole step runs in OmpdStepIT; ompd next's ({@code leave-move}) in OmpdNextIT.
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

    /**
     * ompd next's question ({@code leave-move}) on gcc's nested.c as gdb reads it: from {@code innermost();} (58)
     * in region._omp_fn.0 (entry 53, the pragma) to the outlined function's end on line 53 (next again), into
     * the runtime with region() below (finish) or nothing of the program's (arrived), back in region() in the
     * middle of line 53 (next again) and on its closing brace 60 (arrived). gfortran's outlined function starts
     * at an inner directive's line below its first statement: a step over that reaches it going forward stays.
     */
    @Test
    void theDirectivesLineBehindIsSteppedPastAndTheRuntimeLeft() {
        String start = "[\"nested.c\",58,\"nested.c\",53]";
        assertThat(leave("[" + start + ",[\"nested.c\",53,\"nested.c\",53]]", false, false)).isEqualTo("next");
        assertThat(leave("[" + start + ",[\"\",0,\"\",0]]", true, true)).isEqualTo("finish");
        assertThat(leave("[" + start + ",[\"\",0,\"\",0]]", true, false)).isEqualTo("arrived");
        assertThat(leave("[" + start + ",[\"\",0,\"\",0],[\"nested.c\",53,\"nested.c\",52]]", false, false))
                .isEqualTo("next");
        assertThat(leave("[" + start + ",[\"\",0,\"\",0],[\"nested.c\",60,\"nested.c\",52]]", false, false))
                .isEqualTo("arrived");
        assertThat(leave("[[\"nested_fortran.f90\",74,\"nested_fortran.f90\",75],"
                + "[\"nested_fortran.f90\",75,\"nested_fortran.f90\",75]]", false, false)).isEqualTo("arrived");
    }

    private static String leave(String walk, boolean inRuntime, boolean programCodeBelow) {
        return StepEntries.leaveMove(null, "{\"walk\":" + walk + ",\"inRuntime\":" + inRuntime
                + ",\"programCodeBelow\":" + programCodeBelow + "}", null);
    }

    @Test
    void whatIsNoLeaveQuestionIsRefusedWithWhatWasSent() {
        for (String bad : new String[] {"[]", "{}", "{\"walk\":[],\"inRuntime\":true}", "not json"}) {
            assertThatThrownBy(() -> StepEntries.leaveMove(null, bad, null)).isInstanceOf(BridgeException.class)
                    .hasMessageEndingWith(": " + bad);
        }
    }

    @Test
    void whatIsNoWalkIsRefusedWithWhatWasSent() {
        for (String bad : new String[] {"[[25]]", "{}", "[[\"parallel.c\",\"x\",\"parallel.c\",25]]", "not json"}) {
            assertThatThrownBy(() -> StepEntries.codeMove(null, bad, null)).isInstanceOf(BridgeException.class)
                    .hasMessage("code-move: not a walk of [file, line, entry file, entry line] stops: " + bad);
        }
    }
}
