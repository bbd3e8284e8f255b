package dev.jompd.dap.session;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbCommandException;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.openmp.OmpScope;
import dev.jompd.dap.openmp.OpenMpView;
import org.eclipse.lsp4j.debug.Scope;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** scopes: a frame's locals (gdb) and, in an OpenMP program, the frame's OpenMP scopes (jompd). */
final class ScopesHandler implements RequestHandler {
    record ScopesArguments(int frameId) {
        static ScopesArguments from(JsonObject args) {
            return new ScopesArguments(Arguments.integer(args, "frameId"));
        }
    }

    @Override
    public List<String> commands() {
        return List.of("scopes");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        Debuggee debuggee = session.stoppedDebuggee("scopes");
        StopState.FrameRef frame = session.frame(debuggee, ScopesArguments.from(arguments).frameId(), "scopes");
        StopState stop = debuggee.stop();
        List<Scope> scopes = new ArrayList<>();
        Scope locals = new Scope();
        locals.setName("Locals");
        locals.setPresentationHint("locals");
        int localsRef = session.newHandle();
        stop.variables.put(localsRef, new StopState.Locals(frame.thread(), frame.level()));
        locals.setVariablesReference(localsRef);
        locals.setExpensive(false);
        scopes.add(locals);
        Optional<OpenMpView> view = debuggee.openMp();
        if (view.isPresent()) {
            OptionalLong lwp = debuggee.threads().stream().filter(t -> t.id() == frame.thread()).findFirst()
                    .map(GdbThread::lwp).orElse(OptionalLong.empty());
            if (lwp.isPresent()) {
                OptionalLong sp = OptionalLong.empty();
                if (frame.level() > 0) {
                    try {
                        sp = debuggee.debugger().frameAddress(frame.thread(), frame.level())
                                .map(OptionalLong::of).orElse(OptionalLong.empty());
                    } catch (GdbCommandException e) {
                        // no address for this frame: the thread's current task stands for it
                    }
                }
                for (OmpScope scope : view.get().scopes(lwp.getAsLong(), sp)) {
                    Scope dap = new Scope();
                    dap.setName(scope.name());
                    int ref = session.newHandle();
                    stop.variables.put(ref, new StopState.OpenMpRows(scope.variables()));
                    dap.setVariablesReference(ref);
                    dap.setNamedVariables(scope.variables().size());
                    dap.setExpensive(false);
                    scopes.add(dap);
                }
            }
        }
        JsonObject body = new JsonObject();
        body.add("scopes", DapSession.GSON.toJsonTree(scopes));
        return body;
    }
}
