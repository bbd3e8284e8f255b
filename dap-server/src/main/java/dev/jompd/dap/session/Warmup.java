package dev.jompd.dap.session;

import com.google.gson.JsonParser;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.gdb.GdbResult;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.mi.MiParser;
import dev.jompd.dap.mi.MiRecord;
import org.eclipse.lsp4j.debug.Scope;
import org.eclipse.lsp4j.debug.Source;
import org.eclipse.lsp4j.debug.StackFrame;
import org.eclipse.lsp4j.debug.Thread;
import org.eclipse.lsp4j.debug.Variable;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs the code of a stop (MI parsing of a big thread list, DAP serialization) on made-up data in the
 * background when the server starts, so that the first real stop does not pay for class loading and
 * the interpreter: a user's first stop is the one that is noticed.
 */
public final class Warmup {
    private Warmup() {}

    public static void startInBackground() {
        java.lang.Thread.ofPlatform().daemon().name("jompd-dap-warmup").priority(java.lang.Thread.MIN_PRIORITY).start(Warmup::run);
    }

    static void run() {
        try {
            warmLiveReading(); // the biggest first-stop cost first
            warmMi();
            warmProtocol();
        } catch (RuntimeException | LinkageError e) {
            // a warm-up is an optimisation: whatever fails here will be reported where it matters
        }
    }

    /** A whole session without gdb: request parsing, dispatch, errors, events. */
    private static void warmProtocol() {
        dev.jompd.dap.transport.DapPeer sink = new dev.jompd.dap.transport.DapPeer() {
            @Override
            public void send(String json) {}

            @Override
            public void close() {}

            @Override
            public String describe() {
                return "warm-up";
            }
        };
        DapSession session = new DapSession(sink, new ServerOptions("gdb",
                new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), false));
        session.receive("{\"seq\":1,\"type\":\"request\",\"command\":\"initialize\",\"arguments\":{\"adapterID\":\"w\"}}");
        session.receive("{\"seq\":2,\"type\":\"request\",\"command\":\"setBreakpoints\",\"arguments\":"
                + "{\"source\":{\"path\":\"/w.c\"},\"breakpoints\":[{\"line\":1}]}}");
        for (int i = 3; i < 200; i++) {
            session.receive("{\"seq\":" + i + ",\"type\":\"request\",\"command\":\"stackTrace\",\"arguments\":{\"threadId\":1,\"levels\":1}}");
        }
        session.closed("warm-up done");
        session.awaitEnd(java.time.Duration.ofSeconds(10));
    }

    /**
     * jompd's read-only live backend on a stopped helper process ({@code sleep}): the first real stop
     * otherwise pays about half a second for loading and compiling the ELF, /proc and native-access code.
     */
    private static void warmLiveReading() {
        Process helper = null;
        try {
            helper = new ProcessBuilder("sleep", "60").redirectErrorStream(true).start();
            long pid = helper.pid();
            Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start();
            if (!stop.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) || stop.exitValue() != 0) {
                return;
            }
            for (int i = 0, opened = 0; i < 40 && opened < 12; i++) { // a dozen opens: enough for the JIT
                try (var space = dev.jompd.core.target.live.LiveProcessAddressSpace.readOnly(pid)) {
                    opened++;
                    space.threads();
                    var symbols = new dev.jompd.core.target.Symbolizer(space);
                    space.lookupSymbol("main");
                    space.modules().forEach(module -> symbols.locate(module.loadBias() + 0x1000));
                    try {
                        dev.jompd.core.ompd.Ompd.processInitialize(space);
                    } catch (dev.jompd.core.ompd.OmpdException noRuntime) {
                        // sleep has no OpenMP runtime: the lookups were the point
                    }
                } catch (dev.jompd.core.target.TargetException notStoppedYet) {
                    java.lang.Thread.sleep(20);
                }
            }
        } catch (java.io.IOException | InterruptedException e) {
            // no helper: no warm-up
        } finally {
            if (helper != null) {
                helper.destroyForcibly();
            }
        }
    }

    private static void warmMi() {
        StringBuilder line = new StringBuilder("^done,threads=[");
        for (int i = 1; i <= 256; i++) {
            line.append(i > 1 ? "," : "").append("{id=\"").append(i).append("\",target-id=\"Thread 0x7ffff7a3e").append(i)
                    .append(" (LWP ").append(1000 + i).append(")\",name=\"warmup\",frame={level=\"0\",addr=\"0x00007ffff7e2a1ce\",")
                    .append("func=\"__futex_abstimed_wait_common64\",args=[{name=\"a\",value=\"1\"}],file=\"x.c\",")
                    .append("fullname=\"/nonexistent/x.c\",line=\"12\",arch=\"i386:x86-64\"},state=\"stopped\",core=\"1\"}");
        }
        line.append("],current-thread-id=\"1\"");
        for (int round = 0; round < 6; round++) {
            MiRecord.ResultRecord record = (MiRecord.ResultRecord) MiParser.parse(line.toString());
            List<GdbThread> threads = GdbDebugger.threads(new GdbResult("done", record.results(), ""));
            List<Object> dap = new ArrayList<>();
            for (GdbThread thread : threads) {
                Thread t = new Thread();
                t.setId(thread.id());
                t.setName(Requests.threadName(thread, java.util.Optional.empty()));
                dap.add(t);
                StackFrame frame = new StackFrame();
                frame.setId(thread.id());
                frame.setName(thread.frame().orElseThrow().displayName());
                Source source = new Source();
                source.setPath("/nonexistent/x.c");
                frame.setSource(source);
                dap.add(frame);
                Scope scope = new Scope();
                scope.setName("OpenMP task");
                dap.add(scope);
                Variable variable = new Variable();
                variable.setName("nthreads-var");
                variable.setValue("4,4");
                dap.add(variable);
            }
            JsonParser.parseString(DapSession.GSON.toJson(dap));
        }
    }
}
