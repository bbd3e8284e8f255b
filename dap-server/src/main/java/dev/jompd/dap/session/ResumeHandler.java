package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbCommandException;
import org.eclipse.lsp4j.debug.ContinueResponse;

import java.util.List;

/** continue, next, stepIn, stepOut: the program runs (RUNNING) or steps (STEPPING) until its next stop. */
final class ResumeHandler implements RequestHandler {
    record ResumeArguments(int threadId, boolean instruction) {
        static ResumeArguments from(String command, JsonObject args) {
            // continue resumes every thread: its threadId is optional
            int thread = command.equals("continue") ? Arguments.optionalInteger(args, "threadId").orElse(0)
                    : Arguments.integer(args, "threadId");
            return new ResumeArguments(thread,
                    Arguments.optionalString(args, "granularity").map("instruction"::equals).orElse(false));
        }
    }

    @Override
    public List<String> commands() {
        return List.of("continue", "next", "stepIn", "stepOut");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        Debuggee debuggee = session.startedDebuggee(command);
        debuggee.requireRunControl(command);
        debuggee.requireStopped(command);
        ResumeArguments args = ResumeArguments.from(command, arguments);
        boolean step = !command.equals("continue");
        if (step && debuggee.threads().stream().noneMatch(t -> t.id() == args.threadId())) {
            throw new DapException(ErrorId.STALE_HANDLE, command + ": no thread " + args.threadId());
        }
        debuggee.resuming(step ? RunState.STEPPING : RunState.RUNNING);
        try {
            switch (command) {
                case "continue" -> debuggee.debugger().continueAll();
                case "next" -> {
                    if (args.instruction()) {
                        debuggee.debugger().next(args.threadId(), true);
                    } else {
                        debuggee.stepOver(args.threadId());
                    }
                }
                case "stepIn" -> {
                    if (args.instruction()) {
                        debuggee.debugger().step(args.threadId(), true);
                    } else {
                        debuggee.stepIn(args.threadId());
                    }
                }
                default -> debuggee.debugger().finish(args.threadId());
            }
        } catch (GdbCommandException e) {
            debuggee.resumeFailed(); // it did not resume after all
            throw e;
        }
        if (!step) {
            ContinueResponse response = new ContinueResponse();
            response.setAllThreadsContinued(true);
            return DapSession.GSON.toJsonTree(response);
        }
        return null;
    }
}
