package dev.jompd.core.recorder;

/**
 * An omp_control_tool command the recorder received and what it answered.
 *
 * @param result {@code omp_control_tool_result_t} (0 success, 1 ignored) or a tool value above 64
 */
public record ControlCommand(long sequence, long timeNanos, long threadSerial, long command, long modifier,
                             long result) {
    public String commandName() {
        return OmptCallback.CONTROL_TOOL.kindName(command);
    }
}
