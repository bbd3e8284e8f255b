package dev.jompd.dap.gdb;

import java.time.Duration;

/** gdb did not answer a command in time: it hangs, or the command is far slower than it should be. */
public final class GdbTimeoutException extends GdbException {
    private final String command;
    private final Duration timeout;

    public GdbTimeoutException(String command, Duration timeout) {
        super("gdb did not answer " + command + " within " + timeout.toMillis() + " ms");
        this.command = command;
        this.timeout = timeout;
    }

    public String command() {
        return command;
    }

    public Duration timeout() {
        return timeout;
    }
}
