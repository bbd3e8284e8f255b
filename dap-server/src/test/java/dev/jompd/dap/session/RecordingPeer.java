package dev.jompd.dap.session;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.dap.transport.DapPeer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A peer that records what a session sends. */
final class RecordingPeer implements DapPeer {
    final BlockingQueue<JsonObject> sent = new LinkedBlockingQueue<>();
    final List<JsonObject> seen = new ArrayList<>();
    volatile boolean closed;

    @Override
    public void send(String json) {
        sent.add(JsonParser.parseString(json).getAsJsonObject());
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String describe() {
        return "test";
    }

    JsonObject next(Duration timeout) throws InterruptedException {
        JsonObject message = sent.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (message == null) {
            throw new AssertionError("nothing sent within " + timeout + "; seen so far: " + seen);
        }
        seen.add(message);
        return message;
    }

    /** The response to request {@code seq}, skipping events. */
    JsonObject response(int seq) throws InterruptedException {
        while (true) {
            JsonObject message = next(Duration.ofSeconds(10));
            if (message.get("type").getAsString().equals("response") && message.get("request_seq").getAsInt() == seq) {
                return message;
            }
        }
    }
}
