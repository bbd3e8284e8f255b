package dev.jompd.dap.gdb;

/** gdb answered a command with {@code ^error}: the command and gdb's message. */
public final class GdbCommandException extends GdbException {
    private final String command;
    private final String gdbMessage;

    public GdbCommandException(String command, String gdbMessage) {
        super(gdbMessage);
        this.command = command;
        this.gdbMessage = gdbMessage;
    }

    public String command() {
        return command;
    }

    public String gdbMessage() {
        return gdbMessage;
    }
}
