package dev.jompd.dap.bench;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.jompd.dap.DapTestClient;
import dev.jompd.dap.gdb.Gdb;
import dev.jompd.dap.gdb.GdbDebugger;
import dev.jompd.dap.mi.MiRecord;
import dev.jompd.dap.session.DapSession;
import dev.jompd.dap.session.ServerOptions;
import dev.jompd.dap.transport.DapFrameDecoder;
import dev.jompd.dap.transport.DapTcpServer;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureBuilder;

import java.io.PrintStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What a user waits for at a stop of the 256-thread fixture ({@code nested 16 16}): from the stopped
 * event to the thread list (with OpenMP names), the top frame of every thread, the scopes of the stopped
 * frame and the variables of its four OpenMP scopes, as a DAP client asks for them over TCP. Compared with
 * what plain gdb/MI costs for the same stop: {@code -thread-info} (threads and top frames) and the locals of
 * the stopped frame, and a naive adapter's one {@code -stack-list-frames} per thread. Each stop is a real
 * one: the marker thread steps ({@code next}) and the whole process stops again.
 *
 * <p>usage: {@code scripts/bench-dap.sh [--stops N] [S1 S2]} (default 8 stops on nested 16 16)
 */
public final class DapStopBenchmark {
    private static final Duration STOP = Duration.ofMinutes(3);

    public static void main(String[] args) throws Exception {
        int stops = 8;
        List<String> shape = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--stops")) {
                stops = Integer.parseInt(args[++i]);
            } else {
                shape.add(args[i]);
            }
        }
        if (shape.isEmpty()) {
            shape = List.of("16", "16");
        }
        Path program = FixtureBuilder.executable(Fixture.NESTED);
        String launcher = System.getProperty("jompd.dap.server", "");
        List<Double> dap;
        List<Double> untrained = null;
        if (launcher.isEmpty()) {
            System.out.printf("fixture nested %s, %d stops; server in this JVM (no jompd.dap.server given): client "
                    + "and server both cold at the first stop%n", String.join(" ", shape), stops);
            dev.jompd.dap.session.Warmup.startInBackground(); // as jompd-dap does at start-up
            ServerOptions options = new ServerOptions("gdb", Boolean.getBoolean("jompd.dap.timing") ? System.out
                    : new PrintStream(OutputStream.nullOutputStream()), false);
            try (DapTcpServer server = DapTcpServer.start(InetAddress.getLoopbackAddress(), 0,
                    DapFrameDecoder.DEFAULT_MAX_CONTENT_LENGTH, peer -> new DapSession(peer, options))) {
                dap = dapStops(server.port(), program, shape, stops, true);
            }
        } else {
            // As VS Code runs it: a fresh jompd-dap process per debug session, and a client that is warm
            // (VS Code has been running): one unmeasured session first warms this JVM's client code. Then the
            // first session with a fresh installation (it records the ahead-of-time cache) and a later one.
            Path cache = java.nio.file.Files.createTempDirectory("jompd-dap-bench-cache");
            System.out.printf("fixture nested %s, %d stops; a fresh %s per session, as VS Code starts it; the client "
                    + "warmed by one unmeasured session%n", String.join(" ", shape), stops, launcher);
            try (ServerProcess warmUp = ServerProcess.start(launcher, cache, false)) {
                dapStops(warmUp.port, program, shape, 3, false);
            }
            System.out.println("first session of a new installation (no ahead-of-time cache yet: this one records it)");
            try (ServerProcess server = ServerProcess.start(launcher, cache, true)) {
                untrained = dapStops(server.port, program, shape, stops, true);
            }
            System.out.println("every later session (with the ahead-of-time cache)");
            try (ServerProcess server = ServerProcess.start(launcher, cache, true)) {
                dap = dapStops(server.port, program, shape, stops, true);
            }
        }
        Map<String, List<Double>> mi = miStops(program, shape, stops);
        System.out.println();
        System.out.printf("%-62s %9s %9s %9s%n", "per stop (ms)", "first", "median", "max");
        if (untrained != null) {
            report("DAP, first session of an installation (records the cache)", untrained);
            report("DAP, later sessions (ahead-of-time cache)", dap);
        } else {
            report("DAP: threads + top frame of every thread + OpenMP scopes", dap);
        }
        mi.forEach(DapStopBenchmark::report);
        double target = 300;
        List<Double> warm = dap.subList(1, dap.size());
        System.out.printf("%ntarget < %.0f ms after the stopped event: later stops %s (median %.1f ms, max %.1f ms); "
                        + "first stop of a session %.1f ms: %s%n", target,
                median(warm) < target ? "met" : "NOT met", median(warm), Collections.max(warm), dap.getFirst(),
                dap.getFirst() < target ? "met" : "NOT met");
        if (untrained != null) {
            System.out.printf("(the first session of a new installation, which records the cache: first stop %.1f ms, %s)%n",
                    untrained.getFirst(), untrained.getFirst() < target ? "met" : "NOT met");
        }
    }

    private static void report(String what, List<Double> samples) {
        List<Double> warm = samples.size() > 1 ? samples.subList(1, samples.size()) : samples;
        System.out.printf("%-62s %9.1f %9.1f %9.1f%n", what, samples.getFirst(), median(warm), Collections.max(warm));
    }

    private static double median(List<Double> samples) {
        List<Double> sorted = new ArrayList<>(samples);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static JsonObject args(Object... keyValues) {
        JsonObject json = new JsonObject();
        for (int i = 0; i < keyValues.length; i += 2) {
            Object value = keyValues[i + 1];
            switch (value) {
                case JsonElement element -> json.add((String) keyValues[i], element);
                case Number number -> json.addProperty((String) keyValues[i], number);
                default -> json.addProperty((String) keyValues[i], value.toString());
            }
        }
        return json;
    }

    /** A jompd-dap server process from the distribution, listening on a free loopback port. */
    private static final class ServerProcess implements AutoCloseable {
        final Process process;
        final int port;

        private ServerProcess(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        /** {@code aot}: with the launcher's ahead-of-time cache (kept in {@code cache}), else without. */
        static ServerProcess start(String launcher, Path cache, boolean aot) throws java.io.IOException {
            ProcessBuilder builder = new ProcessBuilder(launcher, "--port", "0").redirectError(ProcessBuilder.Redirect.INHERIT);
            builder.environment().put("XDG_CACHE_HOME", cache.toString());
            builder.environment().put("JOMPD_DAP_AOT", aot ? "on" : "off");
            Process process = builder.start();
            var reader = new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(),
                    java.nio.charset.StandardCharsets.UTF_8));
            String line = reader.readLine(); // "jompd-dap listening on 127.0.0.1:PORT", maybe after JVM messages
            while (line != null && !line.contains("listening on")) {
                line = reader.readLine();
            }
            if (line == null) {
                process.destroyForcibly();
                throw new IllegalStateException(launcher + " did not start: " + line);
            }
            return new ServerProcess(process, Integer.parseInt(line.substring(line.lastIndexOf(':') + 1).strip()));
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(2, TimeUnit.MINUTES)) { // a session that records the cache writes it now
                process.destroyForcibly();
            }
        }
    }

    /** The DAP side: a TCP client making the requests VS Code makes at a stop (all threads expanded). */
    private static List<Double> dapStops(int port, Path program, List<String> shape, int stops, boolean print)
            throws Exception {
        List<Double> samples = new ArrayList<>();
        try (DapTestClient client = new DapTestClient(port)) {
            client.body("initialize", args("adapterID", "jompd"));
            JsonArray argv = new JsonArray();
            shape.forEach(argv::add);
            client.body("launch", args("program", program.toString(), "args", argv));
            JsonArray breakpoints = new JsonArray();
            breakpoints.add(args("name", "jompd_marker"));
            client.body("setFunctionBreakpoints", args("breakpoints", breakpoints));
            client.body("configurationDone", null);
            for (int stop = 0; stop < stops; stop++) {
                JsonObject stopped = client.event("stopped", STOP);
                long start = System.nanoTime();
                int threadId = stopped.getAsJsonObject("body").get("threadId").getAsInt();
                JsonArray threads = client.body("threads", null).getAsJsonArray("threads");
                long afterThreads = System.nanoTime();
                int topFrameOfStopped = -1;
                // like VS Code, ask for every thread's top frame at once, then read the answers
                Map<Integer, Integer> requestOfThread = new java.util.LinkedHashMap<>();
                for (JsonElement thread : threads) {
                    int id = thread.getAsJsonObject().get("id").getAsInt();
                    requestOfThread.put(id, client.send("stackTrace", args("threadId", id, "startFrame", 0, "levels", 1)));
                }
                for (var entry : requestOfThread.entrySet()) {
                    int seq = entry.getValue();
                    JsonObject response = client.await(m -> m.get("type").getAsString().equals("response")
                            && m.get("request_seq").getAsInt() == seq, STOP, "stackTrace");
                    int frame = response.getAsJsonObject("body").getAsJsonArray("stackFrames").get(0).getAsJsonObject()
                            .get("id").getAsInt();
                    if (entry.getKey() == threadId) {
                        topFrameOfStopped = frame;
                    }
                }
                long afterFrames = System.nanoTime();
                JsonArray scopes = client.body("scopes", args("frameId", topFrameOfStopped)).getAsJsonArray("scopes");
                int openMpScopes = 0;
                for (JsonElement scope : scopes) {
                    if (scope.getAsJsonObject().get("name").getAsString().startsWith("OpenMP")) {
                        client.body("variables", args("variablesReference",
                                scope.getAsJsonObject().get("variablesReference").getAsInt()));
                        openMpScopes++;
                    }
                }
                double ms = (System.nanoTime() - start) / 1e6;
                samples.add(ms);
                if (print) {
                    System.out.printf("  DAP stop %d: %d threads, %d OpenMP scopes, %.1f ms (threads %.1f, top frames "
                            + "%.1f, scopes and variables %.1f)%n", stop + 1, threads.size(), openMpScopes, ms,
                            (afterThreads - start) / 1e6, (afterFrames - afterThreads) / 1e6,
                            (System.nanoTime() - afterFrames) / 1e6);
                }
                if (openMpScopes != 4) {
                    throw new IllegalStateException("expected the four OpenMP scopes, got " + scopes);
                }
                if (stop + 1 < stops) {
                    client.body("next", args("threadId", threadId));
                }
            }
            client.body("disconnect", args());
        }
        return samples;
    }

    /** Plain gdb/MI on the same program and stops, through the same MI layer (no DAP, no OpenMP). */
    private static Map<String, List<Double>> miStops(Path program, List<String> shape, int stops) {
        LinkedBlockingQueue<MiRecord.AsyncRecord> stopsSeen = new LinkedBlockingQueue<>();
        Gdb.Listener listener = new Gdb.Listener() {
            @Override
            public void onAsync(MiRecord.AsyncRecord record) {
                if (record.asyncClass().equals("stopped")) {
                    stopsSeen.add(record);
                }
            }

            @Override
            public void onStream(MiRecord.StreamRecord record) {}

            @Override
            public void onNoise(String line, String problem) {}

            @Override
            public void onExit(String description) {}
        };
        Map<String, String> environment = new java.util.HashMap<>(System.getenv());
        environment.put("OMP_DEBUG", "enabled");
        List<Double> threadInfo = new ArrayList<>();
        List<Double> perThread = new ArrayList<>();
        try (Gdb gdb = Gdb.start("gdb", List.of(), environment, null, Duration.ofMinutes(2), listener)) {
            GdbDebugger debugger = new GdbDebugger(gdb);
            debugger.configure();
            debugger.loadProgram(program);
            debugger.setArguments(String.join(" ", shape) + " >/dev/null 2>&1");
            debugger.insertBreakpoint("jompd_marker", java.util.Optional.empty(), java.util.OptionalInt.empty());
            debugger.run(false);
            for (int stop = 0; stop < stops; stop++) {
                MiRecord.AsyncRecord stopped = stopsSeen.poll(3, TimeUnit.MINUTES);
                if (stopped == null) {
                    throw new IllegalStateException("gdb did not stop");
                }
                int thread = Integer.parseInt(stopped.results().requireString("thread-id"));
                long start = System.nanoTime();
                // what an adapter that knows no better sends: gdb's defaults, argument values of every top frame
                var threads = GdbDebugger.threads(gdb.execute(GdbDebugger.THREAD_INFO));
                debugger.locals(thread, 0);
                threadInfo.add((System.nanoTime() - start) / 1e6);
                start = System.nanoTime();
                for (var t : threads) {
                    debugger.frames(t.id(), 0, 0);
                }
                perThread.add((System.nanoTime() - start) / 1e6);
                if (stop + 1 < stops) {
                    debugger.next(thread, false);
                }
            }
            debugger.kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Map<String, List<Double>> results = new java.util.LinkedHashMap<>();
        results.put("gdb/MI: -thread-info + locals of the stopped frame", threadInfo);
        results.put("gdb/MI: one -stack-list-frames per thread (after the above)", perThread);
        return results;
    }
}
