package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbCommandException;
import dev.jompd.dap.gdb.GdbException;
import dev.jompd.dap.gdb.GdbExitedException;
import dev.jompd.dap.gdb.GdbStartException;
import dev.jompd.dap.gdb.GdbTimeoutException;

import java.util.List;

/**
 * launch and attach (a core file is an attach with {@code coreFile}): starts gdb and loads the program; it
 * runs at configurationDone. Failures here are the user's to fix (configuration, gdb, the program), so they
 * carry ids that VS Code shows.
 */
final class LaunchHandler implements RequestHandler {
    @Override
    public List<String> commands() {
        return List.of("launch", "attach");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        session.requirePhase("launch/attach", DapSession.Phase.INITIALIZED);
        String gdbPath = session.options().gdbPath();
        LaunchConfig config = command.equals("launch") ? LaunchConfig.launch(arguments, gdbPath)
                : LaunchConfig.attach(arguments, gdbPath);
        Debuggee debuggee = new Debuggee(session, config);
        try {
            debuggee.start();
        } catch (RuntimeException e) {
            debuggee.close();
            throw startFailure(e);
        }
        session.started(debuggee);
        session.breakpoints.plantPending(debuggee.debugger());
        if (config.kind() == LaunchConfig.Kind.ATTACH || config.kind() == LaunchConfig.Kind.CORE) {
            session.output("console", "jompd-dap: " + (config.kind() == LaunchConfig.Kind.CORE
                    ? "core file " + config.core().orElseThrow() + " (post-mortem: no run control)"
                    : "attached to process " + config.processId().getAsLong()) + "\n");
        }
        if (session.configurationWasDoneEarly()) {
            debuggee.configure();
            session.afterResponse(() -> ConfigurationDoneHandler.begin(session));
        }
        return null;
    }

    /** The start's failure with the id that says what the user must fix; the message stays gdb's. */
    private static RuntimeException startFailure(RuntimeException e) {
        return switch (e) {
            case DapException dap -> dap;
            // gdb answered, and refused the program, the process or the core
            case GdbCommandException refused -> new DapException(ErrorId.PROGRAM_CANNOT_START, "gdb: " + refused.gdbMessage(), e);
            case GdbTimeoutException hangs -> hangs; // the session reports it and kills gdb
            case GdbExitedException died -> new DapException(ErrorId.LAUNCH_FAILED, died.getMessage(), e);
            // gdb could not be started at all
            case GdbStartException missing -> new DapException(ErrorId.GDB_MISSING, missing.getMessage(), e);
            case GdbException other -> new DapException(ErrorId.LAUNCH_FAILED, "gdb: " + other.getMessage(), e);
            default -> e;
        };
    }
}
