package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbThread;

import java.util.List;

/** configurationDone: the client has set its breakpoints; the program runs now (or its stop is told). */
final class ConfigurationDoneHandler implements RequestHandler {
    /** The description of a core's one stop (VS Code shows it beside the thread). */
    static final String CORE_STOP = "Core file (post-mortem)";

    @Override
    public List<String> commands() {
        return List.of("configurationDone");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        session.requirePhase("configurationDone", DapSession.Phase.STARTED, DapSession.Phase.INITIALIZED);
        if (session.debuggee() == null) {
            session.configurationDoneEarly(); // the program starts as soon as launch or attach loads it
            return null;
        }
        if (!session.debuggee().configure()) {
            throw new DapException(ErrorId.OUT_OF_ORDER, "configurationDone: already done");
        }
        session.afterResponse(() -> begin(session));
        return null;
    }

    /** Configuration is done: run the program, or report the stop of an attach or a core. */
    static void begin(DapSession session) {
        Debuggee debuggee = session.debuggee();
        switch (debuggee.config().kind()) {
            case LAUNCH -> debuggee.run();
            case ATTACH -> {
                Debuggee.StopReport initial = debuggee.initialStop()
                        .orElseGet(() -> new Debuggee.StopReport("entry", null, 1, List.of()));
                if (debuggee.config().stopOnEntry()) {
                    session.stopped(new Debuggee.StopReport("entry", "Attached", initial.threadId(), List.of()));
                } else {
                    debuggee.resuming(RunState.RUNNING);
                    debuggee.debugger().continueAll();
                }
            }
            case CORE -> {
                List<GdbThread> threads = debuggee.threads();
                int thread = threads.isEmpty() ? 1 : threads.getFirst().id();
                // "entry", not "exception": a client shows an exception widget for the latter, and a core is
                // where the session begins, whatever ended the program
                session.stopped(new Debuggee.StopReport("entry", CORE_STOP, thread, List.of()));
            }
        }
    }
}
