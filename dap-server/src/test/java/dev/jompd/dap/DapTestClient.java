package dev.jompd.dap;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A minimal DAP client over TCP or a server's standard streams: requests, responses, events, raw bytes. */
public final class DapTestClient implements AutoCloseable {
    private static final JsonObject CLOSED = new JsonObject();

    private final InputStream input;
    private final OutputStream out;
    private final java.io.Closeable connection;
    private final BlockingQueue<JsonObject> incoming = new LinkedBlockingQueue<>();
    private final List<JsonObject> pending = new ArrayList<>();
    private final List<JsonObject> events = new ArrayList<>();
    private final List<String> strayLines = new java.util.concurrent.CopyOnWriteArrayList<>();
    private int seq = 1;
    private volatile boolean closed;

    public DapTestClient(int port) throws IOException {
        this(connect(port));
    }

    private DapTestClient(Socket socket) throws IOException {
        this(socket.getInputStream(), socket.getOutputStream(), socket);
    }

    /** A client of the server behind these streams (e.g. a jompd-dap process in stdio mode). */
    public DapTestClient(InputStream input, OutputStream output, java.io.Closeable connection) {
        this.input = input;
        this.out = output;
        this.connection = connection;
        Thread.ofPlatform().daemon().name("dap-test-client").start(this::readLoop);
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setTcpNoDelay(true);
        return socket;
    }

    /** Lines in the stream that are not DAP headers: anything else the server wrote where only DAP may go. */
    public List<String> strayLines() {
        return List.copyOf(strayLines);
    }

    private void readLoop() {
        try (InputStream in = new BufferedInputStream(input)) {
            while (true) {
                int length = -1;
                ByteArrayOutputStream line = new ByteArrayOutputStream();
                while (true) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    if (b == '\n') {
                        String header = line.toString(StandardCharsets.US_ASCII).strip();
                        line.reset();
                        if (header.isEmpty()) {
                            break;
                        }
                        if (header.toLowerCase().startsWith("content-length:")) {
                            length = Integer.parseInt(header.substring(15).strip());
                        } else {
                            strayLines.add(header);
                        }
                    } else {
                        line.write(b);
                    }
                }
                if (length < 0) {
                    continue; // a stray blank line after stray text: no message
                }
                byte[] body = in.readNBytes(length);
                incoming.add(JsonParser.parseString(new String(body, StandardCharsets.UTF_8)).getAsJsonObject());
            }
        } catch (IOException e) {
            // closed
        } finally {
            closed = true;
            incoming.add(CLOSED);
        }
    }

    public synchronized int send(String command, JsonObject arguments) throws IOException {
        JsonObject request = new JsonObject();
        int id = seq++;
        request.addProperty("seq", id);
        request.addProperty("type", "request");
        request.addProperty("command", command);
        if (arguments != null) {
            request.add("arguments", arguments);
        }
        sendRaw(request.toString());
        return id;
    }

    public void sendRaw(String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        sendBytes(("Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        sendBytes(body);
    }

    public synchronized void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends a request and returns its response (success or not). */
    public JsonObject request(String command, JsonObject arguments, Duration timeout) throws IOException {
        int id = send(command, arguments);
        return await(m -> m.get("type").getAsString().equals("response") && m.get("request_seq").getAsInt() == id,
                timeout, "response to " + command);
    }

    public JsonObject request(String command, JsonObject arguments) throws IOException {
        return request(command, arguments, Duration.ofSeconds(60));
    }

    /** A successful response's body (fails the test otherwise). */
    public JsonObject body(String command, JsonObject arguments) throws IOException {
        JsonObject response = request(command, arguments);
        if (!response.get("success").getAsBoolean()) {
            throw new AssertionError(command + " failed: " + response);
        }
        JsonElement body = response.get("body");
        return body == null ? new JsonObject() : body.getAsJsonObject();
    }

    public JsonObject event(String name, Duration timeout) {
        return await(m -> m.get("type").getAsString().equals("event") && m.get("event").getAsString().equals(name),
                timeout, "event " + name);
    }

    /** The first message (already received or arriving within the timeout) that matches. */
    public synchronized JsonObject await(Predicate<JsonObject> wanted, Duration timeout, String what) {
        for (Iterator<JsonObject> it = pending.iterator(); it.hasNext(); ) {
            JsonObject message = it.next();
            if (wanted.test(message)) {
                it.remove();
                return message;
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            JsonObject message;
            try {
                message = left <= 0 ? null : incoming.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
            if (message == null) {
                throw new AssertionError("no " + what + " within " + timeout + "; received meanwhile: " + pending);
            }
            if (message == CLOSED) {
                incoming.add(CLOSED);
                throw new AssertionError("connection closed while waiting for " + what + "; received: " + pending);
            }
            if (message.get("type").getAsString().equals("event")) {
                events.add(message);
            }
            if (wanted.test(message)) {
                return message;
            }
            pending.add(message);
        }
    }

    /** Every event received so far (including those already awaited). */
    public synchronized List<JsonObject> events() {
        return List.copyOf(events);
    }

    /** The text of every output event so far. */
    public String outputText() {
        StringBuilder text = new StringBuilder();
        for (JsonObject event : events()) {
            if (event.get("event").getAsString().equals("output")) {
                text.append(event.getAsJsonObject("body").get("output").getAsString());
            }
        }
        return text.toString();
    }

    /** Waits until the server closes the connection. */
    public boolean awaitClosed(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!closed && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return closed;
    }

    public static JsonObject json(String text) {
        return JsonParser.parseString(text).getAsJsonObject();
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
