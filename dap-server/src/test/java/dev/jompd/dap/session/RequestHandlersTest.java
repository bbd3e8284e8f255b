package dev.jompd.dap.session;

import com.google.gson.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The handler table: every request the README lists has exactly one handler; others are UNKNOWN_COMMAND. */
class RequestHandlersTest {
    @Test
    void everyDocumentedRequestHasAHandler() {
        assertThat(new RequestHandlers().commands()).containsExactlyInAnyOrder("initialize", "launch", "attach",
                "configurationDone", "setBreakpoints", "setFunctionBreakpoints", "setExceptionBreakpoints", "threads",
                "stackTrace", "scopes", "variables", "evaluate", "continue", "next", "stepIn", "stepOut", "pause",
                "readMemory", "source", "disconnect", "terminate", "jompd/openmpTree", "jompd/parallelStacks",
                "jompd/focusThread");
    }

    @Test
    void anUnknownCommandIsItsOwnError() {
        DapSession session = new DapSession(new RecordingPeer(),
                new ServerOptions("gdb", new PrintStream(new ByteArrayOutputStream()), false));
        assertThatThrownBy(() -> new RequestHandlers().handle("restartFrame", new JsonObject(), session))
                .isInstanceOfSatisfying(DapException.class, e -> {
                    assertThat(e.errorId()).isEqualTo(ErrorId.UNKNOWN_COMMAND);
                    assertThat(e.getMessage()).contains("restartFrame");
                });
    }
}
