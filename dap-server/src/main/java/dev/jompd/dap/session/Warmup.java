package dev.jompd.dap.session;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.gdb.GdbResult;
import dev.jompd.dap.gdb.GdbThread;
import dev.jompd.dap.mi.MiParser;
import dev.jompd.dap.mi.MiRecord;
import dev.jompd.dap.transport.DapPeer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Runs the code of a stop on made-up data in the background when the server starts (jompd's live reading
 * on a helper process, MI parsing of a big thread list, stops rehearsed through the whole request path),
 * so that the first real stop does not pay for class loading and the interpreter: a user's first stop is
 * the one that is noticed.
 */
public final class Warmup {
    private Warmup() {}

    public static void startInBackground() {
        java.lang.Thread.ofPlatform().daemon().name("jompd-dap-warmup").priority(java.lang.Thread.MIN_PRIORITY).start(Warmup::run);
    }

    /** A stop's thread count, and stops rehearsed: 10 x 256 top frames gets their path compiled. */
    private static final int THREADS = 256;
    private static final int ROUNDS = 10;
    /** Set when a real stop begins: the warm-up then ends at once and leaves the processors to it. */
    private static volatile boolean realStopBegun;

    /** A program stopped: whatever the warm-up has not done yet no longer helps, and it would compete. */
    static void realStopBegins() {
        realStopBegun = true;
    }

    static void run() {
        long start = System.nanoTime();
        try {
            warmLiveReading(); // the biggest first-stop cost first
            warmStops(() -> realStopBegun);
        } catch (RuntimeException | LinkageError | InterruptedException e) {
            // a warm-up is an optimisation: whatever fails here will be reported where it matters
            if (Boolean.getBoolean("jompd.dap.timing")) {
                System.err.println("jompd-dap: warm-up failed: " + e);
            }
        }
        if (Boolean.getBoolean("jompd.dap.timing")) {
            System.err.printf("jompd-dap: warm-up took %d ms%n", (System.nanoTime() - start) / 1_000_000);
        }
    }

    /**
     * jompd's read-only live backend on a stopped helper process ({@code sleep}): the first real stop
     * otherwise pays about half a second for loading and compiling the ELF, /proc and native-access code.
     * bash with job control stops it and waits for the stop (waitpid with WUNTRACED) before it prints its
     * pid: once the line is read, the process is stopped, no polling of its state.
     */
    private static void warmLiveReading() {
        Process shell = null;
        long pid = 0;
        try {
            shell = new ProcessBuilder("bash", "-c", "set -m; sleep 60 & stopped=$!; kill -STOP $stopped; "
                    + "wait $stopped; echo $stopped; read _").redirectError(ProcessBuilder.Redirect.DISCARD).start();
            var lines = new java.io.BufferedReader(new java.io.InputStreamReader(shell.getInputStream(),
                    java.nio.charset.StandardCharsets.US_ASCII));
            String line = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return lines.readLine();
                } catch (java.io.IOException e) {
                    return null;
                }
            }).get(5, TimeUnit.SECONDS);
            if (line == null || !line.strip().matches("\\d+")) {
                return; // no bash or no job control here: no warm-up
            }
            pid = Long.parseLong(line.strip());
            for (int opened = 0; opened < 12 && !realStopBegun; opened++) { // a dozen: enough for the JIT
                try (var space = dev.jompd.core.target.live.LiveProcessAddressSpace.readOnly(pid)) {
                    space.threads();
                    var symbols = new dev.jompd.core.target.Symbolizer(space);
                    space.lookupSymbol("main");
                    space.modules().forEach(module -> symbols.locate(module.loadBias() + 0x1000));
                    try {
                        dev.jompd.core.ompd.Ompd.processInitialize(space);
                    } catch (dev.jompd.core.ompd.OmpdException noRuntime) {
                        // sleep has no OpenMP runtime: the lookups were the point
                    }
                }
            }
        } catch (java.io.IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                 | dev.jompd.core.target.TargetException e) {
            // no helper, or it cannot be read: no warm-up
        } catch (InterruptedException e) {
            java.lang.Thread.currentThread().interrupt();
        } finally {
            if (pid > 0) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            if (shell != null) {
                shell.destroyForcibly();
            }
        }
    }

    /** Threads like gdb's {@code -thread-info} answer at a stop of a 256-thread OpenMP program. */
    private static List<GdbThread> madeUpThreads() {
        StringBuilder line = new StringBuilder("^done,threads=[");
        for (int i = 1; i <= THREADS; i++) {
            line.append(i > 1 ? "," : "").append("{id=\"").append(i).append("\",target-id=\"Thread 0x7ffff7a3e").append(i)
                    .append(" (LWP ").append(1000 + i).append(")\",name=\"warmup\",frame={level=\"0\",addr=\"0x00007ffff7e2a1ce\",")
                    .append("func=\"__futex_abstimed_wait_common64\",args=[{name=\"a\"}],file=\"x.c\",")
                    .append("fullname=\"/nonexistent/x.c\",line=\"12\",arch=\"i386:x86-64\"},state=\"stopped\",core=\"1\"}");
        }
        line.append("],current-thread-id=\"1\"");
        List<GdbThread> threads = List.of();
        for (int round = 0; round < 6; round++) {
            MiRecord.ResultRecord record = (MiRecord.ResultRecord) MiParser.parse(line.toString());
            threads = GdbDebugger.threads(new GdbResult("done", record.results(), ""));
        }
        return threads;
    }

    /**
     * Stops of a made-up program, without gdb, through the whole request path (JSON in, dispatch, DAP
     * types, JSON out): what VS Code asks at a stop, a thread list and every thread's top frame, then the
     * stopped frame's scopes. Enough rounds for the JIT to compile that path before the first real stop,
     * unless {@code enough} says to end early. Returns the stops rehearsed.
     */
    static int warmStops(BooleanSupplier enough) throws InterruptedException {
        BlockingQueue<String> sent = new LinkedBlockingQueue<>();
        DapPeer client = new DapPeer() {
            @Override
            public void send(String json) {
                sent.add(json);
            }

            @Override
            public void close() {}

            @Override
            public String describe() {
                return "warm-up";
            }
        };
        DapSession session = new DapSession(client, new ServerOptions("gdb",
                new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), false));
        List<GdbThread> threads = madeUpThreads();
        int seq = 1;
        session.receive(request(seq, "initialize", "{\"adapterID\":\"warm-up\"}"));
        await(sent, seq++);
        session.post(() -> {
            session.started(Debuggee.rehearsal(session, threads));
        });
        int round = 0;
        for (; round < ROUNDS && !enough.getAsBoolean(); round++) {
            session.post(() -> {
                session.debuggee().rehearseStop(threads);
                session.stopped(new Debuggee.StopReport("breakpoint", null, 1, List.of(1)));
            });
            session.receive(request(seq, "threads", null));
            await(sent, seq++);
            int first = seq;
            for (GdbThread thread : threads) {
                session.receive(request(seq++, "stackTrace", "{\"threadId\":" + thread.id() + ",\"startFrame\":0,\"levels\":1}"));
            }
            JsonObject top = await(sent, first);
            for (int answered = first + 1; answered < seq; answered++) {
                await(sent, answered);
            }
            int frame = top.getAsJsonObject("body").getAsJsonArray("stackFrames").get(0).getAsJsonObject().get("id").getAsInt();
            session.receive(request(seq, "scopes", "{\"frameId\":" + frame + "}"));
            await(sent, seq++);
        }
        session.closed("warm-up done");
        session.awaitEnd(Duration.ofSeconds(10));
        return round;
    }

    private static String request(int seq, String command, String arguments) {
        return "{\"seq\":" + seq + ",\"type\":\"request\",\"command\":\"" + command + "\""
                + (arguments == null ? "" : ",\"arguments\":" + arguments) + "}";
    }

    /** The response to request {@code seq} (events on the way are passed over). */
    private static JsonObject await(BlockingQueue<String> sent, int seq) throws InterruptedException {
        while (true) {
            String json = sent.poll(10, TimeUnit.SECONDS);
            if (json == null) {
                throw new IllegalStateException("the warm-up session did not answer request " + seq);
            }
            JsonObject message = JsonParser.parseString(json).getAsJsonObject();
            if (message.get("type").getAsString().equals("response") && message.get("request_seq").getAsInt() == seq) {
                if (!message.get("success").getAsBoolean()) {
                    throw new IllegalStateException("the warm-up request " + seq + " failed: " + message.get("message"));
                }
                return message;
            }
        }
    }
}
