package dev.jompd.dap.session;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.openmp.OpenMpView;
import org.eclipse.lsp4j.debug.Thread;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** threads: gdb's threads, named by their OpenMP role when the program is stopped. */
final class ThreadsHandler implements RequestHandler {
    @Override
    public List<String> commands() {
        return List.of("threads");
    }

    @Override
    public JsonElement handle(String command, JsonObject arguments, DapSession session) {
        Debuggee debuggee = session.startedDebuggee("threads");
        if (debuggee.hasEnded()) {
            JsonObject body = new JsonObject();
            body.add("threads", new JsonArray());
            return body;
        }
        List<GdbThread> threads = debuggee.threads();
        Optional<OpenMpView> view = debuggee.isRunning() ? Optional.empty() : debuggee.openMp();
        long start = System.nanoTime();
        List<Thread> result = new ArrayList<>();
        for (GdbThread thread : threads) {
            Thread dap = new Thread();
            dap.setId(thread.id());
            dap.setName(threadName(thread, view));
            result.add(dap);
        }
        JsonObject body = new JsonObject();
        body.add("threads", DapSession.GSON.toJsonTree(result));
        if (Boolean.getBoolean("jompd.dap.timing")) {
            session.log("thread names: " + (System.nanoTime() - start) / 1_000_000 + " ms");
        }
        return body;
    }

    static String threadName(GdbThread thread, Optional<OpenMpView> view) {
        String lwp = thread.lwp().isPresent() ? "LWP " + thread.lwp().getAsLong() : thread.targetId();
        if (thread.lwp().isPresent() && view.isPresent()) {
            Optional<String> openMp = thread.pthread().isPresent()
                    ? view.get().threadNameByPthread(thread.pthread().getAsLong())
                    : view.get().threadName(thread.lwp().getAsLong());
            if (openMp.isPresent()) {
                return openMp.get() + " (" + lwp + ")";
            }
        }
        return thread.name().map(name -> lwp + " " + name).orElse(lwp);
    }
}
